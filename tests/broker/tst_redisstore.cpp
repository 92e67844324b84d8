// SPDX-License-Identifier: GPL-3.0-or-later
// The Redis store where it differs from the memory store: what Redis shows to other tools,
// several brokers on one Redis, and surviving Redis going away (breaker, spool, SCRIPT FLUSH):
// a queue missing when the spool drains (Redis lost its data, or an admin deleted it), max_size
// and the spool's own bound while publishes are spooled, probes soon after Redis is back.
#include "journal/journalwriter.h"
#include "storage/memorystore.h"
#include "storage/redismessage.h"
#include "storage/redisstore.h"

#include "engine/queuetyperegistry.h"

#include "../support/awaitresult.h"
#include "../support/redisserver.h"
#include "../support/redistls.h"

#include <QDataStream>
#include <QDateTime>
#include <QElapsedTimer>
#include <QFile>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <optional>

using namespace Broker;
using namespace Broker::Testing;

namespace {


template<typename T, typename Call>
Result<T> get(Call call)
{
    return awaitResult<T>(call);
}

RedisStoreOptions optionsFor(quint16 port)
{
    RedisStoreOptions options;
    options.connection.port = port;
    options.connection.connectTimeoutMs = 500;
    options.connection.commandTimeoutMs = 500;
    options.pool.size = 2;
    options.pool.waitTimeoutMs = 200;
    options.pool.reconnect = RetryPolicy{20, 2.0, 200, 0};
    options.breaker = {3, 300};
    options.spoolDrainIntervalMs = 50;
    useTestTls(options.connection);
    return options;
}

QueueConfig configOf(const QString &type, int visibilitySeconds = 30)
{
    QueueConfig config;
    config.type = type;
    config.visibilityTimeoutSeconds = visibilitySeconds;
    return config;
}

NewMessage message(int n)
{
    NewMessage m;
    m.data = QByteArray::number(n);
    return m;
}

// What the store told its listener: the incidents an operator hears of.
struct IncidentLog final : StoreListener
{
    void messageEvent(const MessageEvent &) override {}
    void messagesAvailable(const QString &) override {}
    void storeIncident(const StoreIncident &incident) override { incidents.append(incident); }
    QStringList codes() const
    {
        QStringList out;
        for (const StoreIncident &incident : incidents)
            out.append(incident.code);
        return out;
    }
    QList<StoreIncident> incidents;
};

struct Store
{
    explicit Store(quint16 port, const QString &spoolPath = {}, PublishSpool::Limits limits = PublishSpool::Limits(),
                   std::optional<RedisStoreOptions> options = std::nullopt)
        : store(options.value_or(optionsFor(port)), types, clock)
    {
        store.setListener(&log);
        if (!spoolPath.isEmpty())
            store.setSpool(std::move(PublishSpool::open(spoolPath, limits).value()));
        store.start();
        waitUntil([&] { return store.client().readyCount() == 2; });
    }
    Result<PublishResult> publish(const QString &queue, int n)
    {
        return get<PublishResult>([&](auto done) { store.publish(queue, {message(n)}, "alice", done); });
    }
    Result<QList<Message>> consume(const QString &queue, int count, bool acknowledge = true)
    {
        ConsumeRequest request;
        request.count = count;
        request.acknowledge = acknowledge;
        request.user = "bob";
        return get<QList<Message>>([&](auto done) { store.consume(queue, request, done); });
    }
    QueueTypeRegistry types;
    SystemClock clock;
    IncidentLog log;
    RedisStore store;
};

QByteArray storedMessage(int n)
{
    return RedisMessage::encode(quint64(n), QDateTime::currentMSecsSinceEpoch() * 1000, message(n), "alice");
}

// A spool file holding one batch of `count` messages for `queue`, as a broker leaves it when it
// stops while Redis is away. `withConfig` false: as a broker of an earlier version wrote it.
void writeSpool(const QString &path, const QString &queue, const QueueConfig &config, int count, bool withConfig)
{
    QList<PublishSpool::Message> messages;
    for (int i = 1; i <= count; ++i)
        messages.append({0, storedMessage(i)});
    if (withConfig) {
        auto spool = PublishSpool::open(path).value();
        std::optional<Result<void>> written;
        spool->append(queue, config, messages, [&](Result<void> r) { written = std::move(r); });
        QVERIFY(waitUntil([&] { return written.has_value(); }));
        QVERIFY(written->ok());
        return;
    }
    auto writer = JournalWriter::open(path, JournalWriter::Fsync::Always, 0).value();
    QByteArray identity, batch;
    QDataStream(&identity, QIODevice::WriteOnly) << quint8(1) << QByteArray("earlier-version") << quint64(1);
    QDataStream out(&batch, QIODevice::WriteOnly);
    out.setVersion(QDataStream::Qt_6_4);
    out << quint8(2) << quint64(1) << queue << quint32(messages.size());
    for (const PublishSpool::Message &m : messages)
        out << m.dueMs << m.stored;
    writer->append(identity, [](Result<void>) {});
    writer->append(batch, [](Result<void>) {});
    writer->flushNow();
}

QList<int> numbersOf(const QList<Message> &messages)
{
    QList<int> out;
    for (const Message &m : messages)
        out.append(m.data.toInt());
    return out;
}

} // namespace

