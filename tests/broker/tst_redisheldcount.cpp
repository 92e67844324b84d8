// SPDX-License-Identifier: GPL-3.0-or-later
// The held count a Redis queue keeps for max_size (published - acked + held_offset in its meta
// hash, resources/redis/lib.lua) against what its lists hold, after every step of a long random
// mix of everything that moves messages in or out: publishes (delayed too), leases and acks, takes,
// nacks (with a delay too), leases running out into the dead-letter queue, TTL expiry, delete,
// requeue, move and dead-letter actions, redrive and purge. On one redis-server, and (BROKER_TEST_STORE=redis-cluster) on a
// cluster, where the dead-letter queue sits in another slot and takes its messages by transfers.
// Also: a queue made before the count existed gets it from its lists, and a wrong count is mended
// by the reaper.
#include "storage/redisstore.h"

#include "engine/queuetyperegistry.h"

#include "../support/awaitresult.h"
#include "../support/redisbackend.h"

#include <QRandomGenerator>
#include <QRegularExpression>
#include <QTest>

#include <memory>

using namespace Broker;
using namespace Broker::Testing;

namespace {

const QStringList Queues{QStringLiteral("work"), QStringLiteral("ranked"), QStringLiteral("spare"),
                         QStringLiteral("work-dlq")};

QueueConfig configOf(const QString &type, const QString &dlq)
{
    QueueConfig config;
    config.type = type;
    config.maxSize = 40;
    config.ttlSeconds = 30;
    config.visibilityTimeoutSeconds = 5;
    config.maxDeliveries = 2;
    config.deadLetterQueue = dlq;
    return config;
}

// A settle is refused once the lease ran out (the reaper took it back, another lease took over).
template<typename T>
bool settledOrGone(const Result<T> &r)
{
    return r || r.error().code == ErrorCode::MessageNotFound || r.error().code == ErrorCode::StaleReceipt;
}

QByteArray metaOf(const QString &queue)
{
    return "brokerdesk:{" + queue.toUtf8() + "}:meta";
}

} // namespace

class TestRedisHeldCount : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void countFollowsEveryChange();
    void aQueueWithoutACountGetsOneFromItsLists();
    void theReaperMendsAWrongCount();

private:
    std::unique_ptr<RedisStore> newStore();
    void createQueues(QueueStore &store);
    // The queue's count as a publish reads it, and what its lists hold (queue info counts them).
    qint64 heldCount(const QString &queue);
    qint64 listed(QueueStore &store, const QString &queue);

    RedisBackend m_redis;
    QueueTypeRegistry m_types;
    ManualClock m_clock;
};

void TestRedisHeldCount::initTestCase()
{
    QVERIFY2(m_redis.start(), qPrintable(m_redis.errorString()));
}

void TestRedisHeldCount::init()
{
    m_redis.flush();
}

std::unique_ptr<RedisStore> TestRedisHeldCount::newStore()
{
    auto store = std::make_unique<RedisStore>(m_redis.options(), m_types, m_clock);
    store->start();
    if (!waitUntil([&] { return store->client().readyCount() == store->client().size() && store->client().size() > 0; }))
        qFatal("the Redis store is not ready after 5 s");
    return store;
}

void TestRedisHeldCount::createQueues(QueueStore &store)
{
    for (const QString &queue : Queues) {
        const QString type = queue == QLatin1String("ranked") ? QStringLiteral("priority") : QStringLiteral("list");
        const QString dlq = queue.endsWith(QLatin1String("-dlq")) ? QString() : QStringLiteral("work-dlq");
        QVERIFY(awaitResult<QueueInfo>([&](auto d) { store.createQueue(queue, configOf(type, dlq), d); }).ok());
    }
}

qint64 TestRedisHeldCount::heldCount(const QString &queue)
{
    const QList<QByteArray> f =
        m_redis.cli(metaOf(queue), {QStringLiteral("HMGET"), QStringLiteral("published"), QStringLiteral("acked"),
                                    QStringLiteral("held_offset")})
            .split('\n');
    if (f.size() != 3 || f[2].trimmed().isEmpty())
        return -1;
    return f[0].trimmed().toLongLong() - f[1].trimmed().toLongLong() + f[2].trimmed().toLongLong();
}

qint64 TestRedisHeldCount::listed(QueueStore &store, const QString &queue)
{
    const Result<QueueInfo> info = awaitResult<QueueInfo>([&](auto d) { store.queueInfo(queue, d); });
    return info ? info->size() : -1;
}

