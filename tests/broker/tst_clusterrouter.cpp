// SPDX-License-Identifier: GPL-3.0-or-later
// The cluster router against a real 6-node Redis Cluster (3 primaries, 3 replicas): routing by
// slot, the slot map read from the cluster, MOVED after a slot moved, ASK while it moves,
// scripts loaded per node, a primary killed (-9) under way, and stop().
#include "redis/clusterrouter.h"
#include "redis/scriptcache.h"

#include "../support/eventloop.h"
#include "../support/rediscluster.h"

#include <QCryptographicHash>
#include <QElapsedTimer>
#include <QSet>
#include <QTest>

#include <algorithm>
#include <optional>

using namespace Broker;
using namespace Broker::Redis;
using namespace Broker::Testing;

namespace {

// A script that adds ARGV[1] to the number at KEYS[1] and answers the sum.
Script incrementScript()
{
    Script script;
    script.name = QStringLiteral("incr");
    script.source = "return redis.call('INCRBY', KEYS[1], ARGV[1])";
    script.sha1 = QCryptographicHash::hash(script.source, QCryptographicHash::Sha1).toHex();
    return script;
}

} // namespace

class TestClusterRouter : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanup();
    void readsTheSlotMap();
    void readsClusterSlotsWhereShardsIsRefused();
    void routesEveryKeyToItsPrimary();
    void followsMovedAfterASlotMoved();
    void followsAskWhileASlotMoves();
    void readsTheMapPeriodicallyAndAfterRedirectsAtMostOncePerGap();
    void loadsScriptsOnEachNode();
    void aFunctionAskedOfANodeWithoutItRunsByEval();
    void writesWaitForReplicas();
    void survivesAPrimaryKilled();
    void tryAgainGivesUpAfterItsTime();
    void stopFailsWhatWaits();

private:
    std::unique_ptr<ClusterRouter> makeRouter(ClusterOptions cluster = {});
    std::optional<CommandResult> call(RedisClient &client, const QByteArrayList &args, const QByteArray &key);
    int otherPrimary(int than)
    {
        for (int i = 0; i < m_cluster.size(); ++i)
            if (i != than && m_cluster.node(i).cli({"ROLE"}).startsWith("master"))
                return i;
        return -1;
    }
    QByteArray nodeId(int node) { return m_cluster.node(node).cli({QStringLiteral("CLUSTER"), QStringLiteral("MYID")}); }
    // Moves `slot` (and its keys) from primary `from` to primary `to`; `finish` false leaves it
    // half-way: MIGRATING on `from`, IMPORTING on `to`, keys already moved.
    void moveSlot(int slot, int from, int to, bool finish);

    RedisCluster m_cluster;
};

void TestClusterRouter::initTestCase()
{
    QElapsedTimer timer;
    timer.start();
    if (!m_cluster.start())
        QFAIL(qPrintable(m_cluster.errorString()));
    qInfo("cluster of %d nodes ready in %lld ms", m_cluster.size(), timer.elapsed());
}

void TestClusterRouter::cleanup()
{
    for (int i = 0; i < m_cluster.size(); ++i)
        if (m_cluster.node(i).isRunning())
            m_cluster.node(i).cli({QStringLiteral("FLUSHALL")});
}