class TestRedisStore : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void otherToolsSeeListsAndStreams();
    void keysCarryTheQueueHashTag();
    void scriptFlushIsInvisibleToClients();
    void theLibraryIsLoadedOnEveryConnect();
    void scriptsRunByEvalWhereFunctionIsRenamedAway();
    void aFullRedisCanStillBeReadAndEmptied();
    void competingBrokersNeverShareALease();
    void leasesOfAStoppedBrokerAreReclaimed();
    void blackHoleOpensTheBreakerAndCallsFailFast();
    void spoolTakesPublishesWhileRedisIsDownAndDrainsInOrder();
    void spoolDrainIsIdempotent();
    void unknownQueueIsNotSpooled();
    void aQueueMissingAtDrain_data();
    void aQueueMissingAtDrain();
    void restartedEmptyUnderPublishesLosesNothingAcknowledged();
    void spooledPublishesRespectMaxSize();
    void aFullSpoolAnswersUnavailable();
    void serviceReturnsWithinAboutASecondOfRedis();
    void onlyBuiltInQueueTypesAreAvailable_data();
    void onlyBuiltInQueueTypesAreAvailable();
    void everyBuiltInTypeDeliversAsTheMemoryStoreDoes();
    void changesWaitForReplicas();

private:
    RedisServer m_redis;
};

void TestRedisStore::initTestCase()
{
    useTestTls(m_redis);
    QVERIFY2(m_redis.start({"--appendonly", "yes", "--appendfsync", "always"}), qPrintable(m_redis.errorString()));
}

void TestRedisStore::init()
{
    if (!m_redis.isRunning())
        QVERIFY2(m_redis.restart(), qPrintable(m_redis.errorString()));
    m_redis.cli({"FLUSHALL"});
}

void TestRedisStore::otherToolsSeeListsAndStreams()
{
    Store s(m_redis.port());
    QVERIFY(get<QueueInfo>([&](auto d) { s.store.createQueue("orders", configOf("list"), d); }).ok());
    QVERIFY(get<QueueInfo>([&](auto d) { s.store.createQueue("events", configOf("stream"), d); }).ok());
    QVERIFY(s.publish("orders", 1).ok());
    QVERIFY(s.publish("events", 2).ok());
    QCOMPARE(m_redis.cli({"TYPE", "brokerdesk:{orders}:ready"}), QByteArray("list"));
    QCOMPARE(m_redis.cli({"TYPE", "brokerdesk:{events}:stream"}), QByteArray("stream"));
    QCOMPARE(m_redis.cli({"TYPE", "brokerdesk:{orders}:meta"}), QByteArray("hash"));
    QCOMPARE(m_redis.cli({"SMEMBERS", "brokerdesk:queues"}).split('\n').size(), 2);
    // The stored message is JSON a person can read, body included.
    const QByteArray stored = m_redis.cli({"LINDEX", "brokerdesk:{orders}:ready", "0"});
    QVERIFY2(stored.startsWith("{\"id\":\"msg-") && stored.contains("\"d\":\"1\""), stored.constData());
}

void TestRedisStore::keysCarryTheQueueHashTag()
{
    Store s(m_redis.port());
    QVERIFY(get<QueueInfo>([&](auto d) { s.store.createQueue("jobs", configOf("list", 1), d); }).ok());
    QVERIFY(s.publish("jobs", 1).ok());
    QVERIFY(s.publish("jobs", 2).ok());
    QCOMPARE(s.consume("jobs", 1, false)->size(), 1);
    // Every key of the queue (ready, leases, deadlines, deliveries, meta) has the tag {jobs}.
    const QList<QByteArray> keys = m_redis.cli({"--scan", "--pattern", "*jobs*"}).split('\n');
    QVERIFY(keys.size() >= 5);
    for (const QByteArray &key : keys)
        QVERIFY2(key.contains("{jobs}"), key.constData());
}

