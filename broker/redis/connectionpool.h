// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "redisclient.h"

#include "resilience/retrypolicy.h"

#include <QObject>
#include <QTimer>

#include <deque>
#include <memory>
#include <random>
#include <vector>

namespace Broker::Redis {

struct PoolOptions : PoolLimits
{
    // Pause before reconnecting a connection that was lost or could not be opened; the attempt
    // count resets once it is ready again. maxAttempts is ignored: a pool never gives up.
    RetryPolicy reconnect{100, 2.0, 1'000, 0};
};

// A fixed set of pipelined connections to one server. A command goes to a ready connection
// chosen by a hash of its key (commands with the same key share a connection while it stays up,
// so one queue's commands run in the order they were sent); while none is ready it waits up to
// the wait timeout. Lost connections are reopened in the background with backoff and jitter.
class ConnectionPool final : public QObject, public RedisClient
{
    Q_OBJECT

public:
    ConnectionPool(ConnectionOptions connection, PoolOptions options, QObject *parent = nullptr);
    ~ConnectionPool() override;

    void start() override;
    void stop() override;
    void command(const QByteArrayList &args, CommandCallback done, QByteArrayView key = {},
                 int timeoutMs = 0) override;

    int size() const override { return int(m_connections.size()); }
    int readyCount() const override;
    int waitingCommands() const { return int(m_waiting.size()); }
    int commandsInFlight() const override;
    qint64 reconnects() const override { return m_reconnects; }
    QString lastError() const override { return m_lastError; }
    int commandTimeoutMs() const override { return m_connection.commandTimeoutMs; }
    const ConnectionOptions &connectionOptions() const { return m_connection; }

Q_SIGNALS:
    void readyCountChanged(int ready);

private:
    struct Slot
    {
        std::unique_ptr<RedisConnection> connection;
        std::unique_ptr<QTimer> reconnectTimer;
        int failedAttempts = 0;
    };
    struct WaitingCommand
    {
        QByteArrayList args;
        CommandCallback done;
        quint32 routingKey = 0;
        int timeoutMs = 0;
        qint64 deadlineMs = 0; // steady clock
    };

    RedisConnection *pick(quint32 routingKey) const;
    // The failure of a command that found no connection; `how` is added after "not connected".
    Error notConnected(const QString &how) const;
    void connectionReady(Slot &slot);
    void connectionLost(Slot &slot, const QString &reason);
    void flushWaiting();
    void expireWaiting();

    ConnectionOptions m_connection;
    PoolOptions m_options;
    std::vector<std::unique_ptr<Slot>> m_slots;
    std::vector<RedisConnection *> m_connections;
    std::deque<WaitingCommand> m_waiting;
    QTimer m_waitTimer;
    std::mt19937_64 m_random;
    bool m_running = false;
    qint64 m_reconnects = 0;
    QString m_lastError;
};

} // namespace Broker::Redis
