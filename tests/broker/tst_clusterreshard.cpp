// SPDX-License-Identifier: GPL-3.0-or-later
// A busy queue's slot moved to another primary under load, as `redis-cli --cluster reshard` moves
// it (SETSLOT IMPORTING / MIGRATING, MIGRATE key by key, SETSLOT NODE), with the brokers' load
// running between every step: the queue's scripts meet the slot half-moved (ASK, TRYAGAIN) and
// then moved (MOVED). No error reaches a client, nothing is lost or delivered twice, and every
// MIGRATE succeeds (a script that wrote a key the target already has would make it fail).
#include "../support/awaitresult.h"
#include "../support/clusterload.h"

#include <QTest>

#include <memory>

using namespace Broker;
using namespace Broker::Testing;

namespace {

constexpr qint64 VisibilityMs = 4'000;

} // namespace

class TestClusterReshard : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void busyQueueMovedUnderLoad_data();
    void busyQueueMovedUnderLoad();
};

void TestClusterReshard::busyQueueMovedUnderLoad_data()
{
    QTest::addColumn<QString>("type");
    QTest::addRow("list") << "list";
    QTest::addRow("priority") << "priority";
    QTest::addRow("stream") << "stream";
}

void TestClusterReshard::busyQueueMovedUnderLoad()
{
    QFETCH(QString, type);
    RedisCluster cluster;
    QVERIFY2(cluster.start(), qPrintable(cluster.errorString()));
    const QString queue = QStringLiteral("busy");
    const int from = cluster.primaryFor(queue.toUtf8());
    int to = -1;
    for (int i = 0; i < cluster.size() && to < 0; ++i)
        if (i != from && cluster.node(i).cli({QStringLiteral("ROLE")}).startsWith("master"))
            to = i;
    QVERIFY(from >= 0 && to >= 0);

    QueueTypeRegistry types;
    SystemClock clock;
    const auto brokers = threeBrokers(clusterStoreOptions(cluster, 2), types, clock);
    QVERIFY(brokers.front()->store.cluster()->allSlotsServed());
    QueueConfig config;
    config.type = type;
    config.visibilityTimeoutSeconds = int(VisibilityMs / 1000);
    QVERIFY(awaitResult<QueueInfo>([&](auto done) { brokers[0]->broker.createQueue(queue, config, done); }).ok());

    Ledger ledger(VisibilityMs);
    const auto loads = startLoads(brokers, queue, ledger);
    QTest::qWait(1'000);

    // The move, one key at a time, the load running between steps.
    const QString slot = cluster.node(from).cli({QStringLiteral("CLUSTER"), QStringLiteral("KEYSLOT"), queue});
    const QString fromId = QString::fromUtf8(cluster.node(from).cli({QStringLiteral("CLUSTER"), QStringLiteral("MYID")}));
    const QString toId = QString::fromUtf8(cluster.node(to).cli({QStringLiteral("CLUSTER"), QStringLiteral("MYID")}));
    QCOMPARE(cluster.node(to).cli({"CLUSTER", "SETSLOT", slot, "IMPORTING", fromId}), QByteArray("OK"));
    QCOMPARE(cluster.node(from).cli({"CLUSTER", "SETSLOT", slot, "MIGRATING", toId}), QByteArray("OK"));
    QTest::qWait(200);
    int moved = 0;
    for (int round = 0; round < 200; ++round) {
        const QByteArray keys = cluster.node(from).cli({"CLUSTER", "GETKEYSINSLOT", slot, "1"}).trimmed();
        if (keys.isEmpty())
            break;
        const QByteArray answer = cluster.node(from).cli(
            {"MIGRATE", "127.0.0.1", QString::number(cluster.node(to).port()), QString::fromUtf8(keys), "0", "5000"});
        QVERIFY2(answer == "OK" || answer == "NOKEY", answer.constData());
        moved += answer == "OK" ? 1 : 0;
        QTest::qWait(100);
    }
    for (int i = 0; i < cluster.size(); ++i)
        cluster.node(i).cli({"CLUSTER", "SETSLOT", slot, "NODE", toId});
    QVERIFY(cluster.waitHealthy());
    QTest::qWait(1'500);
    drain(loads, ledger);

    qint64 asked = 0, movedRedirects = 0;
    // What /health and /metrics show per node (StoreStatus): the moved-away slot's old primary
    // sent the commands on, and the nodes' counts add up to the router's.
    const QString fromAddress = QStringLiteral("127.0.0.1:%1").arg(cluster.node(from).port());
    qint64 movedByFrom = 0, movedByNodes = 0;
    for (const auto &on : brokers) {
        asked += on->store.cluster()->askRedirects();
        movedRedirects += on->store.cluster()->movedRedirects();
        for (const StoreNodeStatus &node : on->store.status().nodes) {
            movedByNodes += node.movedRedirects;
            movedByFrom += node.address == fromAddress ? node.movedRedirects : 0;
        }
    }
    qInfo("%s queue: %d keys migrated; %lld publishes acknowledged, %lld failed; %lld deliveries; lost %lld; "
          "double leases %lld; acked and delivered again %lld; ack answered by no one %lld; consume failures %lld, ack failures %lld (%s); "
          "ASK %lld, MOVED %lld",
          qPrintable(type), moved, qint64(ledger.acknowledgedPublishes.size()), ledger.publishFailures,
          ledger.deliveries, ledger.lost(), ledger.doubleLeases, ledger.redeliveredAfterAck, ledger.ackOutcomeUnknown(), ledger.consumeFailures,
          ledger.ackFailures, qPrintable(ledger.failureReport()), asked, movedRedirects);
    QVERIFY(moved > 0);
    QCOMPARE(cluster.primaryFor(queue.toUtf8()), to);
    QCOMPARE(ledger.publishFailures, 0);
    QCOMPARE(ledger.consumeFailures, 0);
    QCOMPARE(ledger.ackFailures, 0);
    QCOMPARE(ledger.lost(), 0);
    QCOMPARE(ledger.doubleLeases, 0);
    QCOMPARE(ledger.redeliveredAfterAck, 0);
    QVERIFY(movedRedirects > 0);
    QCOMPARE(movedByNodes, movedRedirects);
    QVERIFY(movedByFrom > 0);
}

QTEST_GUILESS_MAIN(TestClusterReshard)
#include "tst_clusterreshard.moc"
