// SPDX-License-Identifier: GPL-3.0-or-later
#include "remotefeed.h"

#include "apijson.h"

#include "security/accesspolicy.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkReply>
#include <QRandomGenerator>
#include <QSslConfiguration>

#include <algorithm>
#include <utility>

namespace Broker {

namespace {

constexpr int WhoAmITimeoutMs = 10'000;

qint64 nowMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}

int statusOf(QNetworkReply *reply)
{
    return reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
}

} // namespace

RemoteFeed::RemoteFeed(RemoteEndpoint endpoint, QObject *parent) : QObject(parent), m_endpoint(std::move(endpoint))
{
    qRegisterMetaType<Broker::BrokerSnapshot>();
    m_retry.setSingleShot(true);
    connect(&m_retry, &QTimer::timeout, this, [this] { m_userId.isEmpty() ? askWhoAmI() : openStream(); });
    m_snapshotTimer.setSingleShot(true);
    connect(&m_snapshotTimer, &QTimer::timeout, this, &RemoteFeed::emitSnapshot);
}

RemoteFeed::~RemoteFeed()
{
    stop();
}

void RemoteFeed::start()
{
    stop();
    m_failures = 0;
    m_problem.clear();
    setState(State::Connecting);
    askWhoAmI();
}

void RemoteFeed::stop()
{
    m_retry.stop();
    if (m_reply) {
        QNetworkReply *reply = m_reply;
        m_reply = nullptr;
        disconnect(reply, nullptr, this, nullptr);
        reply->abort();
        reply->deleteLater();
    }
    setState(State::Idle);
}

namespace {

QString seconds(qint64 count)
{
    return count < 120 ? QObject::tr("%1 s").arg(count) : QObject::tr("%1 min").arg(count / 60);
}

} // namespace

QString RemoteFeed::stateText(qint64 nowMs) const
{
    switch (m_state) {
    case State::Idle: return tr("stopped");
    case State::Connecting: return tr("connecting…");
    case State::Connected:
        // Heartbeats come every HeartbeatSeconds: a longer silence is shown before the feed gives up.
        if (nowMs - m_lastHeardMs > 2 * HeartbeatSeconds * 1000)
            return tr("silent for %1").arg(seconds((nowMs - m_lastHeardMs) / 1000));
        return tr("connected as %1").arg(m_userId);
    case State::Reconnecting:
        return tr("reconnecting in %1: %2").arg(seconds(qMax<qint64>(1, (m_retryAtMs - nowMs + 999) / 1000)), m_problem);
    case State::AuthFailed: return tr("key refused: %1").arg(m_problem);
    }
    return {};
}

bool RemoteFeed::allows(const QString &permission) const
{
    return std::any_of(m_permissions.cbegin(), m_permissions.cend(),
                       [&](const QString &pattern) { return AccessPolicy::globMatch(pattern, permission); });
}

BrokerSnapshot RemoteFeed::snapshot() const
{
    BrokerSnapshot snapshot = m_broker;
    snapshot.queues = m_queues.values(); // QMap: sorted by name
    snapshot.takenAtMs = m_lastHeardMs;
    return snapshot;
}

QNetworkRequest RemoteFeed::request(const QString &path) const
{
    QUrl url = m_endpoint.url;
    const qsizetype query = path.indexOf(u'?');
    url.setPath(url.path().chopped(url.path().endsWith(u'/') ? 1 : 0) + path.left(query));
    if (query >= 0)
        url.setQuery(path.mid(query + 1));
    QNetworkRequest request(url);
    request.setRawHeader("X-API-Key", m_endpoint.apiKey);
    request.setHeader(QNetworkRequest::UserAgentHeader, QStringLiteral("brokerdesk"));
    if (url.scheme() == u"https") {
        QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
        if (!m_endpoint.caCertificates.isEmpty())
            tls.setCaCertificates(m_endpoint.caCertificates);
        request.setSslConfiguration(tls);
    }
    return request;
}

QString RemoteFeed::describe(QNetworkReply *reply)
{
    const int status = statusOf(reply);
    if (status == 0)
        return reply->errorString();
    const QJsonObject problem = QJsonDocument::fromJson(reply->readAll()).object();
    const QString error = problem.value(u"error").toString();
    return error.isEmpty() ? QStringLiteral("HTTP %1").arg(status) : QStringLiteral("%1 %2").arg(status).arg(error);
}

void RemoteFeed::askWhoAmI()
{
    QNetworkRequest request = this->request(QStringLiteral("/me"));
    request.setTransferTimeout(WhoAmITimeoutMs);
    QNetworkReply *reply = m_network.get(request);
    m_reply = reply;
    connect(reply, &QNetworkReply::finished, this, [this, reply] {
        reply->deleteLater();
        if (m_reply != reply)
            return;
        m_reply = nullptr;
        const int status = statusOf(reply);
        if (status == 401) {
            m_problem = describe(reply);
            return setState(State::AuthFailed);
        }
        if (status != 200)
            return retryLater(describe(reply));
        const QJsonObject me = QJsonDocument::fromJson(reply->readAll()).object();
        m_userId = me.value(u"id").toString();
        m_permissions.clear();
        for (const QJsonValue &permission : me.value(u"permissions").toArray())
            m_permissions.append(permission.toString());
        Q_EMIT permissionsChanged();
        openStream();
    });
}

