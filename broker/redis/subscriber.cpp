// SPDX-License-Identifier: GPL-3.0-or-later
#include "subscriber.h"

namespace Broker::Redis {

Subscriber::Subscriber(ConnectionOptions options, QByteArray channel, Candidates candidates, QObject *parent)
    : QObject(parent), m_options(std::move(options)), m_channel(std::move(channel)), m_candidates(std::move(candidates))
{
    m_retryTimer.setSingleShot(true);
    connect(&m_retryTimer, &QTimer::timeout, this, &Subscriber::connectNext);
    connect(&m_pingTimer, &QTimer::timeout, this, &Subscriber::ping);
}

Subscriber::~Subscriber() = default;

void Subscriber::start()
{
    if (m_running)
        return;
    m_running = true;
    m_failuresInRow = 0;
    connectNext();
}

void Subscriber::stop()
{
    m_running = false;
    m_subscribed = false;
    m_retryTimer.stop();
    m_pingTimer.stop();
    m_connection.reset(); // drops its callbacks without calling them
}

void Subscriber::connectNext()
{
    if (!m_running)
        return;
    const QList<NodeAddress> candidates = m_candidates();
    if (candidates.isEmpty()) {
        onLost(QStringLiteral("no node to subscribe to"));
        return;
    }
    m_node = candidates[m_nextCandidate++ % candidates.size()];
    ConnectionOptions options = m_options;
    options.host = m_node.host;
    options.port = m_node.port;
    m_connection = std::make_unique<RedisConnection>(options);
    m_connection->setMessageHandler([this](const RedisReply &reply) {
        if (reply.elements[1].string == m_channel)
            Q_EMIT message(reply.elements[2].string);
    });
    connect(m_connection.get(), &RedisConnection::ready, this, &Subscriber::onReady);
    connect(m_connection.get(), &RedisConnection::disconnected, this, &Subscriber::onLost);
    m_connection->open();
}

void Subscriber::onReady()
{
    RedisConnection *connection = m_connection.get();
    m_connection->command({QByteArrayLiteral("SUBSCRIBE"), m_channel}, [this, connection](CommandResult result) {
        // ["subscribe", channel, count]; an error reply (an ACL that forbids the channel) is final
        // for this node: the next one may allow it.
        if (!result || result->type != RedisReply::Type::Array || result->elements.size() != 3
            || !result->elements[0].isText("subscribe")) {
            const QString reason = !result ? result.error().message
                                           : QStringLiteral("SUBSCRIBE refused: %1").arg(QString::fromUtf8(result->string));
            // Later in the event loop: the connection is inside its own callback now.
            QMetaObject::invokeMethod(this, [this, connection, reason] {
                if (m_connection.get() == connection)
                    onLost(reason);
            }, Qt::QueuedConnection);
            return;
        }
        m_subscribed = true;
        m_failuresInRow = 0;
        ++m_subscriptions;
        m_pingTimer.start(pingIntervalMs);
        Q_EMIT subscribed();
    });
}

void Subscriber::onLost(const QString &reason)
{
    m_lastError = reason;
    m_subscribed = false;
    m_pingTimer.stop();
    if (m_connection) {
        m_connection->disconnect(this);
        m_connection->setMessageHandler({});
        m_connection->close();
        // Not destroyed inside its own signal or callback.
        m_connection.release()->deleteLater();
    }
    if (!m_running)
        return;
    ++m_failuresInRow;
    m_retryTimer.start(int(reconnect.delayMs(m_failuresInRow, m_random)));
}

void Subscriber::ping()
{
    // In subscribed mode PING answers ["pong", ""]; no answer within the command timeout drops
    // the connection, and onLost moves on.
    if (m_connection && m_connection->state() == RedisConnection::State::Ready)
        m_connection->command({QByteArrayLiteral("PING")}, [](CommandResult) {});
}

} // namespace Broker::Redis
