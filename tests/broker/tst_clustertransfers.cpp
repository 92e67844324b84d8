// SPDX-License-Identifier: GPL-3.0-or-later
// Transfers between slots on a real 6-node Redis Cluster when things fail: the dead-letter
// queue's node stops answering between the two steps (the message waits in the outbox and the
// reaper hands it over later), and a hand-over repeated after a crash is taken once.
#include "storage/redisstore.h"

#include "engine/queuetyperegistry.h"

#include "../support/awaitresult.h"
#include "../support/rediscluster.h"

#include <QTest>

using namespace Broker;
using namespace Broker::Testing;

class TestClusterTransfers : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void aTargetOutOfReachGetsItLaterAndOnce();

private:
    RedisCluster m_cluster;
};

void TestClusterTransfers::initTestCase()
{
    QVERIFY2(m_cluster.start(), qPrintable(m_cluster.errorString()));
}

void TestClusterTransfers::aTargetOutOfReachGetsItLaterAndOnce()
{
    const QString origin = QStringLiteral("origin");
    const int originNode = m_cluster.primaryFor(origin.toUtf8());
    // A dead-letter queue on another primary than its origin's.
    QString dlq;
    for (int i = 0; dlq.isEmpty() && i < 100; ++i)
        if (m_cluster.primaryFor("dlq" + QByteArray::number(i)) != originNode)
            dlq = QStringLiteral("dlq%1").arg(i);
    const int dlqNode = m_cluster.primaryFor(dlq.toUtf8());
    QVERIFY(dlqNode >= 0);

    RedisStoreOptions options;
    options.cluster.emplace();
    for (int i = 0; i < m_cluster.size(); ++i)
        options.cluster->seeds.append(Redis::NodeAddress{QStringLiteral("127.0.0.1"), m_cluster.node(i).port()});
    options.connection.commandTimeoutMs = 300;
    options.connection.connectTimeoutMs = 300;
    options.pool.size = 1;
    options.pool.reconnect = RetryPolicy{20, 2.0, 100, 0};
    options.breaker.failureThreshold = 1000; // this test is about the transfers, not the breaker
    QueueTypeRegistry types;
    SystemClock clock;
    RedisStore store(options, types, clock);
    store.start();
    QVERIFY(waitUntil([&] { return store.cluster()->refreshes() > 0 && store.cluster()->allSlotsServed(); }));

    QueueConfig config;
    config.maxDeliveries = 1;
    config.deadLetterQueue = dlq;
    QVERIFY(awaitResult<QueueInfo>([&](auto d) { store.createQueue(dlq, QueueConfig{}, d); }).ok());
    QVERIFY(awaitResult<QueueInfo>([&](auto d) { store.createQueue(origin, config, d); }).ok());
    NewMessage message;
    message.data = "\"lost?\"";
    QVERIFY(awaitResult<PublishResult>([&](auto d) { store.publish(origin, {message}, {}, d); }).ok());
    ConsumeRequest lease;
    lease.acknowledge = false;
    const Result<QList<Message>> leased = awaitResult<QList<Message>>([&](auto d) { store.consume(origin, lease, d); });
    QVERIFY(leased.ok() && leased->size() == 1);

    // The dead-letter queue's node stops answering: the nack dead-letters into the outbox (the
    // origin's own slot) and is answered; the hand-over waits.
    const QString outbox = QStringLiteral("brokerdesk:{%1}:outbox").arg(origin);
    m_cluster.node(dlqNode).pause();
    const Result<NackResult> nacked = awaitResult<NackResult>(
        [&](auto d) { store.nack(origin, MessageRef{leased->first().id, leased->first().receipt, {}, {}}, 0, d); });
    const QByteArray waiting = m_cluster.node(originNode).cli({QStringLiteral("LRANGE"), outbox, "0", "-1"});
    m_cluster.node(dlqNode).resume();
    QVERIFY2(nacked.ok(), nacked ? "" : qPrintable(nacked.error().message));
    QVERIFY(nacked->deadLettered);
    QVERIFY2(waiting.contains("lost?"), waiting.constData()); // in the outbox while the target was out of reach

    // The reaper hands it over once the node answers again.
    const auto depth = [&] {
        const Result<QueueInfo> info = awaitResult<QueueInfo>([&](auto d) { store.queueInfo(dlq, d); });
        return info ? info->depth : -1;
    };
    // A pass may fail while the pool reconnects to the node: the next one goes on.
    const auto reap = [&] { (void)awaitResult<qint64>([&](auto d) { store.runMaintenance(d); }); };
    QVERIFY(waitUntil([&] {
        reap();
        return depth() == 1;
    }, 15'000));
    QCOMPARE(m_cluster.node(originNode).cli({QStringLiteral("LLEN"), outbox}), QByteArray("0"));

    // A crash between taking and removing: the same entry is handed over again, and taken once.
    m_cluster.node(originNode).cli({QStringLiteral("RPUSH"), outbox, QString::fromUtf8(waiting.trimmed())});
    QCOMPARE(m_cluster.node(originNode).cli({QStringLiteral("LLEN"), outbox}), QByteArray("1"));
    QVERIFY(waitUntil([&] {
        reap();
        return m_cluster.node(originNode).cli({QStringLiteral("LLEN"), outbox}) == "0";
    }, 10'000));
    QCOMPARE(depth(), 1);
    QCOMPARE(store.health(), HealthStatus::Healthy);
}

QTEST_GUILESS_MAIN(TestClusterTransfers)
#include "tst_clustertransfers.moc"