void TestRedisHeldCount::countFollowsEveryChange()
{
    // The reaper mends a wrong count in the run that made it wrong: its warning is the failure then.
    QTest::failOnWarning(QRegularExpression("wrong held count"));
    const auto store = newStore();
    createQueues(*store);
    const quint32 seed = QRandomGenerator::global()->generate();
    qInfo("seed %u (BROKER_TEST_SEED repeats a run)", seed);
    QRandomGenerator random(qEnvironmentVariableIsSet("BROKER_TEST_SEED") ? qEnvironmentVariableIntValue("BROKER_TEST_SEED") : seed);
    const QStringList origins{QStringLiteral("work"), QStringLiteral("ranked")};
    QList<QPair<QString, Message>> leased; // (queue, message) of live leases, as far as this side knows
    QStringList ids;                       // every id published, some long gone
    QHash<QString, int> done;              // what ran, by kind: the mix must reach every path
    int published = 0;

    for (int step = 0; step < 400; ++step) {
        const QString queue = origins[random.bounded(origins.size())];
        const int kind = random.bounded(100);
        QString what;
        if (kind < 30) {
            QList<NewMessage> batch;
            for (int i = random.bounded(1, 5); i > 0; --i) {
                NewMessage m;
                m.data = QByteArray::number(published++);
                m.priority = random.bounded(3);
                m.delayMs = random.bounded(4) == 0 ? random.bounded(1, 4000) : 0;
                batch.append(m);
            }
            const Result<PublishResult> r =
                awaitResult<PublishResult>([&](auto d) { store->publish(queue, batch, "alice", d); });
            what = r ? QStringLiteral("publish") : QStringLiteral("publish refused");
            if (r) {
                ids += r->messageIds();
                // What the publish saw (its held count) is what the lists hold now.
                QCOMPARE(r->queueSize, listed(*store, queue));
            } else {
                QCOMPARE(r.error().code, ErrorCode::QueueFull);
            }
        } else if (kind < 50) {
            ConsumeRequest request;
            request.count = random.bounded(1, 4);
            request.acknowledge = random.bounded(3) == 0;
            request.user = "bob";
            const Result<QList<Message>> r = awaitResult<QList<Message>>([&](auto d) { store->consume(queue, request, d); });
            QVERIFY(r.ok());
            what = request.acknowledge ? QStringLiteral("take") : QStringLiteral("lease");
            if (!request.acknowledge)
                for (const Message &m : *r)
                    leased.append({queue, m});
        } else if (kind < 70 && !leased.isEmpty()) {
            const auto [on, m] = leased.takeAt(random.bounded(leased.size()));
            const MessageRef ref{m.id, m.receipt, {}, "bob"};
            if (random.bounded(2) == 0) {
                what = QStringLiteral("ack");
                QVERIFY(settledOrGone(awaitResult<void>([&](auto d) { store->ack(on, ref, d); })));
            } else {
                what = QStringLiteral("nack");
                const qint64 delay = random.bounded(2) == 0 ? 0 : 1500;
                QVERIFY(settledOrGone(awaitResult<NackResult>([&](auto d) { store->nack(on, ref, delay, d); })));
            }
        } else if (kind < 82) {
            what = QStringLiteral("reap");
            m_clock.advanceMs(random.bounded(1, 7000)); // leases (5 s) and delays run out; TTL is 30 s
            QVERIFY(awaitResult<qint64>([&](auto d) { store->runMaintenance(d); }).ok());
        } else if (kind < 92 && !ids.isEmpty()) {
            MessageAction action;
            action.kind = MessageAction::Kind(random.bounded(4));
            action.target = QStringLiteral("spare");
            action.user = "carol";
            for (int i = random.bounded(1, 4); i > 0; --i)
                action.ids.append(ids[random.bounded(ids.size())]);
            const Result<MessageActionResult> r =
                awaitResult<MessageActionResult>([&](auto d) { store->messageAction(queue, action, d); });
            QVERIFY(r || r.error().code == ErrorCode::QueueFull); // ids already gone are left out
            what = QStringLiteral("action %1").arg(int(action.kind));
        } else if (kind < 98) {
            RedriveRequest request;
            request.limit = random.bounded(0, 4);
            request.user = "carol";
            QVERIFY(awaitResult<RedriveResult>([&](auto d) { store->redrive(queue, request, d); }).ok());
            what = QStringLiteral("redrive");
        } else {
            QVERIFY(awaitResult<qint64>([&](auto d) { store->purgeQueue(queue, d); }).ok());
            what = QStringLiteral("purge");
            leased.clear();
        }
        if (what.isEmpty())
            continue;
        ++done[what];
        waitForStore(*store); // cluster: transfers into the dead-letter queue handed over
        for (const QString &q : Queues) {
            const qint64 held = heldCount(q);
            const qint64 lists = listed(*store, q);
            if (held != lists)
                QFAIL(qPrintable(QStringLiteral("step %1 (%2 on %3): %4 holds %5 by its count, %6 by its lists")
                                     .arg(step).arg(what, queue, q).arg(held).arg(lists)));
        }
    }
    qInfo() << "steps by kind:" << done;
    for (const char *kind : {"publish", "take", "lease", "ack", "nack", "reap", "redrive", "purge"})
        QVERIFY2(done.value(QString::fromLatin1(kind)) > 0, kind);
    QVERIFY(listed(*store, "work-dlq") > 0 || done.value("redrive") > 0);
}

