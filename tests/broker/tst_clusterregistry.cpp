// SPDX-License-Identifier: GPL-3.0-or-later
// The queue registry on a real 6-node Redis Cluster, where it lives in a slot of its own and a
// create and a delete are two steps each (ClusterQueueRegistry): cut between the steps, racing on
// two brokers, and an entry whose generation looks old. A queue that exists is always listed;
// an entry a crash left without its queue is not listed, and is swept only after the broker has
// found it so for a minute by its own clock. And what every node needs before a store's first
// call there: the script library, loaded on each (re)connect.
#include "storage/clusterqueueregistry.h"
#include "storage/redisstore.h"

#include "engine/queuetyperegistry.h"
#include "redis/scriptcache.h"

#include "../support/awaitresult.h"
#include "../support/rediscluster.h"

#include <QTest>
#include <QTimer>

#include <algorithm>
#include <functional>
#include <memory>

using namespace Broker;
using namespace Broker::Testing;

namespace {

const QString Registry = QStringLiteral("brokerdesk:registry");

} // namespace

class TestClusterRegistry : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void aCreateCutAfterEnrollingIsSweptAfterAMinute();
    void aDeleteCutBeforeWithdrawingIsSweptAfterAMinute();
    void aQueueMadeAgainBeforeTheDeletesLastStepStaysListed();
    void createsAndDeletesRacingOnTwoBrokersLeaveEveryQueueListed();
    void everyPrimaryHasTheLibraryFromTheStoresConnect();