void TestRedisStore::scriptFlushIsInvisibleToClients()
{
    Store s(m_redis.port());
    QVERIFY(get<QueueInfo>([&](auto d) { s.store.createQueue("q", configOf("list"), d); }).ok());
    int failures = 0;
    for (int i = 0; i < 200; ++i) {
        if (i % 50 == 25) {
            m_redis.cli({"SCRIPT", "FLUSH"});
            m_redis.cli({"FUNCTION", "FLUSH"});
        }
        failures += s.publish("q", i).ok() ? 0 : 1;
        failures += s.consume("q", 1).ok() ? 0 : 1;
    }
    QCOMPARE(failures, 0);
    QVERIFY(s.store.scriptReloads() >= 4);
    QCOMPARE(s.store.status().scriptCalls, QStringLiteral("functions")); // Redis 7 and Valkey 8 have them
}

void TestRedisStore::theLibraryIsLoadedOnEveryConnect()
{
    // Each connection loads the script library first: the first calls find it, also after the
    // server came back without it (restarted empty), once the broker has connected again.
    const auto loaded = [&] { return m_redis.cli({"FUNCTION", "LIST"}).contains("brokerdesk_"); };
    QCOMPARE(m_redis.cli({"FUNCTION", "FLUSH"}), QByteArray("OK"));
    Store s(m_redis.port());
    QVERIFY(waitUntil(loaded));
    QVERIFY(get<QueueInfo>([&](auto d) { s.store.createQueue("q", configOf("list"), d); }).ok());
    QVERIFY(s.publish("q", 1).ok());
    QCOMPARE(s.store.scriptReloads(), 0);

    QCOMPARE(m_redis.cli({"FUNCTION", "FLUSH"}), QByteArray("OK"));
    m_redis.cli({"CLIENT", "KILL", "TYPE", "normal"});
    QVERIFY(waitUntil(loaded));
    QVERIFY(waitUntil([&] { return s.store.client().readyCount() == 2; }));
    QVERIFY(s.publish("q", 2).ok());
    QCOMPARE(s.consume("q", 2)->size(), 2);
    QCOMPARE(s.store.scriptReloads(), 0);
    QCOMPARE(s.store.status().scriptCalls, QStringLiteral("functions"));
}

void TestRedisStore::scriptsRunByEvalWhereFunctionIsRenamedAway()
{
    RedisServer redis;
    useTestTls(redis);
    QVERIFY2(redis.start({"--rename-command", "FUNCTION", "\"\""}), qPrintable(redis.errorString()));
    Store s(redis.port());
    QVERIFY(get<QueueInfo>([&](auto d) { s.store.createQueue("q", configOf("list"), d); }).ok());
    for (int i = 0; i < 5; ++i)
        QVERIFY(s.publish("q", i).ok());
    QCOMPARE(s.consume("q", 5)->size(), 5);
    QCOMPARE(s.store.status().scriptCalls, QStringLiteral("eval"));
    redis.cli({"SCRIPT", "FLUSH"});
    QVERIFY(s.publish("q", 5).ok()); // NOSCRIPT answered by EVAL, as before functions
}

void TestRedisStore::aFullRedisCanStillBeReadAndEmptied()
{
    // Past maxmemory (noeviction) Redis refuses a whole FCALL unless the function says it does
    // not write or may run anyway: an admin must still see the queue and empty it.
    RedisServer redis;
    useTestTls(redis);
    QVERIFY2(redis.start(), qPrintable(redis.errorString()));
    Store s(redis.port());
    QVERIFY(get<QueueInfo>([&](auto d) { s.store.createQueue("full", configOf("list"), d); }).ok());
    for (int i = 0; i < 20; ++i)
        QVERIFY(s.publish("full", i).ok());
    QCOMPARE(get<BrowsePage>([&](auto d) { s.store.browse("full", BrowseQuery{}, d); })->total, qint64(20));
    QCOMPARE(s.store.status().scriptCalls, QStringLiteral("functions"));
    QCOMPARE(redis.cli({"CONFIG", "SET", "maxmemory", "1"}), QByteArray("OK"));

    const Result<PublishResult> refused = s.publish("full", 20);
    QVERIFY(!refused.ok());
    QVERIFY2(refused.error().message.contains("OOM"), qPrintable(refused.error().message));
    const Result<QueueInfo> info = get<QueueInfo>([&](auto d) { s.store.queueInfo("full", d); });
    QVERIFY2(info.ok(), qPrintable(info.ok() ? QString() : info.error().message));
    QCOMPARE(qint64(info->depth), qint64(20));
    const Result<BrowsePage> page = get<BrowsePage>([&](auto d) { s.store.browse("full", BrowseQuery{}, d); });
    QVERIFY2(page.ok(), qPrintable(page.ok() ? QString() : page.error().message));
    QCOMPARE(page->messages.size(), qsizetype(20));
    const Result<qint64> purged = get<qint64>([&](auto d) { s.store.purgeQueue("full", d); });
    QVERIFY2(purged.ok(), qPrintable(purged.ok() ? QString() : purged.error().message));
    QCOMPARE(*purged, qint64(20));
    // The library gone while full: FUNCTION LOAD is refused (OOM), and the read goes by EVAL,
    // that call alone; functions stay in use.
    QCOMPARE(redis.cli({"FUNCTION", "FLUSH"}), QByteArray("OK"));
    const Result<QueueInfo> again = get<QueueInfo>([&](auto d) { s.store.queueInfo("full", d); });
    QVERIFY2(again.ok(), qPrintable(again.ok() ? QString() : again.error().message));
    QCOMPARE(qint64(again->depth), qint64(0));
    QCOMPARE(s.store.status().scriptCalls, QStringLiteral("functions"));

    QCOMPARE(redis.cli({"CONFIG", "SET", "maxmemory", "0"}), QByteArray("OK"));
    QVERIFY(s.publish("full", 21).ok());
    QCOMPARE(s.store.status().scriptCalls, QStringLiteral("functions"));
}

