// SPDX-License-Identifier: GPL-3.0-or-later
#include "operationscontroller.h"

#include "clusterstatus.h"
#include "eventscontroller.h"
#include "notificationmetrics.h"
#include "openapi.h"
#include "prometheustext.h"
#include "processorreport.h"
#include "requestparsing.h"
#include "restserver.h"
#include "serializers.h"
#include "spoolstatus.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <limits>

namespace Broker::Rest {

using Method = QHttpServerRequest::Method;

namespace {

constexpr quint64 NoEvents = std::numeric_limits<quint64>::max();

void appendQueueMetric(QByteArray &out, const char *name, const char *type, const char *help,
                       const QList<QueueInfo> &queues, qint64 (*value)(const QueueInfo &))
{
    appendFamilyHead(out, name, type, help);
    for (const QueueInfo &queue : queues)
        out += QByteArray(name) + "{queue=\"" + promLabel(queue.name) + "\"} " + QByteArray::number(value(queue)) + '\n';
}

// Partitioned queues: one series per partition (labels queue and partition).
void appendPartitionMetric(QByteArray &out, const char *name, const char *type, const char *help,
                           const QList<QueueInfo> &queues, qint64 (*value)(const PartitionInfo &))
{
    appendFamilyHead(out, name, type, help);
    for (const QueueInfo &queue : queues) {
        for (const PartitionInfo &partition : queue.partitions) {
            out += QByteArray(name) + "{queue=\"" + promLabel(queue.name) + "\",partition=\""
                + QByteArray::number(partition.index) + "\"} " + QByteArray::number(value(partition)) + '\n';
        }
    }
}

void appendGauge(QByteArray &out, const char *name, const char *help, double value)
{
    out += QByteArray("# HELP ") + name + ' ' + help + "\n# TYPE " + name + " gauge\n" + name + ' '
        + QByteArray::number(value, 'g', 12) + '\n';
}

} // namespace

OperationsController::OperationsController(RestContext &context, Router &router, const RestServer &server)
    : Controller(context), m_server(server), m_router(router)
{
    const auto bind = [this](void (OperationsController::*handler)(const ExchangePtr &)) {
        return [this, handler](const ExchangePtr &exchange) { (this->*handler)(exchange); };
    };
    using namespace Api;
    const QString tag = QStringLiteral("operations");
    const ApiResponse unhealthy{503, QStringLiteral("Health"), QStringLiteral("The broker is unhealthy: storage is unusable"),
                                "application/json"};
    router.add({Method::Get, QStringLiteral("/health"),
                QStringLiteral("Broker health (at most 1 s old; storage details with a view_metrics key)"), {}, false,
                {QStringLiteral("getHealth"), tag, {}, false, {}, {ok(QStringLiteral("Health")), unhealthy}, false},
                bind(&OperationsController::health)});
    router.add({Method::Get, QStringLiteral("/api/health"), QStringLiteral("Broker health (gCore path)"), {}, false,
                {QStringLiteral("getHealthGcore"), tag, {}, false, {}, {ok(QStringLiteral("Health")), unhealthy}, false},
                bind(&OperationsController::health)});
    router.add({Method::Get, QStringLiteral("/health/live"), QStringLiteral("Liveness: the process serves"), {}, false,
                {QStringLiteral("getLiveness"), tag, {}, false, {}, {ok(QStringLiteral("Liveness"))}, false},
                bind(&OperationsController::live)});
    router.add({Method::Get, QStringLiteral("/health/ready"), QStringLiteral("Readiness: storage is usable and takes changes"), {},
                false,
                {QStringLiteral("getReadiness"), tag, {}, false, {},
                 {ok(QStringLiteral("Readiness")),
                  {503, QStringLiteral("Readiness"), QStringLiteral("Not ready: storage is unusable or read-only"), "application/json"}},
                 false},
                bind(&OperationsController::ready)});
    router.add({Method::Get, QStringLiteral("/metrics"), QStringLiteral("Prometheus metrics (text format 0.0.4)"),
                QStringLiteral("view_metrics"), true,
                {QStringLiteral("getMetrics"), tag, {}, false, {},
                 {{200, QStringLiteral("Metrics"), QStringLiteral("Prometheus text exposition format 0.0.4"),
                   "text/plain; version=0.0.4; charset=utf-8"},
                  problem(403, QStringLiteral("`Unauthorized`: the key lacks `view_metrics`"))},
                 false},
                bind(&OperationsController::metrics)});
    router.add({Method::Get, QStringLiteral("/errors"), QStringLiteral("Recent errors of the broker"),
                QStringLiteral("view_errors"), true,
                {QStringLiteral("listErrors"), tag, {}, false,
                 {integer(QStringLiteral("limit"), 1, 10'000, 100, QStringLiteral("Most recent records to answer"))},
                 {ok(QStringLiteral("ErrorList")), problem(400, QStringLiteral("`Invalid limit: ...`")),
                  problem(403, QStringLiteral("`Unauthorized`: the key lacks `view_errors`"))},
                 false},
                bind(&OperationsController::errors)});
    router.add({Method::Get, QStringLiteral("/openapi.json"), QStringLiteral("This document"), {}, false,
                {QStringLiteral("getOpenApiDocument"), tag, {}, false, {},
                 {ok(QStringLiteral("OpenApiDocument"), QStringLiteral("The OpenAPI 3.0 document of this API"))}, false},
                bind(&OperationsController::openApi)});
}

QJsonObject OperationsController::storageComponent(HealthStatus health, const QString &backend,
                                                   const StoreStatus &store, bool detailed) const
{
    QJsonObject storage;
    storage.insert(QStringLiteral("status"), QString::fromLatin1(healthStatusName(health)));
    storage.insert(QStringLiteral("backend"), backend);
    storage.insert(QStringLiteral("durability"), durabilityName(m_context.options.durability));
    storage.insert(QStringLiteral("writable"), store.writable);
    if (!store.writable)
        storage.insert(QStringLiteral("read_only_reason"), withoutPaths(store.readOnlyReason));
    if (!store.breaker.isEmpty()) {
        QJsonObject breaker;
        breaker.insert(QStringLiteral("state"), store.breaker);
        if (detailed) {
            breaker.insert(QStringLiteral("opened"), store.breakerOpened);
            if (store.breakerRetryAtMs > 0)
                breaker.insert(QStringLiteral("retry_at"), unixSeconds(store.breakerRetryAtMs));
        }
        storage.insert(QStringLiteral("circuit_breaker"), breaker);
    }
    if (!detailed)
        return storage;
    if (!store.breaker.isEmpty()) {
        QJsonObject pool;
        pool.insert(QStringLiteral("ready"), store.connectionsReady);
        pool.insert(QStringLiteral("size"), store.connections);
        pool.insert(QStringLiteral("reconnects"), store.reconnects);
        storage.insert(QStringLiteral("pool"), pool);
        storage.insert(QStringLiteral("spooled_messages"), store.spooledMessages);
        storage.insert(QStringLiteral("spool"), SpoolStatus::toJson(store));
        storage.insert(QStringLiteral("script_reloads"), store.scriptReloads);
        if (!store.scriptCalls.isEmpty())
            storage.insert(QStringLiteral("scripts"), store.scriptCalls);
        storage.insert(QStringLiteral("wakeups"), ClusterStatus::wakeupsJson(store));
        if (store.cluster)
            storage.insert(QStringLiteral("cluster"), ClusterStatus::toJson(store));
    }
    if (!store.lastError.isEmpty())
        storage.insert(QStringLiteral("last_error"), withoutPaths(store.lastError));
    return storage;
}

void OperationsController::health(const ExchangePtr &exchange)
{
    // gCore's fields for everyone, from totals at most a second old (cheap whatever the number
    // of queues); a key with view_metrics gets a fresh count and the storage's details.
    const bool detailed = exchange->user && m_context.policy.allows(exchange->user->roles, QStringLiteral("view_metrics"));
    if (detailed)
        return detailedHealth(exchange);
    m_context.broker.healthSummary([this, exchange](Result<HealthSummary> result) { sendHealth(exchange, *result, false); });
}

void OperationsController::detailedHealth(const ExchangePtr &exchange)
{
    m_context.broker.snapshot(NoEvents, [this, exchange](Result<BrokerSnapshot> result) {
        const BrokerSnapshot &snapshot = *result;
        HealthSummary fresh;
        fresh.countedAtMs = snapshot.takenAtMs;
        fresh.uptimeSeconds = snapshot.uptimeSeconds;
        fresh.health = snapshot.health;
        fresh.storage = snapshot.storage;
        fresh.storeStatus = snapshot.storeStatus;
        fresh.queues = int(snapshot.queues.size());
        fresh.messagesTotal = snapshot.messagesTotal;
        fresh.messagesProcessed = snapshot.messagesProcessed;
        sendHealth(exchange, fresh, true);
    });
}

// The notification webhook (error.webhook_url): degraded while its deliveries fail. Where it
// points (scheme and host only) and its counts go to view_metrics keys.
QJsonObject OperationsController::webhookComponent(const WebhookStatus &webhook, bool detailed)
{
    QJsonObject component;
    component.insert(QStringLiteral("status"), webhook.failing ? QStringLiteral("degraded") : QStringLiteral("healthy"));
    if (webhook.failing)
        component.insert(QStringLiteral("last_error"), webhook.lastError);
    if (!detailed)
        return component;
    component.insert(QStringLiteral("target"), webhook.target);
    component.insert(QStringLiteral("delivered"), webhook.delivered);
    component.insert(QStringLiteral("failed"), webhook.failed);
    component.insert(QStringLiteral("dropped"), webhook.dropped);
    component.insert(QStringLiteral("queued"), webhook.queued);
    if (webhook.lastErrorAtMs > 0)
        component.insert(QStringLiteral("last_error_at"), unixSeconds(webhook.lastErrorAtMs));
    return component;
}

QJsonObject OperationsController::apiComponent(bool detailed) const
{
    QJsonObject api;
    bool degraded = false;
    const std::shared_ptr<const TlsIdentity> tls = m_server.tlsIdentity();
    api.insert(QStringLiteral("tls"), tls != nullptr);
    if (tls) {
        const QDateTime now = QDateTime::fromMSecsSinceEpoch(m_context.clock.nowMs(), Qt::UTC);
        const qint64 days = tls->daysLeft(now);
        QJsonObject certificate;
        certificate.insert(QStringLiteral("days_left"), days);
        certificate.insert(QStringLiteral("not_after"), tls->notAfter.toString(Qt::ISODate));
        if (detailed) {
            certificate.insert(QStringLiteral("subject"), tls->subject);
            certificate.insert(QStringLiteral("sha256"), tls->sha256Fingerprint);
            certificate.insert(QStringLiteral("client_certificates"), tls->clientCertificates);
        }
        api.insert(QStringLiteral("certificate"), certificate);
        degraded = days <= ExpiryWarningDays;
        if (now >= tls->notAfter)
            api.insert(QStringLiteral("warning"), QStringLiteral("the API's TLS certificate has expired: clients refuse it"));
        else if (degraded)
            api.insert(QStringLiteral("warning"), QStringLiteral("the API's TLS certificate expires in %1 days").arg(days));
    } else if (const QHostAddress address = m_server.listenAddress();
               !address.isNull() && !address.isLoopback() && !m_context.options.plaintextBehindProxy) {
        api.insert(QStringLiteral("warning"), QStringLiteral("plain HTTP on a non-loopback address: API keys and messages "
                                                             "cross the network unencrypted (turn on api.tls)"));
    }
    api.insert(QStringLiteral("status"), degraded ? QStringLiteral("degraded") : QStringLiteral("healthy"));
    if (detailed)
        api.insert(QStringLiteral("connections"), m_server.connectionCount());
    return api;
}

void OperationsController::sendHealth(const ExchangePtr &exchange, const HealthSummary &summary, bool detailed)
{
    const QJsonObject api = apiComponent(detailed);
    QJsonObject components;
    components.insert(QStringLiteral("storage"), storageComponent(summary.health, summary.storage, summary.storeStatus, detailed));
    components.insert(QStringLiteral("api"), api);
    if (const std::optional<WebhookStatus> webhook = m_context.errors.webhookStatus())
        components.insert(QStringLiteral("notifications"), webhookComponent(*webhook, detailed));
    // Like the notifications: a failing processor is a component's trouble, not the broker's, so
    // the overall status stays the storage's (and gCore clients' "healthy" check keeps its meaning).
    if (const ProcessorStatusList processors = m_context.broker.processorStatuses(); !processors.isEmpty())
        components.insert(QStringLiteral("processors"), ProcessorReport::healthComponent(processors, detailed));
    QJsonObject json;
    // An expiring certificate is the broker's trouble (clients will soon refuse it), unlike a
    // failing processor or webhook: it makes a healthy broker degraded (still 200).
    HealthStatus status = summary.health;
    if (status == HealthStatus::Healthy && api.value(QStringLiteral("status")).toString() == u"degraded")
        status = HealthStatus::Degraded;
    json.insert(QStringLiteral("status"), QString::fromLatin1(healthStatusName(status)));
    json.insert(QStringLiteral("queues"), summary.queues);
    json.insert(QStringLiteral("messages_total"), summary.messagesTotal);
    json.insert(QStringLiteral("messages_processed"), summary.messagesProcessed);
    json.insert(QStringLiteral("uptime"), summary.uptimeSeconds);
    json.insert(QStringLiteral("version"), QStringLiteral(BROKER_VERSION));
    json.insert(QStringLiteral("timestamp"), unixSeconds(summary.countedAtMs));
    json.insert(QStringLiteral("storage"), summary.storage);
    json.insert(QStringLiteral("components"), components);
    exchange->sendJson(summary.health == HealthStatus::Unhealthy ? 503 : 200, json);
}

void OperationsController::live(const ExchangePtr &exchange)
{
    exchange->sendJsonText(200, QByteArrayLiteral(R"({"status":"alive"})"));
}

void OperationsController::ready(const ExchangePtr &exchange)
{
    // Ready means the broker can take changes: a read-only store (journal writes failing) is
    // alive and serves reads, but a load balancer should send publishers elsewhere.
    m_context.broker.healthSummary([exchange](Result<HealthSummary> summary) {
        const StoreStatus &store = summary->storeStatus;
        const bool ready = summary->health != HealthStatus::Unhealthy && store.writable;
        QJsonObject json;
        json.insert(QStringLiteral("status"), ready ? QStringLiteral("ready") : QStringLiteral("not ready"));
        json.insert(QStringLiteral("storage"), QString::fromLatin1(healthStatusName(summary->health)));
        json.insert(QStringLiteral("writable"), store.writable);
        if (!store.writable)
            json.insert(QStringLiteral("reason"), withoutPaths(store.readOnlyReason));
        exchange->sendJson(ready ? 200 : 503, json);
    });
}

namespace {

// What the connection guard refused or cut off, and what connections hold in memory now.
void appendGuardMetrics(QByteArray &out, const GuardStats &guard, qint64 bufferedBytes)
{
    out += "# HELP brokerdesk_http_connections_refused_total Connections refused, by reason (server_full: "
           "max_connections; address_full: the client address's own cap; stopping: during shutdown).\n"
           "# TYPE brokerdesk_http_connections_refused_total counter\n";
    for (const auto &[reason, count] : {std::pair{"server_full", guard.refusedServerFull},
                                        std::pair{"address_full", guard.refusedAddressFull},
                                        std::pair{"stopping", guard.refusedStopping}})
        out += QByteArray("brokerdesk_http_connections_refused_total{reason=\"") + reason + "\"} " + QByteArray::number(count) + '\n';
    out += "# HELP brokerdesk_http_connections_cut_total Connections ended by the guard, by reason (head_timeout: no "
           "complete head in time; request_timeout: a body too slow; stalled_output: a client that did not read).\n"
           "# TYPE brokerdesk_http_connections_cut_total counter\n";
    for (const auto &[reason, count] : {std::pair{"head_timeout", guard.headTimeouts},
                                        std::pair{"request_timeout", guard.requestTimeouts},
                                        std::pair{"stalled_output", guard.stalledOutputs}})
        out += QByteArray("brokerdesk_http_connections_cut_total{reason=\"") + reason + "\"} " + QByteArray::number(count) + '\n';
    appendGauge(out, "brokerdesk_http_buffered_bytes", "Unsent output and unanswered input held for all connections.",
                double(bufferedBytes));
    out += "# HELP brokerdesk_tls_handshakes_failed_total TLS handshakes that failed (failed: refused or broken; "
           "timeout: not done within api.tls.handshake_timeout_seconds).\n"
           "# TYPE brokerdesk_tls_handshakes_failed_total counter\n";
    for (const auto &[reason, count] : {std::pair{"failed", guard.tlsHandshakeFailures},
                                        std::pair{"timeout", guard.tlsHandshakeTimeouts}})
        out += QByteArray("brokerdesk_tls_handshakes_failed_total{reason=\"") + reason + "\"} " + QByteArray::number(count) + '\n';
}

// The certificate the API serves over TLS: when it expires and the days left.
void appendTlsMetrics(QByteArray &out, const TlsIdentity &tls, qint64 nowMs)
{
    appendGauge(out, "brokerdesk_tls_certificate_expiry_timestamp_seconds", "When the API's TLS certificate expires (unix seconds).",
                double(tls.notAfter.toSecsSinceEpoch()));
    appendGauge(out, "brokerdesk_tls_certificate_days_left", "Whole days until the API's TLS certificate expires (negative: expired).",
                double(tls.daysLeft(QDateTime::fromMSecsSinceEpoch(nowMs, Qt::UTC))));
}

} // namespace

void OperationsController::metrics(const ExchangePtr &exchange)
{
    if (!m_context.permit(exchange, QStringLiteral("view_metrics")))
        return;
    m_context.broker.snapshot(NoEvents, [this, exchange](Result<BrokerSnapshot> result) {
        const BrokerSnapshot &s = *result;
        QByteArray out;
        appendGauge(out, "brokerdesk_up", "1 while the broker serves.", 1);
        appendGauge(out, "brokerdesk_uptime_seconds", "Seconds since the broker started.", double(s.uptimeSeconds));
        appendGauge(out, "brokerdesk_storage_healthy", "1 healthy, 0.5 degraded (fallback storage or read-only), 0 unhealthy.",
                    s.health == HealthStatus::Healthy ? 1.0 : s.health == HealthStatus::Degraded ? 0.5 : 0.0);
        appendGauge(out, "brokerdesk_storage_writable", "1 while the store takes changes, 0 while it is read-only.",
                    s.storeStatus.writable ? 1.0 : 0.0);
        out += "# HELP brokerdesk_info Version and storage backend.\n# TYPE brokerdesk_info gauge\n"
               "brokerdesk_info{version=\"" BROKER_VERSION "\",storage=\"" + promLabel(s.storage) + "\"} 1\n";
        if (!s.storeStatus.breaker.isEmpty()) {
            const StoreStatus &store = s.storeStatus;
            out += "# HELP brokerdesk_storage_breaker_state Circuit breaker of the storage backend: 1 for the state it is in.\n"
                   "# TYPE brokerdesk_storage_breaker_state gauge\n";
            for (const char *state : {"closed", "open", "half_open"}) {
                out += QByteArray("brokerdesk_storage_breaker_state{state=\"") + state + "\"} "
                    + (store.breaker == QLatin1StringView(state) ? "1\n" : "0\n");
            }
            out += "# HELP brokerdesk_storage_breaker_opened_total Times the circuit breaker opened.\n"
                   "# TYPE brokerdesk_storage_breaker_opened_total counter\nbrokerdesk_storage_breaker_opened_total "
                + QByteArray::number(store.breakerOpened) + '\n';
            appendGauge(out, "brokerdesk_storage_connections_ready", "Connections to the backend that are up.",
                        double(store.connectionsReady));
            appendGauge(out, "brokerdesk_storage_connections", "Connections the pool keeps.", double(store.connections));
            out += "# HELP brokerdesk_storage_reconnects_total Reconnection attempts of the pool.\n"
                   "# TYPE brokerdesk_storage_reconnects_total counter\nbrokerdesk_storage_reconnects_total "
                + QByteArray::number(store.reconnects) + '\n';
            appendGauge(out, "brokerdesk_storage_spooled_messages",
                        "Publishes kept in the local spool until the backend takes them.", double(store.spooledMessages));
            SpoolStatus::appendMetrics(out, store);
            out += "# HELP brokerdesk_storage_script_reloads_total Scripts the backend had forgotten and was sent again.\n"
                   "# TYPE brokerdesk_storage_script_reloads_total counter\nbrokerdesk_storage_script_reloads_total "
                + QByteArray::number(store.scriptReloads) + '\n';
            ClusterStatus::appendMetrics(out, store);
        }
        appendGauge(out, "brokerdesk_queues", "Queues.", double(s.queues.size()));
        appendGauge(out, "brokerdesk_messages", "Messages held over all queues (ready, delayed, in flight).",
                    double(s.messagesTotal));
        appendQueueMetric(out, "brokerdesk_queue_depth", "gauge", "Messages ready for delivery.", s.queues,
                          [](const QueueInfo &q) { return q.depth; });
        appendQueueMetric(out, "brokerdesk_queue_in_flight", "gauge", "Messages leased, not yet acknowledged.", s.queues,
                          [](const QueueInfo &q) { return q.inFlight; });
        appendQueueMetric(out, "brokerdesk_queue_delayed", "gauge", "Messages waiting for their delay.", s.queues,
                          [](const QueueInfo &q) { return q.delayed; });
        appendQueueMetric(out, "brokerdesk_queue_published_total", "counter", "Messages published.", s.queues,
                          [](const QueueInfo &q) { return q.counters.published; });
        appendQueueMetric(out, "brokerdesk_queue_consumed_total", "counter", "Deliveries.", s.queues,
                          [](const QueueInfo &q) { return q.counters.delivered; });
        appendQueueMetric(out, "brokerdesk_queue_acked_total", "counter", "Messages acknowledged.", s.queues,
                          [](const QueueInfo &q) { return q.counters.acked; });
        appendQueueMetric(out, "brokerdesk_queue_nacked_total", "counter", "Negative acknowledgements.", s.queues,
                          [](const QueueInfo &q) { return q.counters.nacked; });
        appendQueueMetric(out, "brokerdesk_queue_expired_total", "counter", "Messages whose TTL ran out.", s.queues,
                          [](const QueueInfo &q) { return q.counters.expired; });
        appendQueueMetric(out, "brokerdesk_queue_dead_lettered_total", "counter", "Messages moved to the dead-letter queue.",
                          s.queues, [](const QueueInfo &q) { return q.counters.deadLettered; });
        appendPartitionMetric(out, "brokerdesk_queue_partition_depth", "gauge", "Messages ready, per partition.", s.queues,
                              [](const PartitionInfo &p) { return p.depth; });
        appendPartitionMetric(out, "brokerdesk_queue_partition_published_total", "counter", "Messages published, per partition.",
                              s.queues, [](const PartitionInfo &p) { return p.counters.published; });
        appendPartitionMetric(out, "brokerdesk_queue_partition_consumed_total", "counter", "Deliveries, per partition.",
                              s.queues, [](const PartitionInfo &p) { return p.counters.delivered; });
        ProcessorReport::appendMetrics(out, s.processors);
        if (s.notificationWebhook)
            NotificationMetrics::append(out, *s.notificationWebhook);
        appendGauge(out, "brokerdesk_http_connections", "Open client connections.", double(m_server.connectionCount()));
        appendGuardMetrics(out, m_server.guardStats(), m_server.bufferedBytes());
        const EventsController::Stats events = m_server.events().stats();
        appendSingle(out, "brokerdesk_event_streams", "gauge", "Open event streams (GET /events).", events.open);
        appendSingle(out, "brokerdesk_event_streams_opened_total", "counter", "Event streams opened.", events.opened);
        appendSingle(out, "brokerdesk_event_streams_dropped_total", "counter",
                     "Event streams dropped: their reader took nothing for api.events.stall_timeout_seconds.", events.dropped);
        appendSingle(out, "brokerdesk_event_stream_gaps_total", "counter",
                     "Gap events sent: readers told that they missed events.", events.gaps);
        if (const std::shared_ptr<const TlsIdentity> tls = m_server.tlsIdentity())
            appendTlsMetrics(out, *tls, m_context.clock.nowMs());
        out += m_server.httpMetrics().exposition();
        out += "# HELP brokerdesk_errors_total Errors recorded, by severity.\n# TYPE brokerdesk_errors_total counter\n";
        for (Severity severity : {Severity::Info, Severity::Warning, Severity::Error, Severity::Critical}) {
            out += QByteArray("brokerdesk_errors_total{severity=\"") + severityName(severity) + "\"} "
                + QByteArray::number(m_context.errors.total(severity)) + '\n';
        }
        exchange->sendText(200, "text/plain; version=0.0.4; charset=utf-8", out);
    });
}

void OperationsController::errors(const ExchangePtr &exchange)
{
    const Result<qint64> limit = queryInteger(exchange->query(), "limit", 1, 10'000, 100);
    if (!check(exchange, limit) || !m_context.permit(exchange, QStringLiteral("view_errors")))
        return;
    QJsonArray records;
    for (const ErrorRecord &record : m_context.errors.recent(int(*limit))) {
        QJsonObject json;
        json.insert(QStringLiteral("id"), qint64(record.id));
        json.insert(QStringLiteral("severity"), QString::fromLatin1(severityName(record.severity)));
        json.insert(QStringLiteral("component"), record.component);
        json.insert(QStringLiteral("code"), record.code);
        json.insert(QStringLiteral("message"), record.message);
        json.insert(QStringLiteral("first_seen"), unixSeconds(record.firstMs));
        json.insert(QStringLiteral("last_seen"), unixSeconds(record.lastMs));
        json.insert(QStringLiteral("count"), record.count);
        records.append(json);
    }
    QJsonObject json;
    json.insert(QStringLiteral("errors"), records);
    json.insert(QStringLiteral("count"), records.size());
    exchange->sendJson(200, json);
}

void OperationsController::openApi(const ExchangePtr &exchange)
{
    // The route table and the options do not change after start.
    if (m_openApi.isEmpty()) {
        m_openApi = QJsonDocument(openApiDocument(m_router, QStringLiteral(BROKER_VERSION), m_context.broker.options()))
                        .toJson(QJsonDocument::Compact);
    }
    exchange->sendText(200, "application/json", m_openApi);
}

} // namespace Broker::Rest
