// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/queuestore.h"
#include "redisscripts.h"
#include "readyset.h"

#include "core/clock.h"
#include "redis/connectionpool.h"
#include "redis/scriptcache.h"
#include "resilience/circuitbreaker.h"
#include "resilience/publishspool.h"
#include "resilience/retrypolicy.h"

#include <QHash>
#include <QTimer>

#include <memory>
#include <random>

namespace Broker {

struct RedisStoreOptions
{
    Redis::ConnectionOptions connection;
    Redis::PoolOptions pool;
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
// out of reach (health Degraded), written to the spool's journal, and delivered to Redis in
// order once it answers again; until the spool is empty, newer publishes queue up behind it.
// A spooled publish is judged against max_size on what this broker knows (the queue's last
// known size plus what it spooled for it). A queue missing when its batch drains is created
// again from the configuration recorded with the batch (and reported), unless it was deleted on
// purpose; a batch that cannot be delivered stays at the head of the spool and is reported until
// an admin acts (docs/redis.md, "When Redis fails").
class RedisStore final : public QueueStore
{
public:
    RedisStore(RedisStoreOptions options, const QueueTypeCatalog &types, const Clock &clock);
    ~RedisStore() override;
    void flush() override;

    // Opens the connection pool. Calls made before it is ready wait up to the pool's wait timeout.
    void start();
    // Takes publishes while Redis is out of reach (see above). Batches left from an earlier run
    // are delivered first.
    void setSpool(std::unique_ptr<PublishSpool> spool);
    const PublishSpool *spool() const { return m_spool.get(); }
    const RedisStoreOptions &options() const { return m_options; }
    const CircuitBreaker &breaker() const { return m_breaker; }
    const Redis::ConnectionPool &pool() const { return *m_pool; }
    qint64 scriptReloads() const { return m_scripts->reloads(); }

    QString backendName() const override { return QStringLiteral("redis"); }
    HealthStatus health() const override;
    StoreStatus status() const override;
    void setListener(StoreListener *listener) override { m_listener = listener; }

    void createQueue(const QString &name, const QueueConfig &config, Completion<QueueInfo> done) override;
    void deleteQueue(const QString &name, Completion<qint64> done) override;
    void purgeQueue(const QString &name, Completion<qint64> done) override;
    void listQueues(Completion<QList<QueueInfo>> done) override;
    void queueInfo(const QString &name, Completion<QueueInfo> done) override;
    void publish(const QString &name, const QList<NewMessage> &messages, const QString &publisher,
                 Completion<PublishResult> done) override;
    void consume(const QString &name, const ConsumeRequest &request, Completion<QList<Message>> done) override;
    void ack(const QString &name, const MessageRef &ref, Completion<void> done) override;
    void nack(const QString &name, const MessageRef &ref, qint64 delayMs, Completion<NackResult> done) override;
    void extend(const QString &name, const MessageRef &ref, qint64 visibilityMs, Completion<qint64> done) override;
    void browse(const QString &name, qint64 offset, qint64 limit, Completion<BrowsePage> done) override;
    void redrive(const QString &name, qint64 limit, const QString &user, Completion<qint64> done) override;
    void runMaintenance(Completion<qint64> done) override;

private:
    enum class Retry { Never, Reads };
    using ScriptDone = std::function<void(Result<Redis::RedisReply>)>;

    QByteArray key(const QString &queue, const char *part) const;
    // Runs `script` for `queue` through the breaker; the reply's events are passed to the
    // listener before `done` gets the payload (the reply's first element).
    void run(const Redis::Script &script, const QString &queue, QByteArrayList args, Retry retry, ScriptDone done,
             const QString &user = {});
    void attempt(const Redis::Script &script, const QString &queue, const QByteArrayList &keys,
                 const QByteArrayList &args, Retry retry, int attemptNumber, ScriptDone done);
    void dispatchEvents(const Redis::RedisReply &events, const QString &user);
    void logBreakerChange(CircuitBreaker::State before, const QString &failure);
    void emitEvent(MessageEventKind kind, const QString &queue, const QString &id, int deliveries, const QString &user,
                   const QString &detail = {});
    // The queue's kind from the cache, asking Redis when it is not cached.
    void withKind(const QString &name, std::function<void(Result<QueueKind>)> then);
    // Runs `step` for every queue in the registry at once; `done` gets what the steps gave, by name.
    template<typename Step>
    void forEachQueue(Step step, Completion<QList<QueueInfo>> done);
    void settle(const QString &name, const MessageRef &ref, const char *action, qint64 ms, ScriptDone done);
    quint64 nextSequence();
    // `publishArgs` are the publish script's pairs of due time and stored message.
    void spoolPublish(const QString &name, const QByteArrayList &publishArgs, PublishResult result,
                      const QString &publisher, Completion<PublishResult> done);
    void drainSpool();
    // The drain script's answer for the front batch.
    void drained(const PublishSpool::Batch &batch, Result<Redis::RedisReply> reply);
    // The front batch cannot be delivered: it stays, and the operator hears of it.
    void blockSpool(const QString &reason);
    void report(StoreIncident::Level level, const QString &code, const QString &message);
    // What this broker knows of the queue's size: its last known size plus what it spooled for it.
    qint64 knownSize(const QString &queue) const;
    QString newReceipt();

    RedisStoreOptions m_options;
    const QByteArray m_prefix; // m_options.keyPrefix, encoded once: every call needs it
    const QueueTypeCatalog &m_types;
    const Clock &m_clock;
    StoreListener *m_listener = nullptr;
    std::unique_ptr<Redis::ConnectionPool> m_pool;
    std::unique_ptr<Redis::ScriptRunner> m_scripts;
    std::unique_ptr<RedisScripts::Set> m_script;
    std::unique_ptr<PublishSpool> m_spool;
    QTimer m_drainTimer;
    bool m_draining = false; // a batch is on its way to Redis
    CircuitBreaker m_breaker;
    QHash<QString, QueueConfig> m_configs; // what this broker last saw; scripts check the type
    // Messages held by each queue (ready + delayed + in flight) when this broker last saw it: an
    // estimate for judging max_size while publishes are spooled.
    QHash<QString, qint64> m_lastSizes;
    qint64 m_queuesRecreated = 0;
    qint64 m_spoolDiscarded = 0;
    QString m_spoolBlocked;       // why the front batch cannot be delivered; empty: it can
    qint64 m_blockedReportedMs = 0;
    std::mt19937_64 m_random;
    quint64 m_node = 0;          // distinguishes this broker's message ids from other brokers'
    qint64 m_lastIdMs = 0;
    quint64 m_idCounter = 0;
};

} // namespace Broker