private:
    std::unique_ptr<RedisStore> makeStore(const Clock &clock);
    QByteArray cli(const QByteArray &key, const QStringList &args) { return m_cluster.node(m_cluster.primaryFor(key)).cli(args); }
    QByteArray entry(const QString &queue) { return cli(Registry.toUtf8(), {QStringLiteral("HGET"), Registry, queue}).trimmed(); }
    // A queue whose slot is on another primary than the registry's, so that the steps go to two nodes.
    QString queueApartFromTheRegistry(const QString &stem);
    static QStringList listed(RedisStore &store);
    // Waits a second for the entry to go: a sweep begun by the pass before would be done by then.
    bool sweptWithinASecond(const QString &queue) { return waitUntil([&] { return entry(queue).isEmpty(); }, 1'000); }
    static void reap(RedisStore &store);

    RedisCluster m_cluster;
    QueueTypeRegistry m_types;
};

void TestClusterRegistry::initTestCase()
{
    QVERIFY2(m_cluster.start(), qPrintable(m_cluster.errorString()));
}

void TestClusterRegistry::init()
{
    m_cluster.flushPrimaries();
}

std::unique_ptr<RedisStore> TestClusterRegistry::makeStore(const Clock &clock)
{
    RedisStoreOptions options;
    options.cluster.emplace();
    for (int i = 0; i < m_cluster.size(); ++i)
        options.cluster->seeds.append(Redis::NodeAddress{QStringLiteral("127.0.0.1"), m_cluster.node(i).port()});
    auto store = std::make_unique<RedisStore>(options, m_types, clock);
    store->start();
    if (!waitUntil([&] { return store->cluster()->refreshes() > 0 && store->cluster()->allSlotsServed(); }))
        return nullptr;
    return store;
}

QString TestClusterRegistry::queueApartFromTheRegistry(const QString &stem)
{
    const int registryNode = m_cluster.primaryFor(Registry.toUtf8());
    for (int i = 0; i < 100; ++i)
        if (m_cluster.primaryFor((stem + QString::number(i)).toUtf8()) != registryNode)
            return stem + QString::number(i);
    return {};
}

QStringList TestClusterRegistry::listed(RedisStore &store)
{
    const Result<QList<QueueInfo>> all = awaitResult<QList<QueueInfo>>([&](auto d) { store.listQueues(d); });
    if (!all)
        return {QStringLiteral("listing failed: ") + all.error().message};
    QStringList names;
    for (const QueueInfo &info : *all)
        names.append(info.name);
    return names;
}

void TestClusterRegistry::reap(RedisStore &store)
{
    QVERIFY(awaitResult<qint64>([&](auto d) { store.runMaintenance(d); }).ok());
}

void TestClusterRegistry::aCreateCutAfterEnrollingIsSweptAfterAMinute()
{
    // What a create's first step leaves when its broker dies before the second: an entry with a
    // generation and no queue. Its generation says it was made in 2001: a broker must not sweep
    // it on that account (the enrolling broker's clock may be behind; its second step may still come).
    ManualClock clock;
    const std::unique_ptr<RedisStore> store = makeStore(clock);
    QVERIFY(store);
    const QString queue = queueApartFromTheRegistry(QStringLiteral("cut"));
    cli(Registry.toUtf8(), {QStringLiteral("HSET"), Registry, queue, QStringLiteral("1000000000000-5eed")});

    QCOMPARE(listed(*store), QStringList());
    reap(*store);
    clock.advanceMs(ClusterQueueRegistry::LeftoverAgeMs - 1);
    QCOMPARE(listed(*store), QStringList());
    QVERIFY(!sweptWithinASecond(queue));
    QCOMPARE(entry(queue), QByteArray("1000000000000-5eed"));

    // A minute after the broker first found it without its queue: the reaper sweeps it.
    clock.advanceMs(1);
    reap(*store);
    QVERIFY(waitUntil([&] { return entry(queue).isEmpty(); }));

    // The name is free: a queue made under it is listed.
    QVERIFY(awaitResult<QueueInfo>([&](auto d) { store->createQueue(queue, QueueConfig{}, d); }).ok());
    QCOMPARE(listed(*store), QStringList{queue});
}

void TestClusterRegistry::aDeleteCutBeforeWithdrawingIsSweptAfterAMinute()
{
    // A delete whose broker dies after delete.lua and before withdrawing the entry: the queue's
    // keys are gone, its entry is not.
    ManualClock clock;
    const std::unique_ptr<RedisStore> store = makeStore(clock);
    QVERIFY(store);
    const QString queue = queueApartFromTheRegistry(QStringLiteral("deleted"));
    QVERIFY(awaitResult<QueueInfo>([&](auto d) { store->createQueue(queue, QueueConfig{}, d); }).ok());
    const QByteArray generation = entry(queue);
    QVERIFY(!generation.isEmpty());
    QCOMPARE(cli(queue.toUtf8(), {QStringLiteral("DEL"), QStringLiteral("brokerdesk:{%1}:meta").arg(queue)}), QByteArray("1"));

    QCOMPARE(listed(*store), QStringList());
    clock.advanceMs(ClusterQueueRegistry::LeftoverAgeMs / 2);
    reap(*store);
    QVERIFY(!sweptWithinASecond(queue));
    QCOMPARE(entry(queue), generation);
    clock.advanceMs(ClusterQueueRegistry::LeftoverAgeMs / 2);
    QCOMPARE(listed(*store), QStringList());
    QVERIFY(waitUntil([&] { return entry(queue).isEmpty(); }));
}

void TestClusterRegistry::aQueueMadeAgainBeforeTheDeletesLastStepStaysListed()
{
    // Broker A deletes the queue (delete.lua answers generation 1); before A withdraws the entry,
    // broker B makes the queue again (generation 2). A's withdrawal, late, must leave B's entry;
    // and a live queue's entry is never swept, however long it is listed.
    ManualClock clockA;
    ManualClock clockB;
    const std::unique_ptr<RedisStore> a = makeStore(clockA);
    const std::unique_ptr<RedisStore> b = makeStore(clockB);
    QVERIFY(a && b);
    const QString queue = queueApartFromTheRegistry(QStringLiteral("again"));
    QVERIFY(awaitResult<QueueInfo>([&](auto d) { a->createQueue(queue, QueueConfig{}, d); }).ok());
    const QByteArray first = entry(queue);
    QCOMPARE(cli(queue.toUtf8(), {QStringLiteral("DEL"), QStringLiteral("brokerdesk:{%1}:meta").arg(queue)}), QByteArray("1"));
    QVERIFY(awaitResult<QueueInfo>([&](auto d) { b->createQueue(queue, QueueConfig{}, d); }).ok());
    const QByteArray second = entry(queue);
    QVERIFY(second != first);

    const QByteArray withdraw = Redis::Script::fromFile(QStringLiteral(":/redis/withdraw.lua")).source;
    QVERIFY(!withdraw.isEmpty());
    QCOMPARE(cli(Registry.toUtf8(), {QStringLiteral("EVAL"), QString::fromUtf8(withdraw), QStringLiteral("1"), Registry,
                                     queue, QString::fromUtf8(first)}),
             QByteArray("0"));
    QCOMPARE(entry(queue), second);
    for (int round = 0; round < 3; ++round) {
        QCOMPARE(listed(*a), QStringList{queue});
        QCOMPARE(listed(*b), QStringList{queue});
        reap(*a);
        reap(*b);
        clockA.advanceMs(ClusterQueueRegistry::LeftoverAgeMs);
        clockB.advanceMs(ClusterQueueRegistry::LeftoverAgeMs);
    }
    QVERIFY(!sweptWithinASecond(queue));
    QCOMPARE(entry(queue), second);
}

void TestClusterRegistry::createsAndDeletesRacingOnTwoBrokersLeaveEveryQueueListed()
{
    // Broker A creates while broker B deletes the same name, both in flight at once, many times
    // over; whatever order their four steps take, a queue that exists afterwards is listed on both.
    SystemClock clock;
    const std::unique_ptr<RedisStore> a = makeStore(clock);
    const std::unique_ptr<RedisStore> b = makeStore(clock);
    QVERIFY(a && b);
    const QString queue = queueApartFromTheRegistry(QStringLiteral("race"));
    int existed = 0;
    for (int round = 0; round < 40; ++round) {
        bool created = false;
        bool deleted = false;
        const std::function<void()> create = [&] { a->createQueue(queue, QueueConfig{}, [&](Result<QueueInfo>) { created = true; }); };
        const std::function<void()> remove = [&] { b->deleteQueue(queue, [&](Result<qint64>) { deleted = true; }); };
        // Either first, the other 0 to 3 ms later: the steps interleave differently from round to round.
        const bool createFirst = round % 2 == 0;
        (createFirst ? create : remove)();
        QTimer::singleShot(round / 2 % 4, [&] { (createFirst ? remove : create)(); });
        QVERIFY(waitUntil([&] { return created && deleted; }));
        QTest::qWait(20); // the delete's last step (withdraw) follows its answer
        const bool exists = awaitResult<QueueInfo>([&](auto d) { a->queueInfo(queue, d); }).ok();
        existed += exists ? 1 : 0;
        const QStringList expected = exists ? QStringList{queue} : QStringList{};
        QCOMPARE(listed(*a), expected);
        QCOMPARE(listed(*b), expected);
    }
    qInfo("the queue existed after %d of 40 races", existed);
}

void TestClusterRegistry::everyPrimaryHasTheLibraryFromTheStoresConnect()
{
    QList<int> primaries;
    for (int i = 0; i < m_cluster.size(); ++i)
        if (m_cluster.node(i).cli({QStringLiteral("ROLE")}).startsWith("master")) {
            primaries.append(i);
            m_cluster.node(i).cli({QStringLiteral("FUNCTION"), QStringLiteral("FLUSH")});
        }
    QCOMPARE(primaries.size(), 3);
    const auto loaded = [&](int node) { return m_cluster.node(node).cli({QStringLiteral("FUNCTION"), QStringLiteral("LIST")}).contains("brokerdesk_"); };
    SystemClock clock;
    const std::unique_ptr<RedisStore> store = makeStore(clock);
    QVERIFY(store);
    for (int node : primaries)
        QVERIFY2(waitUntil([&] { return loaded(node); }), qPrintable(QString::number(node)));
    // A queue on each primary, and a publish into each: every call finds its function there.
    QStringList queues;
    for (int i = 0; queues.size() < 3 && i < 100; ++i) {
        const QString name = QStringLiteral("lib%1").arg(i);
        const int node = m_cluster.primaryFor(name.toUtf8());
        if (std::none_of(queues.cbegin(), queues.cend(), [&](const QString &q) { return m_cluster.primaryFor(q.toUtf8()) == node; }))
            queues.append(name);
    }
    QCOMPARE(queues.size(), 3);
    const auto publishToEach = [&] {
        for (const QString &queue : queues) {
            NewMessage message;
            message.data = "1";
            if (!awaitResult<PublishResult>([&](auto d) { store->publish(queue, {message}, {}, d); }).ok())
                return false;
        }
        return true;
    };
    for (const QString &queue : queues)
        QVERIFY(awaitResult<QueueInfo>([&](auto d) { store->createQueue(queue, QueueConfig{}, d); }).ok());
    QVERIFY(publishToEach());
    QCOMPARE(store->scriptReloads(), 0);

    // One primary restarted empty: its library gone, the store's connections cut. The store
    // connects again and loads it before any call.
    const int node = primaries.first();
    m_cluster.node(node).cli({QStringLiteral("FUNCTION"), QStringLiteral("FLUSH")});
    m_cluster.node(node).cli({QStringLiteral("CLIENT"), QStringLiteral("KILL"), QStringLiteral("TYPE"), QStringLiteral("normal")});
    QVERIFY(waitUntil([&] { return loaded(node); }));
    QVERIFY(waitUntil(publishToEach));
    QCOMPARE(store->scriptReloads(), 0);
}

QTEST_GUILESS_MAIN(TestClusterRegistry)
#include "tst_clusterregistry.moc"
