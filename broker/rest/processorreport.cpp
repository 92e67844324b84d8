// SPDX-License-Identifier: GPL-3.0-or-later
#include "processorreport.h"

#include "exchange.h"
#include "prometheustext.h"
#include "serializers.h"

#include <QJsonArray>

namespace Broker::Rest::ProcessorReport {

namespace {

QJsonValue timeOrNull(qint64 ms)
{
    return ms > 0 ? QJsonValue(unixSeconds(ms)) : QJsonValue(QJsonValue::Null);
}

void appendFamily(QByteArray &out, const char *name, const char *type, const char *help,
                  const ProcessorStatusList &statuses, qint64 (*value)(const ProcessorStatus &))
{
    appendFamilyHead(out, name, type, help);
    for (const ProcessorStatus &status : statuses) {
        out += QByteArray(name) + "{queue=\"" + promLabel(status.queue) + "\",processor=\""
            + QByteArray::number(status.id) + "\",kind=\"" + promLabel(status.kind) + "\"} "
            + QByteArray::number(value(status)) + '\n';
    }
}

} // namespace

QJsonObject toJson(const ProcessorStatus &status)
{
    QJsonObject json;
    json.insert(QStringLiteral("id"), status.id);
    json.insert(QStringLiteral("name"), status.name);
    json.insert(QStringLiteral("queue"), status.queue);
    json.insert(QStringLiteral("kind"), status.kind);
    json.insert(QStringLiteral("target"), status.target);
    json.insert(QStringLiteral("concurrency"), status.concurrency);
    json.insert(QStringLiteral("in_flight"), status.inFlight);
    json.insert(QStringLiteral("running"), status.running);
    json.insert(QStringLiteral("successes"), status.successes);
    json.insert(QStringLiteral("failures"), status.failures);
    json.insert(QStringLiteral("last_error"),
                status.lastError.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(withoutPaths(status.lastError)));
    json.insert(QStringLiteral("last_error_at"), timeOrNull(status.lastErrorAtMs));
    json.insert(QStringLiteral("last_success_at"), timeOrNull(status.lastSuccessAtMs));
    json.insert(QStringLiteral("failing"), status.failing);
    return json;
}

QJsonObject healthComponent(const ProcessorStatusList &statuses, bool detailed)
{
    int failing = 0;
    int stopped = 0;
    for (const ProcessorStatus &status : statuses) {
        failing += status.failing ? 1 : 0;
        stopped += status.running ? 0 : 1;
    }
    QJsonObject component;
    component.insert(QStringLiteral("status"),
                     failing + stopped > 0 ? QStringLiteral("degraded") : QStringLiteral("healthy"));
    component.insert(QStringLiteral("count"), int(statuses.size()));
    component.insert(QStringLiteral("failing"), failing);
    component.insert(QStringLiteral("stopped"), stopped);
    if (!detailed)
        return component;
    QJsonArray details;
    for (const ProcessorStatus &status : statuses)
        details.append(toJson(status));
    component.insert(QStringLiteral("processors"), details);
    return component;
}

void appendMetrics(QByteArray &out, const ProcessorStatusList &statuses)
{
    appendFamily(out, "brokerdesk_processor_successes_total", "counter", "Messages a processor acknowledged.", statuses,
                 [](const ProcessorStatus &s) { return s.successes; });
    appendFamily(out, "brokerdesk_processor_failures_total", "counter",
                 "Messages a processor failed (declined, error answer, timed out).", statuses,
                 [](const ProcessorStatus &s) { return s.failures; });
    appendFamily(out, "brokerdesk_processor_in_flight", "gauge", "Messages a processor holds now.", statuses,
                 [](const ProcessorStatus &s) { return qint64(s.inFlight); });
    appendFamily(out, "brokerdesk_processor_concurrency", "gauge", "Messages a processor may hold at once.", statuses,
                 [](const ProcessorStatus &s) { return qint64(s.concurrency); });
    appendFamily(out, "brokerdesk_processor_running", "gauge", "1 while a processor runs, 0 once it stopped.", statuses,
                 [](const ProcessorStatus &s) { return qint64(s.running ? 1 : 0); });
    appendFamily(out, "brokerdesk_processor_failing", "gauge",
                 "1 while a processor's latest delivery failed and none succeeded since.", statuses,
                 [](const ProcessorStatus &s) { return qint64(s.failing ? 1 : 0); });
}

} // namespace Broker::Rest::ProcessorReport
