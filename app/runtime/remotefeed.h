// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/brokersnapshot.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QList>
#include <QMap>
#include <QNetworkAccessManager>
#include <QObject>
#include <QPointer>
#include <QSslCertificate>
#include <QThread>
#include <QStringList>
#include <QTimer>
#include <QUrl>

class QNetworkReply;

namespace Broker {

class FeedAssembler;

// Where a remote broker's API is and how to speak to it.
struct RemoteEndpoint
{
    QUrl url;                               // http(s)://host:port
    QByteArray apiKey;
    QList<QSslCertificate> caCertificates;  // https: trusted instead of the system's; empty: the system's
};

// A remote broker seen live, as the desktop sees its embedded one: who the key is (GET /me), then
// its event stream (GET /events) assembled into BrokerSnapshots, at most every
// SnapshotIntervalMs, with the message events that came since the last one. A stream that ends or
// goes silent (no heartbeat for three intervals) is opened again after a growing pause, resuming
// with Last-Event-ID so that no event the broker still holds is missed; meanwhile the last
// snapshot stays, and its age shows how stale it is. A refused key stops it (AuthFailed) until
// start() is called again. Lives in the GUI thread; nothing here blocks: replies come through
// the event loop, at most one request is out at a time, and the stream is read into snapshots in
// a thread of the feed's own (FeedAssembler): the GUI thread only hands bytes over.
class RemoteFeed : public QObject
{
    Q_OBJECT
public:
    enum class State { Idle, Connecting, Connected, Reconnecting, AuthFailed };
    Q_ENUM(State)
    static constexpr int SnapshotIntervalMs = 250;
    static constexpr int HeartbeatSeconds = 10;
    static constexpr int FirstRetryMs = 500;
    static constexpr int LongestRetryMs = 15'000;

    explicit RemoteFeed(RemoteEndpoint endpoint, QObject *parent = nullptr);
    ~RemoteFeed() override;

    void start();
    void stop();

    State state() const { return m_state; }
    // The state in words, safe to show, as of `nowMs`: "connected as ops", "silent for 25 s",
    // "reconnecting in 4 s: connection refused", "key refused: …".
    QString stateText(qint64 nowMs) const;
    // Why the feed is not connected (the last failure), safe to show; empty while connected.
    const QString &problem() const { return m_problem; }
    // While reconnecting: when the next attempt goes out (ms since the epoch).
    qint64 retryAtMs() const { return m_retryAtMs; }
    // When the broker last sent anything, heartbeats included (ms since the epoch; 0: never).
    qint64 lastHeardMs() const { return m_lastHeardMs; }
    const RemoteEndpoint &endpoint() const { return m_endpoint; }

    // The key's user and the permission patterns its roles grant (empty until GET /me answered).
    const QString &userId() const { return m_userId; }
    const QStringList &permissions() const { return m_permissions; }
    // Whether the key holds `permission` ("publish:orders"), as the broker would judge it.
    bool allows(const QString &permission) const;

    // The broker as last assembled (queues sorted by name; recentEvents empty).
    BrokerSnapshot snapshot() const;
    // Its broker-wide fields (health, storage, totals, rates), and its number of queues: what an
    // overview needs, without copying anything.
    const BrokerSnapshot &brokerCounters() const { return m_last; }
    int queueCount() const { return int(m_last.queues.size()); }
    // The id of the last event in the last snapshot: where a new stream resumes.
    QByteArray lastEventId() const { return m_lastEventId; }
    // Events the broker said this feed missed (gap events), since it was made.
    qint64 eventsMissed() const { return m_eventsMissed; }

Q_SIGNALS:
    void stateChanged(Broker::RemoteFeed::State state);
    void snapshotUpdated(const Broker::BrokerSnapshot &snapshot);
    void permissionsChanged();

private:
    QNetworkRequest request(const QString &path) const;
    void askWhoAmI();
    void openStream();
    void streamed(const QByteArray &bytes);
    void streamEnded(QNetworkReply *reply);
    void assembled(const BrokerSnapshot &snapshot, const QByteArray &lastEventId, qint64 eventsMissed,
                   bool flushed);
    void retryLater(const QString &problem);
    void setState(State state);
    QString describe(QNetworkReply *reply) const;

    RemoteEndpoint m_endpoint;
    QNetworkAccessManager m_network;
    QPointer<QNetworkReply> m_reply; // the one request out: GET /me or the stream
    QThread m_assembly;
    FeedAssembler *m_assembler;      // lives in m_assembly; every call to it is queued
    bool m_flushPending = false;     // a stream ended: its last snapshot (and event id) is on its way
    bool m_openWhenFlushed = false;  // and the next stream waits for it, to resume from that id
    State m_state = State::Idle;
    QString m_problem;
    QString m_userId;
    QStringList m_permissions;
    int m_failures = 0;            // attempts in a row that ended without the stream answering
    qint64 m_retryAtMs = 0;
    qint64 m_lastHeardMs = 0;
    qint64 m_eventsMissed = 0;
    QTimer m_retry;
    BrokerSnapshot m_last;         // as last assembled, message events left out
    QByteArray m_lastEventId;
};

} // namespace Broker
