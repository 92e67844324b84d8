// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "knownqueues.h"
#include "nodeidgenerator.h"
#include "core/queuestore.h"
#include "readyset.h"
#include "rediseventrelay.h"
#include "rediswakeups.h"
#include "redisoperations.h"
#include "resilientscriptrunner.h"
#include "spoolingpublisher.h"

#include "core/clock.h"
#include "redis/clusterrouter.h"
#include "redis/connectionpool.h"
#include "resilience/circuitbreaker.h"
#include "resilience/publishspool.h"
#include "resilience/retrypolicy.h"

#include <memory>

namespace Broker {

struct RedisStoreOptions
{
    Redis::ConnectionOptions connection;
    Redis::PoolOptions pool; // on a cluster: per primary
    // Set: a Redis/Valkey Cluster, its slot map read from the seed nodes (connection gives the
    // rest: TLS, credentials, timeouts). Unset: the one server at connection.host:port.
    std::optional<Redis::ClusterOptions> cluster;
    // Changes count only once this many replicas have them (WAIT); else they are answered
    // Unavailable ("Not stored durably"). 0: not waited for.
    Redis::ReplicaWait replicaWait;
    QString keyPrefix = QString(Redis::DefaultKeyPrefix); // every key starts with it
    CircuitBreaker::Options breaker; // 5 failures in a row -> open; probes after 1 s, 2 s, ... up to 30 s
    // Reads (queue info, list, browse) that fail for want of an answer are tried again this way.
    // Changes are not: their outcome is unknown after a timeout, and a retry could apply them twice.
    RetryPolicy readRetry{100, 2.0, 30'000, 3};
    int maintenanceBatch = 1000; // messages the reaper handles per queue, step and kind
    int spoolDrainIntervalMs = 500; // how often a non-empty spool tries to reach Redis
    int spoolBlockedReminderMs = 60'000; // how often a blocked spool is recorded again (/errors)
};

// Queues in Redis (or Valkey), shared by every broker that uses the same server and prefix.
// List and priority queues are Redis lists (LPUSH / RPOP) with the reliable-queue pattern for
// leases; stream queues are Redis streams with consumer groups. Every change of more than one
// key is one Lua script (resources/redis), run by EVALSHA, so that concurrent brokers never see
// half of it; time comes from this broker's clock, so brokers sharing a server want NTP.
//
// Completions run in the owner's thread when the reply arrives. Failures to reach Redis (I/O,
// timeouts, lost connections) count toward a circuit breaker; while it is open, calls fail at
// once with Unavailable. Reply errors (a full queue, an unknown message) are answers and never
// trip it. With a publish spool, publishes to queues this broker knows are taken while Redis is
// out of reach (health Degraded) and delivered in order once it answers again (docs/redis.md,
// "When Redis fails").
//
// Made of parts with one job each, composed here: the connection pool; a ResilientScriptRunner
// (EVALSHA, breaker, retries); RedisOperations (each operation as its script and reply);
// SpoolingPublisher (the spool fallback and its drain); NodeIdGenerator (ids and receipts);
// KnownQueues (what this broker last saw of each queue); RedisEventRelay (the listener);
// RedisWakeups (long polls woken by other brokers' publishes). The
// store owns them all; the type catalog and the clock are not owned and must outlive it.
class RedisStore final : public QueueStore
{
public:
    RedisStore(RedisStoreOptions options, const QueueTypeCatalog &types, const Clock &clock);
    ~RedisStore() override;
    void flush() override;

    // Opens the connection pool. Calls made before it is ready wait up to the pool's wait timeout.
    void start();
    // Takes publishes while Redis is out of reach (see above). Batches left from an earlier run
    // are delivered first. Meant to be called once, before start().
    void setSpool(std::unique_ptr<PublishSpool> spool);
    const PublishSpool *spool() const { return m_spooling ? &m_spooling->spool() : nullptr; }
    const RedisStoreOptions &options() const { return m_options; }
    const CircuitBreaker &breaker() const { return m_runner.breaker(); }
    const Redis::RedisClient &client() const { return *m_client; }
    // The cluster router, or nullptr on one server.
    const Redis::ClusterRouter *cluster() const { return m_cluster; }
    const RedisWakeups &wakeups() const { return m_wakeups; }
    qint64 scriptReloads() const { return m_runner.reloads(); }

    QString backendName() const override { return QStringLiteral("redis"); }
    HealthStatus health() const override;
    StoreStatus status() const override;
    void setListener(StoreListener *listener) override { m_events.setListener(listener); }

    void createQueue(const QString &name, const QueueConfig &config, Completion<QueueInfo> done) override;
    void updateQueue(const QString &name, const QueueConfigChange &change, Completion<QueueInfo> done) override;
    void deleteQueue(const QString &name, Completion<qint64> done) override;
    void purgeQueue(const QString &name, Completion<qint64> done) override;
    void listQueues(Completion<QList<QueueInfo>> done) override;
    void queueInfo(const QString &name, Completion<QueueInfo> done) override;
    void publish(const QString &name, const QList<NewMessage> &messages, const QString &publisher,
                 Completion<PublishResult> done) override;
    void consume(const QString &name, const ConsumeRequest &request, Completion<QList<Message>> done) override;
    void awaitMessages(const QString &name, qint64 untilMs) override { m_wakeups.awaitMessages(name, untilMs); }
    void ack(const QString &name, const MessageRef &ref, Completion<void> done) override;
    void nack(const QString &name, const MessageRef &ref, qint64 delayMs, Completion<NackResult> done) override;
    void extend(const QString &name, const MessageRef &ref, qint64 visibilityMs, Completion<qint64> done) override;
    void browse(const QString &name, const BrowseQuery &query, Completion<BrowsePage> done) override;
    void messageAction(const QString &name, const MessageAction &action, Completion<MessageActionResult> done) override;
    void redrive(const QString &name, const RedriveRequest &request, Completion<RedriveResult> done) override;
    void runMaintenance(Completion<qint64> done) override;

private:
    void logBreakerChange(CircuitBreaker::State now, const QString &failure) const;
    bool spoolHasWork() const { return m_spooling && m_spooling->spool().hasWork(); }

    // In the order they depend on each other: each part is built after, and gone before, what it uses.
    const RedisStoreOptions m_options;
    const Clock &m_clock;
    std::unique_ptr<Redis::RedisClient> m_client;
    Redis::ClusterRouter *m_cluster = nullptr; // m_client, when it is a cluster's
    ResilientScriptRunner m_runner;
    NodeIdGenerator m_ids;
    KnownQueues m_known;
    RedisEventRelay m_events;
    RedisWakeups m_wakeups;
    RedisOperations m_operations;
    std::unique_ptr<SpoolingPublisher> m_spooling; // null without a spool
};

} // namespace Broker
