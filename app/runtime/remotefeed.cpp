// SPDX-License-Identifier: GPL-3.0-or-later
#include "remotefeed.h"

#include "feedassembler.h"

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

RemoteFeed::RemoteFeed(RemoteEndpoint endpoint, QObject *parent)
    : QObject(parent), m_endpoint(std::move(endpoint)), m_assembler(new FeedAssembler(SnapshotIntervalMs))
{
    m_retry.setSingleShot(true);
    connect(&m_retry, &QTimer::timeout, this, [this] { m_userId.isEmpty() ? askWhoAmI() : openStream(); });
    // Redirects are not followed: the key goes to the address it was given for and nowhere else.
    m_network.setRedirectPolicy(QNetworkRequest::ManualRedirectPolicy);
    m_assembly.setObjectName(QStringLiteral("remote feed"));
    m_assembler->moveToThread(&m_assembly);
    connect(&m_assembly, &QThread::finished, m_assembler, &QObject::deleteLater);
    connect(m_assembler, &FeedAssembler::assembled, this, &RemoteFeed::assembled);
    m_assembly.start();
}

RemoteFeed::~RemoteFeed()
{
    const QSignalBlocker quiet(this); // whoever listens may be half destroyed already
    stop();
    m_assembly.quit();
    m_assembly.wait(); // the assembler is deleted as the thread ends
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
    m_openWhenFlushed = false; // a stream waiting for the last one's flush is not opened after all
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
    return m_last;
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

QString RemoteFeed::describe(QNetworkReply *reply) const
{
    const int status = statusOf(reply);
    QString text;
    if (status == 0) {
        text = reply->errorString();
    } else {
        const QJsonObject problem = QJsonDocument::fromJson(reply->readAll()).object();
        const QString error = problem.value(u"error").toString();
        text = error.isEmpty() ? QStringLiteral("HTTP %1").arg(status) : QStringLiteral("%1 %2").arg(status).arg(error);
    }
    // Shown on screen: never the key, whatever a server or Qt put in the text.
    if (!m_endpoint.apiKey.isEmpty())
        text.replace(QString::fromUtf8(m_endpoint.apiKey), QStringLiteral("…"));
    return text;
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
    if (m_flushPending) {
        m_openWhenFlushed = true; // the last stream's final event id is on its way
        return;
    }
    if (!m_lastEventId.isEmpty())
        request.setRawHeader("Last-Event-ID", m_lastEventId);
    request.setTransferTimeout(3 * HeartbeatSeconds * 1000); // three heartbeats missed: the link is gone
    QMetaObject::invokeMethod(m_assembler, &FeedAssembler::restart);
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
    QMetaObject::invokeMethod(m_assembler, [assembler = m_assembler, bytes] { assembler->feed(bytes); });
}

void RemoteFeed::assembled(const BrokerSnapshot &snapshot, const QByteArray &lastEventId, qint64 eventsMissed, bool flushed)
{
    m_lastEventId = lastEventId;
    m_eventsMissed = eventsMissed;
    m_last = snapshot;
    m_last.recentEvents.clear();
    Q_EMIT snapshotUpdated(snapshot);
    if (flushed && std::exchange(m_flushPending, false) && std::exchange(m_openWhenFlushed, false) && !m_reply
        && (m_state == State::Reconnecting || m_state == State::Connecting))
        openStream();
}

void RemoteFeed::streamEnded(QNetworkReply *reply)
{
    const int status = statusOf(reply);
    if (status == 200) {
        if (const QByteArray rest = reply->readAll(); !rest.isEmpty())
            streamed(rest);
        // What the stream brought is shown now, and its last id comes back before the next stream.
        m_flushPending = true;
        QMetaObject::invokeMethod(m_assembler, &FeedAssembler::flush);
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

void RemoteFeed::setState(State state)
{
    if (m_state == state)
        return;
    m_state = state;
    Q_EMIT stateChanged(state);
}

} // namespace Broker