void TestRedisHeldCount::aQueueWithoutACountGetsOneFromItsLists()
{
    const auto store = newStore();
    createQueues(*store);
    QList<NewMessage> batch(5);
    batch[4].delayMs = 60'000;
    QVERIFY(awaitResult<PublishResult>([&](auto d) { store->publish("work", batch, "alice", d); }).ok());
    ConsumeRequest lease;
    lease.count = 2;
    lease.acknowledge = false;
    QCOMPARE(awaitResult<QList<Message>>([&](auto d) { store->consume("work", lease, d); })->size(), 2);
    // As a queue an earlier version made: no count, and lifetime counters that say nothing of what
    // is held (messages that left by ways other than an ack).
    m_redis.cli(metaOf("work"), {QStringLiteral("HDEL"), QStringLiteral("held_offset")});
    m_redis.cli(metaOf("work"), {QStringLiteral("HSET"), QStringLiteral("published"), QStringLiteral("90")});
    QCOMPARE(heldCount("work"), -1);
    const Result<PublishResult> r =
        awaitResult<PublishResult>([&](auto d) { store->publish("work", {NewMessage{}}, "alice", d); });
    QVERIFY(r.ok());
    QCOMPARE(r->queueSize, 6);
    QCOMPARE(heldCount("work"), 6);
    QCOMPARE(listed(*store, "work"), 6);
}

void TestRedisHeldCount::theReaperMendsAWrongCount()
{
    const auto store = newStore();
    createQueues(*store);
    QVERIFY(awaitResult<PublishResult>([&](auto d) { store->publish("work", QList<NewMessage>(3), "alice", d); }).ok());
    // Wrong both ways: a count too high refuses publishes that fit, one too low lets max_size pass.
    // The reaper checks counts every tenth round.
    for (const char *offset : {"50", "-30"}) {
        m_redis.cli(metaOf("work"), {QStringLiteral("HSET"), QStringLiteral("held_offset"), QString::fromLatin1(offset)});
        QVERIFY(heldCount("work") != 3);
        QTest::ignoreMessage(QtWarningMsg, QRegularExpression("\"work\" had a wrong held count"));
        for (int round = 0; round < 10; ++round)
            QVERIFY(awaitResult<qint64>([&](auto d) { store->runMaintenance(d); }).ok());
        QCOMPARE(heldCount("work"), 3);
    }
    // Right: the reaper leaves it (and says nothing).
    QTest::failOnWarning(QRegularExpression("wrong held count"));
    for (int round = 0; round < 10; ++round)
        QVERIFY(awaitResult<qint64>([&](auto d) { store->runMaintenance(d); }).ok());
    QCOMPARE(heldCount("work"), 3);
    // And max_size (40) holds exactly.
    QVERIFY(awaitResult<PublishResult>([&](auto d) { store->publish("work", QList<NewMessage>(37), "alice", d); }).ok());
    const Result<PublishResult> over =
        awaitResult<PublishResult>([&](auto d) { store->publish("work", {NewMessage{}}, "alice", d); });
    QVERIFY(!over.ok());
    QCOMPARE(over.error().code, ErrorCode::QueueFull);
}

QTEST_GUILESS_MAIN(TestRedisHeldCount)
#include "tst_redisheldcount.moc"
