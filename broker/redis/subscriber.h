// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "redisconnection.h"
#include "slotmap.h"

#include "resilience/retrypolicy.h"

#include <QObject>
#include <QTimer>

#include <functional>
#include <memory>
#include <random>

namespace Broker::Redis {

// Follows one pub/sub channel (classic SUBSCRIBE) on a connection of its own. A cluster's bus
// carries every PUBLISH to every node, so any one node will do: the subscriber takes the first
// of `candidates()` that answers and, when its connection is lost, the next one. A PING every
// pingIntervalMs finds a node that keeps the connection but stopped answering (the connection's
// command timeout gives up on it). Reconnects back off (100 ms doubling to 5 s, with jitter).
//
// Messages published while it was not subscribed are not seen: subscribed() is signalled after
// each (re)subscription, so the owner can make up for what it may have missed.
class Subscriber final : public QObject
{
    Q_OBJECT

public:
    using Candidates = std::function<QList<NodeAddress>()>;

    // `options` gives TLS, credentials and timeouts; `candidates()` the nodes to try, in order.
    Subscriber(ConnectionOptions options, QByteArray channel, Candidates candidates, QObject *parent = nullptr);
    ~Subscriber() override;

    void start();
    void stop();
    bool isSubscribed() const { return m_subscribed; }
    NodeAddress node() const { return m_node; } // the node subscribed to, or tried now
    qint64 subscriptions() const { return m_subscriptions; } // successful (re)subscriptions
    QString lastError() const { return m_lastError; }         // safe to show

    int pingIntervalMs = 5'000;
    RetryPolicy reconnect{100, 2.0, 5'000, 0};

Q_SIGNALS:
    void message(const QByteArray &payload);
    void subscribed();

private:
    void connectNext();
    void onReady();
    void onLost(const QString &reason);
    void ping();

    const ConnectionOptions m_options;
    const QByteArray m_channel;
    const Candidates m_candidates;
    std::unique_ptr<RedisConnection> m_connection;
    NodeAddress m_node;
    int m_nextCandidate = 0;
    int m_failuresInRow = 0;
    bool m_running = false;
    bool m_subscribed = false;
    qint64 m_subscriptions = 0;
    QString m_lastError;
    QTimer m_retryTimer;
    QTimer m_pingTimer;
    std::mt19937_64 m_random{std::random_device{}()};
};

} // namespace Broker::Redis
