// SPDX-License-Identifier: GPL-3.0-or-later
#include "redisstore.h"

#include "errors/logging.h"

#include <QRandomGenerator>

#include <algorithm>

namespace Broker {

using Redis::CommandResult;
using Redis::RedisReply;

namespace {

std::unique_ptr<Redis::RedisClient> makeClient(const RedisStoreOptions &options)
{
    // Every connection of the store's (not the wake-ups' subscription) loads the script library
    // where it connects: on a cluster every primary, again after each reconnect.
    Redis::ConnectionOptions connection = options.connection;
    if (const std::shared_ptr<const Redis::FunctionLibrary> library = RedisScripts::library())
        connection.firstCommand = {QByteArrayLiteral("FUNCTION"), QByteArrayLiteral("LOAD"), library->source};
    if (options.cluster)
        return std::make_unique<Redis::ClusterRouter>(connection, options.pool, *options.cluster);
    return std::make_unique<Redis::ConnectionPool>(connection, options.pool);
}

// Where the wake-up subscription may go: the one server, or any node of the cluster that is not
// known to have failed (the seeds until the slot map is read).
Redis::Subscriber::Candidates subscriptionNodes(const RedisStoreOptions &options, const Redis::ClusterRouter *cluster)
{
    if (!cluster) {
        const QList<Redis::NodeAddress> server{{options.connection.host, options.connection.port}};
        return [server] { return server; };
    }
    const QList<Redis::NodeAddress> seeds = options.cluster->seeds;
    return [cluster, seeds] {
        QList<Redis::NodeAddress> nodes;
        for (const Redis::ClusterNodeStatus &status : cluster->nodes()) {
            if (status.node.health != QLatin1StringView("failed") && status.node.address.port != 0)
                nodes.append(status.node.address);
        }
        return nodes.isEmpty() ? seeds : nodes;
    };
}

} // namespace

RedisStore::RedisStore(RedisStoreOptions options, const QueueTypeCatalog &types, const Clock &clock)
    : m_options(std::move(options)), m_clock(clock), m_client(makeClient(m_options)),
      m_cluster(dynamic_cast<Redis::ClusterRouter *>(m_client.get())),
      m_runner(*m_client, m_options.breaker, m_options.readRetry, clock),
      m_ids(clock, QRandomGenerator::global()->generate64()), m_events(clock),
      m_wakeups(
          [this](const QString &queue, qint64 forMs, std::function<void(bool)> done) {
              m_operations.awaitMessages(queue, forMs,
                                         [done = std::move(done)](Result<void> set) { done(bool(set)); });
          },
          m_options.connection, subscriptionNodes(m_options, m_cluster), m_options.keyPrefix, clock, m_events),
      m_operations(m_runner, types, clock, m_ids, m_known, m_events, m_options.keyPrefix.toUtf8(),
                   m_options.maintenanceBatch, m_cluster != nullptr)
{
    m_runner.setReplicaWait(m_options.replicaWait);
    m_runner.setBreakerObserver(
        [this](CircuitBreaker::State now, const QString &failure) { logBreakerChange(now, failure); });
}

RedisStore::~RedisStore()
{
    // The spool's last completions run while every part they use is still here, and tell no one.
    m_events.setListener(nullptr);
    m_known.setSpool(nullptr);
    m_spooling.reset();
}

void RedisStore::flush()
{
    if (m_spooling)
        m_spooling->flush();
}

void RedisStore::start()
{
    m_client->start();
    m_wakeups.start();
    // A node number of our own, so that ids of brokers sharing this Redis never collide.
    const QByteArray nodes = m_options.keyPrefix.toUtf8() + "nodes";
    m_client->command(
        {QByteArrayLiteral("INCR"), nodes},
        [this](CommandResult result) {
            if (result && result->type == RedisReply::Type::Integer)
                m_ids.setNode(quint64(result->integer));
        },
        nodes);
}

void RedisStore::setSpool(std::unique_ptr<PublishSpool> spool)
{
    m_known.setSpool(nullptr);
    m_spooling.reset();
    if (!spool)
        return;
    m_known.setSpool(spool.get());
    m_spooling = std::make_unique<SpoolingPublisher>(std::move(spool), m_operations, m_known, m_events, m_clock,
                                                     m_options.spoolDrainIntervalMs, m_options.spoolBlockedReminderMs);
}

HealthStatus RedisStore::health() const
{
    const CircuitBreaker &breaker = m_runner.breaker();
    const bool reachable = breaker.state() == CircuitBreaker::State::Closed && m_client->readyCount() > 0;
    // On a cluster, a primary out of reach leaves some queues without an answer.
    if (reachable && !spoolHasWork())
        return m_cluster && !m_cluster->allSlotsServed() ? HealthStatus::Degraded : HealthStatus::Healthy;
    // Publishes still land somewhere safe while the spool takes them.
    if (m_spooling || breaker.state() == CircuitBreaker::State::Closed)
        return HealthStatus::Degraded;
    return HealthStatus::Unhealthy;
}

StoreStatus RedisStore::status() const
{
    const CircuitBreaker &breaker = m_runner.breaker();
    StoreStatus status;
    status.breaker = CircuitBreaker::stateName(breaker.state());
    status.breakerOpened = breaker.timesOpened();
    status.breakerRetryAtMs = breaker.retryAtMs();
    status.connectionsReady = m_client->readyCount();
    status.connections = m_client->size();
    status.reconnects = m_client->reconnects();
    if (m_spooling) {
        const PublishSpool &spool = m_spooling->spool();
        status.spooledMessages = spool.messageCount();
        status.spooledBytes = spool.byteCount();
        status.spoolMaxMessages = std::max<qint64>(0, spool.limits().maxMessages);
        status.spoolMaxBytes = std::max<qint64>(0, spool.limits().maxBytes);
        status.queuesRecreated = m_spooling->queuesRecreated();
        status.spoolDiscarded = m_spooling->discarded();
        status.spoolBlocked = m_spooling->blocked();
    }
    status.scriptReloads = m_runner.reloads();
    switch (m_runner.functions()) {
    case Redis::ScriptRunner::Functions::InUse: status.scriptCalls = QStringLiteral("functions"); break;
    case Redis::ScriptRunner::Functions::Unavailable: status.scriptCalls = QStringLiteral("eval"); break;
    case Redis::ScriptRunner::Functions::Untried: break;
    }
    status.lastError = m_client->lastError();
    if (m_cluster) {
        status.cluster = true;
        status.allSlotsServed = m_cluster->allSlotsServed();
        for (const Redis::ClusterNodeStatus &node : m_cluster->nodes()) {
            status.nodes.append(StoreNodeStatus{node.node.address.text(), node.node.primary, node.node.health,
                                                node.node.slotCount, node.connections, node.connectionsReady,
                                                node.movedRedirects, node.askRedirects});
        }
    }
    const Redis::Subscriber &subscriber = m_wakeups.subscriber();
    if (subscriber.isSubscribed())
        status.wakeupNode = subscriber.node().text();
    else
        status.wakeupError = subscriber.lastError();
    status.wakeupsReceived = m_wakeups.wakeupsReceived();
    return status;
}

void RedisStore::logBreakerChange(CircuitBreaker::State now, const QString &failure) const
{
    if (now == CircuitBreaker::State::Open)
        qCWarning(lcStorage).noquote() << QStringLiteral("Redis is out of reach (%1): circuit breaker open, next probe in %2 s%3")
                                              .arg(failure)
                                              .arg(double(m_runner.breaker().pauseMs()) / 1000.0)
                                              .arg(m_spooling ? QStringLiteral(", publishes go to the spool") : QString());
    else if (now == CircuitBreaker::State::Closed)
        qCInfo(lcStorage).noquote() << QStringLiteral("Redis answers again: circuit breaker closed%1")
                                           .arg(spoolHasWork() ? QStringLiteral(", draining %1 spooled messages")
                                                                     .arg(m_spooling->spool().messageCount())
                                                               : QString());
}

// The QueueStore operations are the scripts' (RedisOperations); publishes go through the spool
// when there is one.

void RedisStore::createQueue(const QString &name, const QueueConfig &config, Completion<QueueInfo> done)
{
    m_operations.createQueue(name, config, std::move(done));
}

void RedisStore::updateQueue(const QString &name, const QueueConfigChange &change, Completion<QueueInfo> done)
{
    m_operations.updateQueue(name, change, std::move(done));
}

void RedisStore::deleteQueue(const QString &name, Completion<qint64> done)
{
    m_operations.deleteQueue(name, std::move(done));
}

void RedisStore::purgeQueue(const QString &name, Completion<qint64> done)
{
    m_operations.purgeQueue(name, std::move(done));
}

void RedisStore::listQueues(Completion<QList<QueueInfo>> done)
{
    m_operations.listQueues(std::move(done));
}

void RedisStore::queueInfo(const QString &name, Completion<QueueInfo> done)
{
    m_operations.queueInfo(name, std::move(done));
}

void RedisStore::publish(const QString &name, const QList<NewMessage> &messages, const QString &publisher,
                         Completion<PublishResult> done)
{
    if (m_spooling)
        return m_spooling->publish(name, messages, publisher, std::move(done));
    m_operations.publish(name, messages, publisher, std::move(done));
}

void RedisStore::consume(const QString &name, const ConsumeRequest &request, Completion<QList<Message>> done)
{
    m_operations.consume(name, request, std::move(done));
}

void RedisStore::ack(const QString &name, const MessageRef &ref, Completion<void> done)
{
    m_operations.ack(name, ref, std::move(done));
}

void RedisStore::nack(const QString &name, const MessageRef &ref, qint64 delayMs, Completion<NackResult> done)
{
    m_operations.nack(name, ref, delayMs, std::move(done));
}

void RedisStore::extend(const QString &name, const MessageRef &ref, qint64 visibilityMs, Completion<qint64> done)
{
    m_operations.extend(name, ref, visibilityMs, std::move(done));
}

void RedisStore::browse(const QString &name, const BrowseQuery &query, Completion<BrowsePage> done)
{
    m_operations.browse(name, query, std::move(done));
}

void RedisStore::messageAction(const QString &name, const MessageAction &action, Completion<MessageActionResult> done)
{
    m_operations.messageAction(name, action, std::move(done));
}

void RedisStore::redrive(const QString &name, const RedriveRequest &request, Completion<RedriveResult> done)
{
    m_operations.redrive(name, request, std::move(done));
}

void RedisStore::runMaintenance(Completion<qint64> done)
{
    m_operations.runMaintenance(std::move(done));
}

} // namespace Broker
