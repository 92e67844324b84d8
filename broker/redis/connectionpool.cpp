// SPDX-License-Identifier: GPL-3.0-or-later
#include "connectionpool.h"

#include <QRandomGenerator>

#include <algorithm>

namespace Broker::Redis {

ConnectionPool::ConnectionPool(ConnectionOptions connection, PoolOptions options, QObject *parent)
    : QObject(parent), m_connection(std::move(connection)), m_options(options), m_waitTimer(this),
      m_random(QRandomGenerator::global()->generate64())
{
    m_options.size = std::clamp(m_options.size, 1, 256);
    m_waitTimer.setSingleShot(true);
    connect(&m_waitTimer, &QTimer::timeout, this, &ConnectionPool::expireWaiting);
    for (int i = 0; i < m_options.size; ++i) {
        auto slot = std::make_unique<Slot>();
        slot->connection = std::make_unique<RedisConnection>(m_connection);
        slot->reconnectTimer = std::make_unique<QTimer>();
        slot->reconnectTimer->setSingleShot(true);
        Slot *raw = slot.get();
        connect(raw->connection.get(), &RedisConnection::ready, this, [this, raw] { connectionReady(*raw); });
        connect(raw->connection.get(), &RedisConnection::disconnected, this,
                [this, raw](const QString &reason) { connectionLost(*raw, reason); });
        connect(raw->reconnectTimer.get(), &QTimer::timeout, this, [this, raw] {
            if (m_running) {
                ++m_reconnects;
                raw->connection->open();
            }
        });
        m_connections.push_back(raw->connection.get());
        m_slots.push_back(std::move(slot));
    }
}

ConnectionPool::~ConnectionPool()
{
    m_running = false;
    for (WaitingCommand &waiting : m_waiting)
        waiting.done = nullptr; // destruction drops callbacks, as RedisConnection does
    m_waiting.clear();
}

void ConnectionPool::start()
{
    m_running = true;
    for (const auto &slot : m_slots)
        slot->connection->open();
}

void ConnectionPool::stop()
{
    m_running = false;
    for (const auto &slot : m_slots) {
        slot->reconnectTimer->stop();
        slot->connection->close();
    }
    std::deque<WaitingCommand> waiting;
    waiting.swap(m_waiting);
    for (WaitingCommand &command : waiting)
        command.done(Error{ErrorCode::Unavailable, QStringLiteral("Redis connection pool stopped"), NotSent});
}

int ConnectionPool::readyCount() const
{
    return int(std::count_if(m_connections.begin(), m_connections.end(),
                             [](const RedisConnection *c) { return c->state() == RedisConnection::State::Ready; }));
}

int ConnectionPool::commandsInFlight() const
{
    int count = int(m_waiting.size());
    for (const RedisConnection *connection : m_connections)
        count += connection->waitingCommands();
    return count;
}

RedisConnection *ConnectionPool::pick(quint32 routingKey) const
{
    const std::size_t count = m_connections.size();
    for (std::size_t i = 0; i < count; ++i) {
        RedisConnection *connection = m_connections[(routingKey + i) % count];
        if (connection->state() == RedisConnection::State::Ready)
            return connection;
    }
    return nullptr;
}

void ConnectionPool::command(const QByteArrayList &args, CommandCallback done, QByteArrayView key, int timeoutMs)
{
    const quint32 routingKey = key.isEmpty() ? quint32(m_random()) : quint32(qHash(key));
    if (RedisConnection *connection = pick(routingKey); connection && m_waiting.empty()) {
        connection->command(args, std::move(done), timeoutMs);
        return;
    }
    if (!m_running || m_options.waitTimeoutMs <= 0 || int(m_waiting.size()) >= m_options.maxWaitingCommands) {
        done(notConnected(QString()));
        return;
    }
    m_waiting.push_back(WaitingCommand{args, std::move(done), routingKey, timeoutMs, steadyMs() + m_options.waitTimeoutMs});
    if (!m_waitTimer.isActive())
        m_waitTimer.start(m_options.waitTimeoutMs);
}

Error ConnectionPool::notConnected(const QString &how) const
{
    const QString why = m_lastError.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(m_lastError);
    return Error{ErrorCode::Unavailable, QStringLiteral("Redis is not connected%1%2").arg(how, why), NotSent};
}

void ConnectionPool::connectionReady(Slot &slot)
{
    slot.failedAttempts = 0;
    Q_EMIT readyCountChanged(readyCount());
    flushWaiting();
}

void ConnectionPool::connectionLost(Slot &slot, const QString &reason)
{
    m_lastError = reason;
    Q_EMIT readyCountChanged(readyCount());
    if (!m_running)
        return;
    ++slot.failedAttempts;
    slot.reconnectTimer->start(int(m_options.reconnect.delayMs(slot.failedAttempts, m_random)));
}

void ConnectionPool::flushWaiting()
{
    // In arrival order; stops if the connections go away again meanwhile.
    while (!m_waiting.empty()) {
        RedisConnection *connection = pick(m_waiting.front().routingKey);
        if (!connection)
            return;
        WaitingCommand command = std::move(m_waiting.front());
        m_waiting.pop_front();
        connection->command(command.args, std::move(command.done), command.timeoutMs);
    }
    m_waitTimer.stop();
}

void ConnectionPool::expireWaiting()
{
    const qint64 now = steadyMs();
    while (!m_waiting.empty() && m_waiting.front().deadlineMs <= now) {
        WaitingCommand command = std::move(m_waiting.front());
        m_waiting.pop_front();
        command.done(notConnected(QStringLiteral(": no connection within %1 ms").arg(m_options.waitTimeoutMs)));
    }
    if (!m_waiting.empty())
        m_waitTimer.start(int(std::max<qint64>(1, m_waiting.front().deadlineMs - now)));
}

} // namespace Broker::Redis