void RemoteFeed::openStream()
{
    // Counters only for a key that may list queues; message events are filtered by the broker.
    const QString events = allows(QStringLiteral("list_queues")) ? QStringLiteral("message,queues,broker") : QStringLiteral("message");
    QNetworkRequest request = this->request(QStringLiteral("/events?events=%1&heartbeat=%2").arg(events).arg(HeartbeatSeconds));
    request.setRawHeader("Accept", "text/event-stream");
    if (!m_parser.lastEventId().isEmpty())
        request.setRawHeader("Last-Event-ID", m_parser.lastEventId());
    request.setTransferTimeout(3 * HeartbeatSeconds * 1000); // three heartbeats missed: the link is gone
    m_parser.reset();
    m_receivingTable = false;
    QNetworkReply *reply = m_network.get(request);
    m_reply = reply;
    connect(reply, &QNetworkReply::readyRead, this, [this, reply] {
        if (m_reply == reply && statusOf(reply) == 200)
            streamed(reply->readAll());
    });
    connect(reply, &QNetworkReply::finished, this, [this, reply] {
        reply->deleteLater();
        if (m_reply != reply)
            return;
        m_reply = nullptr;
        streamEnded(reply);
    });
}

void RemoteFeed::streamed(const QByteArray &bytes)
{
    m_lastHeardMs = nowMs();
    if (m_state != State::Connected) {
        m_failures = 0;
        m_problem.clear();
        setState(State::Connected);
    }
    for (const StreamEvent &event : m_parser.feed(bytes))
        handle(event);
}

void RemoteFeed::streamEnded(QNetworkReply *reply)
{
    const int status = statusOf(reply);
    if (status == 200) {
        if (const QByteArray rest = reply->readAll(); !rest.isEmpty())
            streamed(rest);
    }
    if (status == 401) {
        m_problem = describe(reply);
        m_userId.clear();
        return setState(State::AuthFailed);
    }
    if (status == 403) // the key's roles changed: ask again what it may see
        m_userId.clear();
    retryLater(status == 200 ? QStringLiteral("the broker ended the event stream") : describe(reply));
}

void RemoteFeed::retryLater(const QString &problem)
{
    m_problem = problem;
    // A growing pause with jitter, so that many desktops do not come back at once.
    const double jitter = 0.8 + 0.4 * QRandomGenerator::global()->generateDouble();
    const int delay = int(qMin<double>(LongestRetryMs, FirstRetryMs * double(1 << qMin(m_failures, 10)) * jitter));
    ++m_failures;
    m_retryAtMs = nowMs() + delay;
    setState(State::Reconnecting);
    m_retry.start(delay);
}

void RemoteFeed::handle(const StreamEvent &event)
{
    const QJsonObject json = QJsonDocument::fromJson(event.data).object();
    if (event.type == "message") {
        if (std::optional<MessageEvent> message = ApiJson::messageEvent(json)) {
            m_broker.lastEventNumber = message->number;
            m_newEvents.append(std::move(*message));
            if (m_newEvents.size() > MaxEventsPerSnapshot)
                m_newEvents.removeFirst();
        }
    } else if (event.type == "queues") {
        const bool full = json.value(u"full").toBool();
        if (full && !m_receivingTable) {
            m_incomingTable.clear();
            m_receivingTable = true;
        }
        QMap<QString, QueueInfo> &target = m_receivingTable ? m_incomingTable : m_queues;
        for (const QJsonValue &name : json.value(u"removed").toArray())
            target.remove(name.toString());
        for (const QJsonValue &value : json.value(u"queues").toArray()) {
            if (std::optional<QueueInfo> queue = ApiJson::queueInfo(value.toObject()))
                target.insert(queue->name, std::move(*queue));
        }
        if (m_receivingTable && !json.value(u"more").toBool()) {
            m_queues = std::exchange(m_incomingTable, {});
            m_receivingTable = false;
        }
        if (m_receivingTable)
            return; // the table is shown once it is whole
    } else if (event.type == "broker") {
        ApiJson::applyBrokerCounters(json, m_broker);
    } else if (event.type == "gap") {
        m_eventsMissed += qMax<qint64>(0, json.value(u"missed").toInteger());
    } else {
        return;
    }
    scheduleSnapshot();
}

void RemoteFeed::scheduleSnapshot()
{
    if (!m_snapshotTimer.isActive())
        m_snapshotTimer.start(SnapshotIntervalMs);
}

void RemoteFeed::emitSnapshot()
{
    BrokerSnapshot out = snapshot();
    out.recentEvents = std::exchange(m_newEvents, {});
    Q_EMIT snapshotUpdated(out);
}

void RemoteFeed::setState(State state)
{
    if (m_state == state)
        return;
    m_state = state;
    Q_EMIT stateChanged(state);
}

} // namespace Broker
