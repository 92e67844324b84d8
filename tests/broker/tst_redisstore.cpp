// SPDX-License-Identifier: GPL-3.0-or-later
// The Redis store where it differs from the memory store: what Redis shows to other tools,
// several brokers on one Redis, and surviving Redis going away (breaker, spool, SCRIPT FLUSH).
#include "storage/redismessage.h"
#include "storage/redisstore.h"

#include "engine/queuetyperegistry.h"

#include "../support/awaitresult.h"
#include "../support/redisserver.h"

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

struct Store
{
    explicit Store(quint16 port, const QString &spoolPath = {}) : store(optionsFor(port), types, clock)
    {
        if (!spoolPath.isEmpty())
            store.setSpool(std::move(PublishSpool::open(spoolPath).value()));
        store.start();
        waitUntil([&] { return store.pool().readyCount() == 2; });
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
    RedisStore store;
};

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
    void competingBrokersNeverShareALease();
    void leasesOfAStoppedBrokerAreReclaimed();
    void blackHoleOpensTheBreakerAndCallsFailFast();
    void spoolTakesPublishesWhileRedisIsDownAndDrainsInOrder();
    void spoolDrainIsIdempotent();
    void unknownQueueIsNotSpooled();

private:
    RedisServer m_redis;
};

void TestRedisStore::initTestCase()
{
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
        if (i % 50 == 25)
            m_redis.cli({"SCRIPT", "FLUSH"});
        failures += s.publish("q", i).ok() ? 0 : 1;
        failures += s.consume("q", 1).ok() ? 0 : 1;
    }
    QCOMPARE(failures, 0);
    QVERIFY(s.store.scriptReloads() >= 4);
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
            ids += r->messageIds;
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
        spool->append("q", {{0, RedisMessage::encode("msg-0000000000000001", QDateTime::currentMSecsSinceEpoch() * 1000,
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

QTEST_GUILESS_MAIN(TestRedisStore)
#include "tst_redisstore.moc"