std::unique_ptr<ClusterRouter> TestClusterRouter::makeRouter(ClusterOptions cluster)
{
    ConnectionOptions connection;
    connection.connectTimeoutMs = 1000;
    connection.commandTimeoutMs = 2000;
    PoolOptions pool;
    pool.size = 2;
    pool.reconnect = RetryPolicy{20, 2.0, 200, 0};
    if (cluster.seeds.isEmpty())
        cluster.seeds = {NodeAddress{QStringLiteral("127.0.0.1"), m_cluster.node(0).port()}};
    auto router = std::make_unique<ClusterRouter>(connection, pool, cluster);
    router->start();
    // Every slot's primary answering and every pool full: the count of ready connections covers
    // every pool (a seed's too), so it alone can be met while a primary's pool is still empty.
    const auto ready = [&] {
        return router->refreshes() > 0 && router->allSlotsServed() && router->readyCount() == router->size();
    };
    if (!waitUntil(ready, 10'000))
        qWarning("the router is not ready: %d of %d connections, %s", router->readyCount(), router->size(),
                 qPrintable(router->lastError()));
    return router;
}

std::optional<CommandResult> TestClusterRouter::call(RedisClient &client, const QByteArrayList &args, const QByteArray &key)
{
    std::optional<CommandResult> outcome;
    client.command(args, [&outcome](CommandResult result) { outcome = std::move(result); }, key);
    waitUntil([&] { return outcome.has_value(); }, 20'000);
    return outcome;
}

void TestClusterRouter::moveSlot(int slot, int from, int to, bool finish)
{
    const QString s = QString::number(slot);
    const QByteArray fromId = nodeId(from), toId = nodeId(to);
    QCOMPARE(m_cluster.node(to).cli({"CLUSTER", "SETSLOT", s, "IMPORTING", QString::fromUtf8(fromId)}), QByteArray("OK"));
    QCOMPARE(m_cluster.node(from).cli({"CLUSTER", "SETSLOT", s, "MIGRATING", QString::fromUtf8(toId)}), QByteArray("OK"));
    const QList<QByteArray> keys = m_cluster.node(from).cli({"CLUSTER", "GETKEYSINSLOT", s, "1000"}).split('\n');
    for (const QByteArray &key : keys)
        if (!key.trimmed().isEmpty())
            QCOMPARE(m_cluster.node(from).cli({"MIGRATE", "127.0.0.1", QString::number(m_cluster.node(to).port()),
                                               QString::fromUtf8(key.trimmed()), "0", "5000"}),
                     QByteArray("OK"));
    if (!finish)
        return;
    for (int i = 0; i < m_cluster.size(); ++i)
        if (m_cluster.node(i).isRunning())
            m_cluster.node(i).cli({"CLUSTER", "SETSLOT", s, "NODE", QString::fromUtf8(toId)});
    QVERIFY(m_cluster.waitHealthy());
}

void TestClusterRouter::readsTheSlotMap()
{
    const auto router = makeRouter();
    QCOMPARE(router->slotMap().assignedSlots(), SlotCount);
    QCOMPARE(router->slotMap().primaries().size(), 3);
    const QList<ClusterNodeStatus> nodes = router->nodes();
    QCOMPARE(nodes.size(), 6);
    int primaries = 0, online = 0;
    for (const ClusterNodeStatus &node : nodes) {
        QVERIFY(!node.node.health.isEmpty());
        primaries += node.node.primary;
        if (node.node.primary) {
            online += node.node.health == QLatin1String("online");
            QCOMPARE(node.connectionsReady, 2);
            QVERIFY(node.node.slotCount > 5000);
        }
        // Redis 7.0 says "loading" of a replica until its primary has written anything.
    }
    QCOMPARE(primaries, 3);
    QCOMPARE(online, 3);
    QCOMPARE(router->readyCount(), 6); // pools to the primaries only
}

void TestClusterRouter::readsClusterSlotsWhereShardsIsRefused()
{
    // A server before 7.0 has no CLUSTER SHARDS; here the ACL refuses it on every node. The map
    // comes from CLUSTER SLOTS then, and keys are routed by it.
    const auto setShards = [&](const char *rule) {
        for (int i = 0; i < m_cluster.size(); ++i)
            QCOMPARE(m_cluster.node(i).cli({"ACL", "SETUSER", "default", rule}), QByteArray("OK"));
    };
    setShards("-cluster|shards");
    const auto router = makeRouter();
    const bool served = router->refreshes() > 0 && router->allSlotsServed();
    const int primaries = int(router->slotMap().primaries().size());
    const QByteArray key = "brokerdesk:{slots}:meta";
    const auto set = call(*router, {"SET", key, "1"}, key);
    const QByteArray refusals = m_cluster.node(0).cli({"ACL", "LOG"});
    setShards("+cluster|shards");
    QVERIFY2(served, qPrintable(router->lastError()));
    QCOMPARE(primaries, 3);
    QVERIFY(set && set->ok() && set->value().isText("OK"));
    QCOMPARE(m_cluster.node(m_cluster.primaryFor(key)).cli({"GET", QString::fromUtf8(key)}), QByteArray("1"));
    QVERIFY2(refusals.contains("shards"), refusals.constData()); // SHARDS was asked, and refused
    QCOMPARE(router->movedRedirects(), 0);
}

void TestClusterRouter::routesEveryKeyToItsPrimary()
{
    const auto router = makeRouter();
    for (int i = 0; i < 60; ++i) {
        const QByteArray key = "brokerdesk:{q" + QByteArray::number(i) + "}:meta";
        const auto set = call(*router, {"SET", key, QByteArray::number(i)}, key);
        QVERIFY(set && set->ok());
        QVERIFY2(set->value().isText("OK"), set->value().string.constData());
        // Read without redirects from the node the cluster says serves it.
        const int primary = m_cluster.primaryFor(key);
        QVERIFY(primary >= 0);
        QCOMPARE(m_cluster.node(primary).cli({"GET", QString::fromUtf8(key)}), QByteArray::number(i));
    }
    QCOMPARE(router->movedRedirects(), 0);
    QCOMPARE(router->askRedirects(), 0);
}

void TestClusterRouter::followsMovedAfterASlotMoved()
{
    const auto router = makeRouter();
    const QByteArray key = "brokerdesk:{moving}:meta";
    QVERIFY(call(*router, {"SET", key, "before"}, key)->ok());
    const int slot = hashSlot(key);
    const int from = m_cluster.primaryFor(key);
    const int to = otherPrimary(from);
    QVERIFY(to >= 0);
    moveSlot(slot, from, to, true);

    // The router still has the old map: the old primary answers MOVED, the command goes on.
    const auto read = call(*router, {"GET", key}, key);
    QVERIFY(read && read->ok());
    QCOMPARE(read->value().string, QByteArray("before"));
    QVERIFY(router->movedRedirects() >= 1);
    QCOMPARE(router->slotMap().primaryOf(slot)->port, int(m_cluster.node(to).port()));
    // The next one goes straight there.
    const qint64 moved = router->movedRedirects();
    QVERIFY(call(*router, {"SET", key, "after"}, key)->ok());
    QCOMPARE(router->movedRedirects(), moved);
    QCOMPARE(m_cluster.node(to).cli({"GET", QString::fromUtf8(key)}), QByteArray("after"));
    moveSlot(slot, to, from, true); // as it was, for the other cases
}

void TestClusterRouter::readsTheMapPeriodicallyAndAfterRedirectsAtMostOncePerGap()
{
    // Idle, the map is read every refreshIntervalMs.
    ClusterOptions often;
    often.refreshIntervalMs = 300;
    const auto idle = makeRouter(often);
    const qint64 idleFirst = idle->refreshes();
    QTest::qWait(1'500);
    QVERIFY2(idle->refreshes() - idleFirst >= 3, qPrintable(QString::number(idle->refreshes() - idleFirst)));

    // Redirects one after another within the gap after a read of the map (the one the router made
    // at start): none reads it again at once, and one read follows at the gap's end. Each slot
    // moves just before its key is asked for, so that every call meets a MOVED.
    // Keys found first (each lookup starts redis-cli processes): the gap is for the redirects.
    QList<QByteArray> keys;
    for (int i = 0; keys.size() < 4 && i < 100; ++i) {
        const QByteArray key = "brokerdesk:{gap" + QByteArray::number(i) + "}:meta";
        const bool slotTaken = std::any_of(keys.cbegin(), keys.cend(), [&](const QByteArray &k) { return hashSlot(k) == hashSlot(key); });
        if (!slotTaken && m_cluster.primaryFor(key) == m_cluster.primaryFor(keys.value(0, key)))
            keys.append(key);
    }
    QCOMPARE(keys.size(), 4);
    const int from = m_cluster.primaryFor(keys.first());
    const int to = otherPrimary(from);
    ClusterOptions gapped;
    gapped.refreshIntervalMs = 600'000;
    gapped.minRefreshGapMs = 10'000;
    QElapsedTimer sinceRead;
    sinceRead.start();
    const auto router = makeRouter(gapped);
    for (const QByteArray &key : keys)
        QVERIFY(call(*router, {"SET", key, "1"}, key)->ok());
    const qint64 before = router->refreshes();
    qint64 readsMeanwhile = 0;
    for (const QByteArray &key : keys) {
        moveSlot(hashSlot(key), from, to, true);
        const qint64 moved = router->movedRedirects();
        QVERIFY(call(*router, {"GET", key}, key)->ok());
        QCOMPARE(router->movedRedirects(), moved + 1);
        readsMeanwhile = std::max(readsMeanwhile, router->refreshes() - before);
    }
    const qint64 sequenceMs = sinceRead.elapsed();
    for (const QByteArray &key : keys)
        moveSlot(hashSlot(key), to, from, true); // as it was, for the other cases
    QVERIFY2(sequenceMs < gapped.minRefreshGapMs, qPrintable(QString::number(sequenceMs)));
    QCOMPARE(readsMeanwhile, qint64(0));
    QVERIFY(waitUntil([&] { return router->refreshes() > before; }, gapped.minRefreshGapMs + 2'000));
    QTest::qWait(300);
    QCOMPARE(router->refreshes(), before + 1);
}

void TestClusterRouter::followsAskWhileASlotMoves()
{
    const auto router = makeRouter();
    const QByteArray key = "brokerdesk:{asking}:meta";
    QVERIFY(call(*router, {"SET", key, "value"}, key)->ok());
    const int slot = hashSlot(key);
    const int from = m_cluster.primaryFor(key);
    const int to = otherPrimary(from);
    QVERIFY(to >= 0);
    moveSlot(slot, from, to, false);

    // The key has left the old primary, which still owns the slot: it answers ASK.
    const auto read = call(*router, {"GET", key}, key);
    QVERIFY(read && read->ok());
    QCOMPARE(read->value().string, QByteArray("value"));
    QVERIFY(router->askRedirects() >= 1);
    QCOMPARE(router->slotMap().primaryOf(slot)->port, int(m_cluster.node(from).port())); // map unchanged

    // Finish the move; MOVED from now on.
    for (int i = 0; i < m_cluster.size(); ++i)
        m_cluster.node(i).cli({"CLUSTER", "SETSLOT", QString::number(slot), "NODE", QString::fromUtf8(nodeId(to))});
    QVERIFY(m_cluster.waitHealthy());
    QCOMPARE(call(*router, {"GET", key}, key)->value().string, QByteArray("value"));
    moveSlot(slot, to, from, true);
}

void TestClusterRouter::loadsScriptsOnEachNode()
{
    const auto router = makeRouter();
    ScriptRunner scripts(*router);
    const Script script = incrementScript();
    // Keys on each of the three primaries: each loads the script on first use, once.
    QSet<int> primaries;
    QList<QByteArray> keys;
    for (int i = 0; primaries.size() < 3 && i < 200; ++i) {
        const QByteArray key = "brokerdesk:{s" + QByteArray::number(i) + "}:meta";
        if (!primaries.contains(m_cluster.primaryFor(key))) {
            primaries.insert(m_cluster.primaryFor(key));
            keys << key;
        }
    }
    QCOMPARE(keys.size(), 3);
    for (int round = 0; round < 2; ++round)
        for (const QByteArray &key : keys) {
            std::optional<CommandResult> outcome;
            scripts.run(script, {key}, {"5"}, [&](CommandResult r) { outcome = std::move(r); });
            QVERIFY(waitUntil([&] { return outcome.has_value(); }));
            QVERIFY(outcome->ok());
            QCOMPARE(outcome->value().integer, 5 * (round + 1));
        }
    QCOMPARE(scripts.reloads(), 3);
}

void TestClusterRouter::aFunctionAskedOfANodeWithoutItRunsByEval()
{
    const auto router = makeRouter();
    ScriptRunner scripts(*router);
    Script script = incrementScript();
    script.function = "asktest_incr";
    auto library = std::make_shared<FunctionLibrary>();
    library->name = "asktest";
    library->source = "#!lua name=asktest\nredis.register_function('asktest_incr', function(keys, args) "
                      "return redis.call('INCRBY', keys[1], args[1]) end)";
    script.library = library;
    const auto run = [&](const QByteArray &key) {
        std::optional<CommandResult> outcome;
        scripts.run(script, {key}, {"5"}, [&](CommandResult r) { outcome = std::move(r); });
        waitUntil([&] { return outcome.has_value(); }, 20'000);
        return outcome;
    };
    const QByteArray key = "brokerdesk:{askfn}:meta";
    const int slot = hashSlot(key);
    const int from = m_cluster.primaryFor(key);
    const int to = otherPrimary(from);
    QVERIFY(to >= 0);
    for (int i = 0; i < m_cluster.size(); ++i)
        m_cluster.node(i).cli({"FUNCTION", "FLUSH"});
    QCOMPARE(run(key)->value().integer, 5); // loaded on `from` alone
    moveSlot(slot, from, to, false);

    // The call is asked of `to`, which has no library; FUNCTION LOAD names no key and goes to
    // `from`, which has it. The call must not fail for that, nor give functions up.
    const auto asked = run(key);
    QVERIFY(asked.has_value());
    QVERIFY2(asked->ok() && !asked->value().isError(),
             asked->ok() ? asked->value().string.constData() : qPrintable(asked->error().message));
    QCOMPARE(asked->value().integer, 10);
    QVERIFY(router->askRedirects() >= 1);
    QCOMPARE(scripts.functions(), ScriptRunner::Functions::InUse);

    for (int i = 0; i < m_cluster.size(); ++i)
        m_cluster.node(i).cli({"CLUSTER", "SETSLOT", QString::number(slot), "NODE", QString::fromUtf8(nodeId(to))});
    QVERIFY(m_cluster.waitHealthy());
    moveSlot(slot, to, from, true);
}

void TestClusterRouter::writesWaitForReplicas()
{
    const auto router = makeRouter();
    ScriptRunner scripts(*router);
    scripts.setReplicaWait(ReplicaWait{1, 300});
    Script script;
    script.name = QStringLiteral("set");
    script.source = "return redis.call('INCR', KEYS[1])";
    script.sha1 = QCryptographicHash::hash(script.source, QCryptographicHash::Sha1).toHex();
    const QByteArray key = "brokerdesk:{replicated}:meta";
    const auto runScript = [&](bool write) {
        std::optional<CommandResult> outcome;
        scripts.run(script, {key}, {}, [&](CommandResult r) { outcome = std::move(r); }, write);
        waitUntil([&] { return outcome.has_value(); }, 5000);
        return outcome;
    };
    const auto first = runScript(true);
    QVERIFY(first && first->ok());
    QCOMPARE(first->value().integer, 1); // the reload (NOSCRIPT, then EVAL) was waited for too

    const int primary = m_cluster.primaryFor(key);
    const int replica = m_cluster.replicaOf(primary);
    QVERIFY(replica >= 0);
    m_cluster.node(replica).pause();
    QElapsedTimer timer;
    timer.start();
    const auto unreplicated = runScript(true);
    QVERIFY(unreplicated && unreplicated->ok());
    QVERIFY(unreplicated->value().isError());
    QCOMPARE(unreplicated->value().errorCode(), QByteArray("NOREPLICAS"));
    QVERIFY(timer.elapsed() >= 250);
    QCOMPARE(scripts.unreplicated(), 1);
    // Calls not marked as writes are not waited for; the primary has the write all the same.
    const auto read = runScript(false);
    QVERIFY(read && read->ok());
    QCOMPARE(read->value().integer, 3);
    m_cluster.node(replica).resume();
    const auto again = runScript(true);
    QVERIFY(again && again->ok());
    QCOMPARE(again->value().integer, 4);
}

void TestClusterRouter::survivesAPrimaryKilled()
{
    const auto router = makeRouter();
    const QByteArray key = "brokerdesk:{failover}:meta";
    QVERIFY(call(*router, {"SET", key, "1"}, key)->ok());
    const int victim = m_cluster.primaryFor(key);
    QVERIFY(victim >= 0);
    // The replica must have the key before the primary dies (replication is asynchronous).
    QCOMPARE(m_cluster.node(victim).cli({"WAIT", "1", "2000"}), QByteArray("1"));
    QVERIFY(router->allSlotsServed());
    QElapsedTimer timer;
    timer.start();
    m_cluster.node(victim).kill();
    QVERIFY(waitUntil([&] { return !router->allSlotsServed(); }, 5000));
    // Keyed commands that find no connection are retried after refreshes until the replica is
    // promoted; one that was sent when the node died may fail (it may have run).
    qint64 firstSuccessMs = -1;
    while (timer.elapsed() < 15'000 && firstSuccessMs < 0) {
        const auto read = call(*router, {"GET", key}, key);
        if (read && read->ok() && read->value().string == "1")
            firstSuccessMs = timer.elapsed();
    }
    qInfo("reads of the killed primary's slot answered again after %lld ms (node timeout %d ms)", firstSuccessMs,
          RedisCluster::NodeTimeoutMs);
    QVERIFY(firstSuccessMs >= 0);
    QVERIFY(firstSuccessMs <= RedisCluster::NodeTimeoutMs + 3000 + 2000);
    QVERIFY(waitUntil([&] { return router->slotMap().primaryOf(hashSlot(key))->port != m_cluster.node(victim).port(); }));
    QVERIFY(waitUntil([&] { return router->allSlotsServed(); }, 5000));
    QCOMPARE(router->slotMap().servingPrimaries().size(), 3);
    // The old primary comes back as a replica of the new one.
    QVERIFY(m_cluster.node(victim).restart());
    QVERIFY(m_cluster.waitHealthy(30'000));
}

// A slot half-moved for longer than the router retries: TRYAGAIN again and again, then the last
// reply is the answer, after retryForMs and not before.
void TestClusterRouter::tryAgainGivesUpAfterItsTime()
{
    const QByteArray present = "{stuck}a", missing = "{stuck}missing";
    const int slot = hashSlot(present);
    const int from = m_cluster.primaryForSlot(slot);
    const int to = otherPrimary(from);
    ClusterOptions options;
    options.retryForMs = 600;
    const auto router = makeRouter(options);
    QVERIFY(call(*router, {"SET", present, "1"}, present)->ok());
    moveSlot(slot, from, to, false); // the key is on `to`; the slot still `from`'s
    QElapsedTimer timer;
    timer.start();
    const auto answer = call(*router, {"MGET", present, missing}, present);
    const qint64 tookMs = timer.elapsed();
    QVERIFY(answer.has_value() && answer->ok());
    QCOMPARE(answer->value().errorCode(), QByteArray("TRYAGAIN"));
    QVERIFY2(tookMs >= 300 && tookMs < 3'000, qPrintable(QString::number(tookMs)));
    QVERIFY(router->retries() >= 2);
    for (int i = 0; i < m_cluster.size(); ++i)
        m_cluster.node(i).cli({"CLUSTER", "SETSLOT", QString::number(slot), "NODE", QString::fromUtf8(nodeId(to))});
    QVERIFY(m_cluster.waitHealthy());
    QVERIFY(waitUntil([&] {
        const auto moved = call(*router, {"MGET", present, missing}, present);
        return moved && moved->ok() && !moved->value().isError();
    }));
}

void TestClusterRouter::stopFailsWhatWaits()
{
    ClusterOptions cluster;
    cluster.seeds = {NodeAddress{QStringLiteral("127.0.0.1"), freeLoopbackPort()}}; // nobody there
    cluster.retry = RetryPolicy{500, 2.0, 1000, 10};
    const auto router = std::make_unique<ClusterRouter>(ConnectionOptions{}, PoolOptions{}, cluster);
    router->start();
    std::optional<CommandResult> outcome;
    router->command({"GET", "k"}, [&](CommandResult r) { outcome = std::move(r); }, "k");
    QVERIFY(waitUntil([&] { return router->commandsInFlight() == 1 && router->retries() >= 1; }, 5000));
    router->stop();
    QVERIFY(outcome.has_value());
    QVERIFY(!outcome->ok());
    QCOMPARE(outcome->error().code, ErrorCode::Unavailable);
    QCOMPARE(router->commandsInFlight(), 0);
}

QTEST_GUILESS_MAIN(TestClusterRouter)
#include "tst_clusterrouter.moc"