void TestRedisStore::competingBrokersNeverShareALease()
{
    Store a(m_redis.port()), b(m_redis.port()), c(m_redis.port());
    QVERIFY(get<QueueInfo>([&](auto d) { a.store.createQueue("work", configOf("list"), d); }).ok());
    QList<NewMessage> batch;
    for (int i = 0; i < 300; ++i)
        batch.append(message(i));
    QVERIFY(get<PublishResult>([&](auto d) { b.store.publish("work", batch, "alice", d); }).ok());

    // Three brokers lease at once, with many requests in flight each.
    QSet<QString> leased;
    int duplicates = 0, outstanding = 0;
    for (int round = 0; round < 40; ++round) {
        for (Store *s : {&a, &b, &c}) {
            ConsumeRequest request;
            request.count = 3;
            request.acknowledge = false;
            ++outstanding;
            s->store.consume("work", request, [&](Result<QList<Message>> got) {
                --outstanding;
                for (const Message &m : got.value()) {
                    if (leased.contains(m.id))
                        ++duplicates;
                    leased.insert(m.id);
                }
            });
        }
    }
    QVERIFY(waitUntil([&] { return outstanding == 0; }));
    QCOMPARE(duplicates, 0);
    QCOMPARE(leased.size(), 300);
    const QueueInfo info = *get<QueueInfo>([&](auto d) { c.store.queueInfo("work", d); });
    QCOMPARE(info.inFlight, 300);
    QCOMPARE(info.depth, 0);
}

void TestRedisStore::leasesOfAStoppedBrokerAreReclaimed()
{
    auto doomed = std::make_unique<Store>(m_redis.port());
    Store survivor(m_redis.port());
    QVERIFY(get<QueueInfo>([&](auto d) { survivor.store.createQueue("w", configOf("list", 1), d); }).ok());
    QVERIFY(survivor.publish("w", 7).ok());
    QCOMPARE(doomed->consume("w", 1, false)->size(), 1);
    doomed.reset(); // gone without acking
    QVERIFY(survivor.consume("w", 1)->isEmpty());
    // The survivor's reaper returns the lease once its 1 s visibility timeout is over.
    QElapsedTimer timer;
    timer.start();
    QList<Message> again;
    while (again.isEmpty() && timer.elapsed() < 5000) {
        QVERIFY(get<qint64>([&](auto d) { survivor.store.runMaintenance(d); }).ok());
        again = *survivor.consume("w", 1);
        QTest::qWait(50);
    }
    QCOMPARE(numbersOf(again), QList<int>{7});
    QCOMPARE(again.first().deliveryCount, 2);
    QVERIFY2(timer.elapsed() < 2000, qPrintable(QString::number(timer.elapsed())));
}

void TestRedisStore::blackHoleOpensTheBreakerAndCallsFailFast()
{
    BlackHoleServer hole;
    QueueTypeRegistry types;
    SystemClock clock;
    RedisStore store(optionsFor(hole.port()), types, clock);
    store.start();
    for (int i = 0; i < 3; ++i) {
        const auto r = get<QueueInfo>([&](auto d) { store.queueInfo("q", d); });
        QCOMPARE(r.error().code, ErrorCode::Unavailable);
    }
    QCOMPARE(store.breaker().state(), CircuitBreaker::State::Open);
    QCOMPARE(store.health(), HealthStatus::Unhealthy); // no spool: nothing takes publishes
    QElapsedTimer timer;
    timer.start();
    const auto fast = get<PublishResult>([&](auto d) { store.publish("q", {message(1)}, "alice", d); });
    QVERIFY(timer.elapsed() < 50);
    QCOMPARE(fast.error().code, ErrorCode::Unavailable);
    QVERIFY(fast.error().message.contains("circuit breaker open"));
    QCOMPARE(store.status().breaker, QString("open"));
    QVERIFY(hole.accepted() >= 1);
}

void TestRedisStore::spoolTakesPublishesWhileRedisIsDownAndDrainsInOrder()
{
    QTemporaryDir dir;
    Store s(m_redis.port(), dir.filePath("spool"));
    QVERIFY(get<QueueInfo>([&](auto d) { s.store.createQueue("q", configOf("list"), d); }).ok());
    QVERIFY(s.publish("q", 0).ok());

    m_redis.kill(); // kill -9; appendfsync always keeps what Redis acknowledged
    // A publish already on its way when Redis died cannot know whether it ran: it fails (503) and
    // is not acknowledged. Every other one goes to the spool and is acknowledged.
    QList<int> acknowledged{0};
    QList<QString> ids;
    int uncertain = 0;
    for (int i = 1; i <= 50; ++i) {
        const Result<PublishResult> r = s.publish("q", i);
        if (r) {
            acknowledged.append(i);
            ids += r->messageIds();
        } else {
            QVERIFY2(r.error().code == ErrorCode::Unavailable || r.error().code == ErrorCode::Timeout,
                     qPrintable(r.error().message));
            ++uncertain;
        }
    }
    QVERIFY2(uncertain <= 2, qPrintable(QString::number(uncertain)));
    QCOMPARE(s.store.spool()->messageCount(), acknowledged.size() - 1);
    QCOMPARE(s.store.health(), HealthStatus::Degraded);
    QCOMPARE(s.store.status().spooledMessages, acknowledged.size() - 1);
    // Consumes cannot be served from the spool: they fail, and say why.
    QCOMPARE(s.consume("q", 1).error().code, ErrorCode::Unavailable);

    QVERIFY(m_redis.restart());
    QVERIFY(waitUntil([&] { return s.store.spool()->isEmpty(); }, 10'000));
    QVERIFY(waitUntil([&] { return s.store.health() == HealthStatus::Healthy; }, 5000));
    QList<Message> all;
    for (int i = 0; i < 10; ++i)
        all += *s.consume("q", 100);
    QCOMPARE(numbersOf(all), acknowledged); // none lost, none twice, in publish order
    QCOMPARE(all.value(1).id, ids.first());
}

void TestRedisStore::spoolDrainIsIdempotent()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("spool");
    {
        Store s(m_redis.port(), path);
        QVERIFY(get<QueueInfo>([&](auto d) { s.store.createQueue("q", configOf("list"), d); }).ok());
    }
    // A spool holding one batch, as a broker leaves it when it stops while Redis is away.
    {
        auto spool = PublishSpool::open(path).value();
        std::optional<Result<void>> written;
        spool->append("q", configOf("list"), {{0, RedisMessage::encode(1, QDateTime::currentMSecsSinceEpoch() * 1000,
                                                    message(1), "alice")}},
                      [&](Result<void> r) { written = std::move(r); });
        QVERIFY(waitUntil([&] { return written.has_value(); }));
        QVERIFY(written->ok());
    }
    QVERIFY(QFile::copy(path, path + ".copy"));
    // Drained by one broker; then the same batch again (a reply lost before the spool noted it).
    for (const QString &file : {path, path + ".copy"}) {
        Store s(m_redis.port(), file);
        QVERIFY(waitUntil([&] { return s.store.spool()->isEmpty(); }));
    }
    Store reader(m_redis.port());
    QCOMPARE(numbersOf(*reader.consume("q", 10)), QList<int>{1});
}

void TestRedisStore::unknownQueueIsNotSpooled()
{
    QTemporaryDir dir;
    BlackHoleServer hole;
    Store s(hole.port(), dir.filePath("spool"));
    // Redis cannot say whether the queue exists, so the publish is refused rather than spooled.
    const auto r = s.publish("never-seen", 1);
    QCOMPARE(r.error().code, ErrorCode::Unavailable);
    QVERIFY(!s.store.spool()->hasWork());
}

void TestRedisStore::aQueueMissingAtDrain_data()
{
    QTest::addColumn<QString>("meanwhile"); // what happened to the queue in Redis while the batch waited
    QTest::addColumn<bool>("withConfig");   // the batch carries its queue's configuration
    QTest::addColumn<int>("delivered");     // messages the queue holds once the spool is empty
    QTest::addColumn<QString>("incident");
    QTest::addColumn<qint64>("recreated");
    QTest::addColumn<qint64>("discarded");
    QTest::addRow("redis-lost-its-data-queue-recreated") << "flushall" << true << 5 << "queue_recreated"
                                                         << qint64(1) << qint64(0);
    QTest::addRow("deleted-on-purpose-messages-go-with-it") << "delete" << true << 0 << "spooled_messages_discarded"
                                                            << qint64(0) << qint64(5);
    QTest::addRow("deleted-and-created-again-delivered-there") << "delete-create" << true << 5 << "" << qint64(0)
                                                               << qint64(0);
    QTest::addRow("no-config-recorded-kept-until-created") << "flushall" << false << 5 << "spool_blocked" << qint64(0)
                                                           << qint64(0);
}

void TestRedisStore::aQueueMissingAtDrain()
{
    QFETCH(QString, meanwhile);
    QFETCH(bool, withConfig);
    QFETCH(int, delivered);
    QFETCH(QString, incident);
    QFETCH(qint64, recreated);
    QFETCH(qint64, discarded);
    QTemporaryDir dir;
    const QString path = dir.filePath("spool");
    QueueConfig config = configOf("priority", 7);
    config.maxSize = 1234;
    {
        Store admin(m_redis.port());
        QVERIFY(get<QueueInfo>([&](auto d) { admin.store.createQueue("jobs", config, d); }).ok());
        writeSpool(path, "jobs", config, 5, withConfig);
        if (meanwhile == "flushall")
            m_redis.cli({"FLUSHALL"});
        if (meanwhile.startsWith("delete"))
            QVERIFY(get<qint64>([&](auto d) { admin.store.deleteQueue("jobs", d); }).ok());
        if (meanwhile == "delete-create")
            QVERIFY(get<QueueInfo>([&](auto d) { admin.store.createQueue("jobs", configOf("list"), d); }).ok());
    }
    Store s(m_redis.port(), path);
    if (!withConfig) {
        // Nothing to create it from: the batch stays, and says so until an admin acts.
        QVERIFY(waitUntil([&] { return !s.store.status().spoolBlocked.isEmpty(); }, 5000));
        QTest::qWait(300); // several drain attempts: still kept, reported once
        QCOMPARE(s.store.spool()->messageCount(), 5);
        QCOMPARE(s.log.codes().count("spool_blocked"), 1);
        QVERIFY(s.log.incidents.first().message.contains("Create the queue"));
        QCOMPARE(s.store.health(), HealthStatus::Degraded);
        QVERIFY(get<QueueInfo>([&](auto d) { s.store.createQueue("jobs", config, d); }).ok());
    }
    QVERIFY(waitUntil([&] { return s.store.spool()->isEmpty(); }, 5000));
    QVERIFY(s.store.status().spoolBlocked.isEmpty());
    if (!incident.isEmpty())
        QVERIFY2(s.log.codes().contains(incident), qPrintable(s.log.codes().join(",")));
    QCOMPARE(s.store.status().queuesRecreated, recreated);
    QCOMPARE(s.store.status().spoolDiscarded, discarded);
    const Result<QueueInfo> info = get<QueueInfo>([&](auto d) { s.store.queueInfo("jobs", d); });
    if (meanwhile == "delete") {
        QCOMPARE(info.error().code, ErrorCode::QueueNotFound); // not brought back
        return;
    }
    QVERIFY(info.ok());
    QCOMPARE(info->depth, delivered);
    if (meanwhile == "flushall")
        QCOMPARE(info->config, config); // created again as it was
    QCOMPARE(numbersOf(*s.consume("jobs", 10)).size(), delivered);
}

void TestRedisStore::restartedEmptyUnderPublishesLosesNothingAcknowledged()
{
    QTemporaryDir dir;
    Store s(m_redis.port(), dir.filePath("spool"));
    QVERIFY(get<QueueInfo>([&](auto d) { s.store.createQueue("q", configOf("list"), d); }).ok());
    QList<int> acknowledged;
    int n = 0;
    for (; n < 20; ++n) {
        if (s.publish("q", n).ok())
            acknowledged.append(n);
    }
    QCOMPARE(acknowledged.size(), 20);
    QCOMPARE(s.consume("q", 100)->size(), 20);
    acknowledged.clear(); // the first 20 were consumed; only what follows is owed
    m_redis.kill();
    for (; n < 220; ++n) {
        if (s.publish("q", n).ok())
            acknowledged.append(n);
    }
    QVERIFY(s.store.spool()->messageCount() >= 190);
    QElapsedTimer sinceRestart;
    QVERIFY(m_redis.restartEmpty());
    sinceRestart.start();
    QVERIFY(waitUntil([&] { return s.store.spool()->isEmpty(); }, 10'000));
    const qint64 drainedAfterMs = sinceRestart.elapsed();
    QList<int> delivered;
    for (int i = 0; i < 5; ++i)
        delivered += numbersOf(*s.consume("q", 100));
    const QSet<int> owed(acknowledged.cbegin(), acknowledged.cend()), got(delivered.cbegin(), delivered.cend());
    const qint64 lost = (owed - got).size(), duplicated = delivered.size() - got.size();
    qInfo("redis restarted empty with %lld publishes spooled: delivered %lld, lost %lld, duplicated %lld, "
          "spool drained %lld ms after Redis was back, queues recreated %lld",
          qint64(acknowledged.size()), qint64(delivered.size()), lost, duplicated, drainedAfterMs,
          s.store.status().queuesRecreated);
    QCOMPARE(lost, 0);
    QCOMPARE(duplicated, 0);
    QCOMPARE(delivered, acknowledged); // in publish order
    QCOMPARE(s.store.status().queuesRecreated, 1);
    QVERIFY(s.log.codes().contains("queue_recreated"));
}

void TestRedisStore::spooledPublishesRespectMaxSize()
{
    QTemporaryDir dir;
    Store s(m_redis.port(), dir.filePath("spool"));
    QueueConfig config = configOf("list");
    config.maxSize = 10;
    QVERIFY(get<QueueInfo>([&](auto d) { s.store.createQueue("capped", config, d); }).ok());
    for (int i = 0; i < 4; ++i)
        QVERIFY(s.publish("capped", i).ok());
    m_redis.kill();
    int spooled = 0, full = 0;
    for (int i = 0; i < 30; ++i) {
        const Result<PublishResult> r = s.publish("capped", 100 + i);
        if (r)
            ++spooled;
        else if (r.error().code == ErrorCode::QueueFull)
            ++full;
    }
    QVERIFY2(spooled <= 6 && spooled >= 5, qPrintable(QString::number(spooled))); // one may be in flight at the kill
    QVERIFY(full >= 20);
    QVERIFY(m_redis.restart()); // with its data (AOF): the 4 are still there
    QVERIFY(waitUntil([&] { return s.store.spool()->isEmpty(); }, 10'000));
    const Result<QueueInfo> info = get<QueueInfo>([&](auto d) { s.store.queueInfo("capped", d); });
    QVERIFY(info.ok());
    QCOMPARE(info->depth, 4 + spooled);
    QVERIFY(info->depth <= 10);
}

void TestRedisStore::aFullSpoolAnswersUnavailable()
{
    QTemporaryDir dir;
    Store s(m_redis.port(), dir.filePath("spool"), PublishSpool::Limits{5, 0});
    QVERIFY(get<QueueInfo>([&](auto d) { s.store.createQueue("q", configOf("list"), d); }).ok());
    QVERIFY(s.publish("q", 0).ok());
    m_redis.kill();
    int accepted = 0;
    std::optional<Error> refusal;
    for (int i = 1; i <= 12; ++i) {
        const Result<PublishResult> r = s.publish("q", i);
        if (r)
            ++accepted;
        else if (r.error().message.contains("spool is full"))
            refusal = r.error();
    }
    QCOMPARE(accepted, 5);
    QVERIFY(refusal.has_value());
    QCOMPARE(refusal->code, ErrorCode::Unavailable); // 503 with Retry-After
    QCOMPARE(s.store.status().spooledMessages, 5);
    QCOMPARE(s.store.status().spoolMaxMessages, 5);
    QVERIFY(m_redis.restart());
    QVERIFY(waitUntil([&] { return s.store.spool()->isEmpty(); }, 10'000));
    QVERIFY(s.publish("q", 99).ok()); // room again
}

void TestRedisStore::serviceReturnsWithinAboutASecondOfRedis()
{
    // The production pauses: 1 s first, up to 30 s. Redis stays away long enough for a few failed
    // probes; once back, the next probe is at most the current pause away.
    RedisStoreOptions options = optionsFor(m_redis.port());
    options.breaker = {3, 30'000, 1000};
    Store s(m_redis.port(), {}, PublishSpool::Limits(), options);
    QVERIFY(get<QueueInfo>([&](auto d) { s.store.createQueue("q", configOf("list"), d); }).ok());
    m_redis.kill();
    QElapsedTimer down;
    down.start();
    while (down.elapsed() < 2500) {
        (void)s.consume("q", 1);
        QTest::qWait(50);
    }
    QCOMPARE(s.store.status().breaker, QString("open"));
    QVERIFY(m_redis.restart());
    QElapsedTimer back;
    back.start();
    bool served = false;
    while (!served && back.elapsed() < 10'000) {
        served = s.consume("q", 1).ok();
        if (!served)
            QTest::qWait(50);
    }
    const qint64 recoveryMs = back.elapsed();
    qInfo("consumers served again %lld ms after Redis was back (breaker open time 30 s)", recoveryMs);
    QVERIFY(served);
    QVERIFY2(recoveryMs < 5000, qPrintable(QString::number(recoveryMs))); // far from the 30 s open time
}

// The Redis scripts implement the built-in types by name; a type registered at run time exists
// only as a ReadySet in one process, so a store that brokers share refuses it (the registry's rule).
void TestRedisStore::onlyBuiltInQueueTypesAreAvailable_data()
{
    QTest::addColumn<QString>("type");
    QTest::addColumn<bool>("available");
    QTest::addRow("list") << "list" << true;
    QTest::addRow("priority") << "priority" << true;
    QTest::addRow("stream") << "stream" << true;
    QTest::addRow("registered-at-run-time") << "custom" << false;
}

void TestRedisStore::onlyBuiltInQueueTypesAreAvailable()
{
    QFETCH(QString, type);
    QFETCH(bool, available);
    Store s(m_redis.port());
    QVERIFY(s.types.registerQueueType("custom", "FIFO under a name of its own",
                                      [&s] { return s.types.createReadySet("list"); }));
    const Result<QueueInfo> created = get<QueueInfo>([&](auto d) { s.store.createQueue("q", configOf(type), d); });
    QCOMPARE(created.ok(), available);
    if (available) {
        QCOMPARE(get<QueueInfo>([&](auto d) { s.store.queueInfo("q", d); })->config.type, type);
        return;
    }
    QCOMPARE(created.error().code, ErrorCode::InvalidArgument);
    QCOMPARE(created.error().message, QString("Queue type 'custom' is not available with the Redis backend"));
    QCOMPARE(m_redis.cli({"EXISTS", "brokerdesk:{q}:meta"}), QByteArray("0"));
}

// Every type the registry calls built in is one the scripts implement: its messages come out of
// Redis in the order the memory store (the type's ReadySet) gives them. A built-in type added to
// the registry without its Lua layout fails here.
void TestRedisStore::everyBuiltInTypeDeliversAsTheMemoryStoreDoes()
{
    Store s(m_redis.port());
    MemoryStore memory(s.types, s.clock);
    const QList<int> priorities{1, 3, 0, 3, 2, 1, 0, 2};
    int builtIn = 0;
    for (const QString &type : s.types.names()) {
        if (!s.types.isBuiltIn(type))
            continue;
        ++builtIn;
        QList<QList<int>> orders;
        for (QueueStore *store : {static_cast<QueueStore *>(&memory), static_cast<QueueStore *>(&s.store)}) {
            QVERIFY(get<QueueInfo>([&](auto d) { store->createQueue(type, configOf(type), d); }).ok());
            for (int i = 0; i < priorities.size(); ++i) {
                NewMessage m = message(i);
                m.priority = priorities[i];
                QVERIFY(get<PublishResult>([&](auto d) { store->publish(type, {m}, "alice", d); }).ok());
            }
            ConsumeRequest request;
            request.count = int(priorities.size());
            request.user = "bob";
            const Result<QList<Message>> delivered =
                get<QList<Message>>([&](auto d) { store->consume(type, request, d); });
            QVERIFY(delivered.ok());
            orders.append(numbersOf(*delivered));
        }
        QCOMPARE(orders[0].size(), priorities.size());
        QVERIFY2(orders[1] == orders[0], qPrintable(type));
    }
    QVERIFY(builtIn >= 3); // list, priority and stream at least
}

void TestRedisStore::changesWaitForReplicas()
{
    if (testingRedisTls())
        QSKIP("replication is tested in clear text (a TLS replica needs tls-replication)");
    RedisStoreOptions options = optionsFor(m_redis.port());
    options.replicaWait = Redis::ReplicaWait{1, 200};
    Store s(m_redis.port(), {}, {}, options);
    // No replica: a change is made on the primary but answered 503, as not stored durably.
    const Result<QueueInfo> alone = get<QueueInfo>([&](auto d) { s.store.createQueue("q", configOf("list"), d); });
    QVERIFY(!alone.ok());
    QCOMPARE(alone.error().code, ErrorCode::Unavailable);
    QVERIFY2(alone.error().message.contains("Not stored durably"), qPrintable(alone.error().message));
    QVERIFY(!s.publish("q", 1).ok());
    QCOMPARE(s.store.health(), HealthStatus::Healthy); // Redis answered: the breaker stays closed

    RedisServer replica;
    QVERIFY2(replica.start({"--replicaof", "127.0.0.1", QString::number(m_redis.port())}), qPrintable(replica.errorString()));
    QVERIFY(waitUntil([&] { return m_redis.cli({"INFO", "replication"}).contains("state=online"); }, 15'000));
    // Just after the replica came online its first acknowledgement may lag the wait: a publish
    // that is answered at all is one the replica has.
    bool replicated = false;
    for (int attempt = 0; attempt < 20 && !replicated; ++attempt)
        replicated = s.publish("q", 10 + attempt).ok();
    QVERIFY(replicated);
    QCOMPARE(replica.cli({"LLEN", "brokerdesk:{q}:ready"}), m_redis.cli({"LLEN", "brokerdesk:{q}:ready"}));
}

QTEST_GUILESS_MAIN(TestRedisStore)
#include "tst_redisstore.moc"
