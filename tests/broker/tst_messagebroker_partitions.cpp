// SPDX-License-Identifier: GPL-3.0-or-later
// Partitioned queues (QueueConfig::partitions, PartitionedStore): one logical queue stored as
// several, keyed order, fairness, leases routed to their partition, growth, dead letters and
// long polls. On the memory store, and on Redis and a Redis Cluster (BROKER_TEST_STORE).
#include "enginefixture.h"

#include "engine/partitionedstore.h"
#include "engine/partitioning.h"
#include "redis/hashslot.h"

#include <QSet>
#include <QTest>

using namespace Broker;
using namespace Broker::Testing;

namespace {

const QString Orders = QStringLiteral("orders");

Result<PublishResult> publishKeyed(EngineFixture &f, const QString &queue, const QString &key, const QList<QByteArray> &payloads)
{
    QList<NewMessage> messages;
    for (const QByteArray &payload : payloads) {
        NewMessage message;
        message.data = payload;
        message.key = key;
        messages.append(message);
    }
    Captured<PublishResult> c;
    f.broker.publish(queue, messages, QStringLiteral("alice"), c.sink());
    return c.take();
}

QList<qint64> partitionDepths(const QueueInfo &info)
{
    QList<qint64> depths;
    for (const PartitionInfo &partition : info.partitions)
        depths.append(partition.depth);
    return depths;
}

// Two keys that land in different partitions of `partitions`.
std::pair<QString, QString> keysApart(int partitions)
{
    const QString first = QStringLiteral("key-0");
    for (int i = 1;; ++i) {
        const QString other = QStringLiteral("key-%1").arg(i);
        if (Partitioning::partitionOf(other, partitions) != Partitioning::partitionOf(first, partitions))
            return {first, other};
    }
}

// Two brokers on one store (as on one Redis): each PartitionedStore keeps its own idea of the
// partition count, and the clock stands still, so B goes on using the count it read.
struct TwoBrokers
{
    ManualClock clock;
    QueueTypeRegistry types;
    std::unique_ptr<QueueStore> inner = makeTestStore(types, clock);
    PartitionedStore a{*inner, clock};
    PartitionedStore b{*inner, clock};
};

template<typename T, typename Call>
Result<T> await(Call call)
{
    Captured<T> captured;
    call(captured.sink());
    return captured.take();
}

QueueConfig partitioned(int partitions, const QString &type = QStringLiteral("list"))
{
    QueueConfig config;
    config.type = type;
    config.partitions = partitions;
    return config;
}

Result<PublishResult> publishTo(PartitionedStore &store, const QString &queue, const QByteArray &data, const QString &key = {})
{
    NewMessage message;
    message.data = data;
    message.key = key;
    return await<PublishResult>([&](auto done) { store.publish(queue, {message}, QStringLiteral("alice"), done); });
}

} // namespace

class TestMessageBrokerPartitions : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void jumpHashMovesTheLeastKeys();
    void namesAndReceipts();
    void partitionsSpreadOverTheClusterSlots();
    void aPartitionedQueueIsOneQueue();
    void oneKeyKeepsItsOrder();
    void publishesWithoutAKeyTakeThePartitionsInTurn();
    void noPartitionStarves();
    void leasesAreSettledInTheirPartition();
    void anAckWithoutReceiptFindsItsPartition();
    void partitionsOnlyGrow();
    void aBatchGoesToOnePartitionWhole();
    void browsingWalksThePartitions();
    void purgeAndDeleteTakeEveryPartition();
    void deadLettersNameTheQueue();
    void aLongPollIsWokenByAnyPartition();
    void aMissingPartitionIsMadeAgain();
    void anOldCountNeverShrinksTheQueue();
    void anOldCountNeverMakesAPartitionAgain();
    void aReceiptOfANewPartitionIsSettled();
    void aNewQueueDoesNotTakeOverLeftoverPartitions();
    void aPartitionAPublishMadeDuringTheCreateIsKept();
    void aGrowMakesTheGroupsOnTheNewPartitions();
    void everyGroupSeesWhatWasPublishedAfterItsFirstRead();
};

void TestMessageBrokerPartitions::jumpHashMovesTheLeastKeys()
{
    constexpr int Keys = 10000;
    QList<int> perPartition(5, 0);
    int moved = 0;
    for (int i = 0; i < Keys; ++i) {
        const QString key = QStringLiteral("customer-%1").arg(i);
        const int before = Partitioning::partitionOf(key, 4);
        const int after = Partitioning::partitionOf(key, 5);
        QVERIFY(before >= 0 && before < 4);
        QCOMPARE(Partitioning::partitionOf(key, 4), before); // the same every time
        if (after != before) {
            QCOMPARE(after, 4); // a key that moves goes to the new partition, never between old ones
            ++moved;
        }
        ++perPartition[after];
    }
    // One key in five moves (2,000 expected); each partition holds about a fifth.
    QVERIFY2(moved > 1800 && moved < 2200, qPrintable(QString::number(moved)));
    for (int count : perPartition)
        QVERIFY2(count > 1800 && count < 2200, qPrintable(QString::number(count)));
    QCOMPARE(Partitioning::partitionOf(QStringLiteral("anything"), 1), 0);
}

void TestMessageBrokerPartitions::namesAndReceipts()
{
    QCOMPARE(Partitioning::storeQueue(Orders, 0), Orders);
    QCOMPARE(Partitioning::storeQueue(Orders, 3), QStringLiteral("orders~3"));
    QCOMPARE(Partitioning::split(QStringLiteral("orders~3")).queue, Orders);
    QCOMPARE(Partitioning::split(QStringLiteral("orders~3")).partition, 3);
    QCOMPARE(Partitioning::split(Orders).partition, 0);
    QCOMPARE(Partitioning::split(QStringLiteral("a~03")).partition, 0); // not a partition's name
    QCOMPARE(Partitioning::split(QStringLiteral("a~")).partition, 0);
    QCOMPARE(Partitioning::receiptWithPartition(QStringLiteral("00ff"), 0), QStringLiteral("00ff"));
    QCOMPARE(Partitioning::receiptWithPartition(QStringLiteral("00ff"), 12), QStringLiteral("00ff.12"));
    QCOMPARE(Partitioning::splitReceipt(QStringLiteral("00ff.12")), std::pair(QStringLiteral("00ff"), 12));
    QCOMPARE(Partitioning::splitReceipt(QStringLiteral("00ff")), std::pair(QStringLiteral("00ff"), 0));
}

void TestMessageBrokerPartitions::partitionsSpreadOverTheClusterSlots()
{
    // Each partition has a hash tag of its own: 8 partitions of one queue fall in all three slot
    // ranges of a 3-primary cluster made by redis-cli (0-5460, 5461-10922, 10923-16383).
    QSet<int> ranges;
    for (int p = 0; p < 8; ++p) {
        const QByteArray key = "bd:{" + Partitioning::storeQueue(Orders, p).toUtf8() + "}:meta";
        ranges.insert(Redis::hashSlot(key) * 3 / 16384);
    }
    QCOMPARE(ranges.size(), 3);
}

void TestMessageBrokerPartitions::aPartitionedQueueIsOneQueue()
{
    EngineFixture f;
    const Result<QueueInfo> created = f.create(Orders, jsonObject(R"({"partitions": 4})"));
    QVERIFY2(created.ok(), qPrintable(created.ok() ? QString() : created.error().message));
    QCOMPARE(created->config.partitions, 4);
    QCOMPARE(created->partitions.size(), 4);
    QCOMPARE(created->config.toJson().value(u"partitions").toInt(), 4);

    Captured<QList<QueueInfo>> listed;
    f.broker.listQueues(listed.sink());
    const QList<QueueInfo> queues = *listed.take();
    QCOMPARE(queues.size(), 1);
    QCOMPARE(queues.first().name, Orders);
    QCOMPARE(queues.first().partitions.size(), 4);
    // The store holds the partitions as queues of their own.
    Captured<QList<QueueInfo>> stored;
    f.store->listQueues(stored.sink());
    QCOMPARE(stored.take()->size(), 4);

    QVERIFY(!f.create(QStringLiteral("q"), jsonObject(R"({"partitions": 65})")).ok());
    QVERIFY(!f.create(QStringLiteral("q"), jsonObject(R"({"partitions": 0})")).ok());
    QVERIFY(f.create(QStringLiteral("plain")).ok());
    QVERIFY(f.info(QStringLiteral("plain"))->partitions.isEmpty());
    QVERIFY(!f.info(QStringLiteral("plain"))->config.toJson().contains(u"partitions")); // reads as gCore's
}

void TestMessageBrokerPartitions::oneKeyKeepsItsOrder()
{
    EngineFixture f;
    QVERIFY(f.create(Orders, jsonObject(R"({"partitions": 4})")).ok());
    const QStringList keys{QStringLiteral("alice"), QStringLiteral("bob"), QStringLiteral("carol"),
                           QStringLiteral("dave"), QStringLiteral("erin"), QStringLiteral("frank")};
    for (int round = 0; round < 10; ++round) {
        for (const QString &key : keys)
            QVERIFY(publishKeyed(f, Orders, key, {QStringLiteral("\"%1-%2\"").arg(key).arg(round).toUtf8()}).ok());
    }
    const QueueInfo info = *f.info(Orders);
    QCOMPARE(info.depth, 60);
    int used = 0;
    for (const qint64 depth : partitionDepths(info)) {
        QCOMPARE(depth % 10, 0); // a key's ten messages share one partition
        used += depth > 0;
    }
    QVERIFY(used >= 2);

    QHash<QString, int> next;
    for (int i = 0; i < 60; ++i) {
        const QList<Message> got = *f.consume(Orders);
        QCOMPARE(got.size(), 1);
        QCOMPARE(got.first().queue, Orders);
        const QString text = QString::fromUtf8(got.first().data).remove(u'"');
        const QString key = text.section(u'-', 0, 0);
        QCOMPARE(text.section(u'-', 1).toInt(), next[key]++);
    }
    QVERIFY(f.consume(Orders)->isEmpty());
}

void TestMessageBrokerPartitions::publishesWithoutAKeyTakeThePartitionsInTurn()
{
    EngineFixture f;
    QVERIFY(f.create(Orders, jsonObject(R"({"partitions": 4})")).ok());
    for (int i = 0; i < 8; ++i)
        QVERIFY(f.publish(Orders, numbers(i, i)).ok());
    QCOMPARE(partitionDepths(*f.info(Orders)), QList<qint64>({2, 2, 2, 2}));
}

void TestMessageBrokerPartitions::noPartitionStarves()
{
    EngineFixture f;
    QVERIFY(f.create(Orders, jsonObject(R"({"partitions": 4})")).ok());
    const auto [busy, quiet] = keysApart(4);
    QList<QByteArray> many;
    for (int i = 0; i < 100; ++i)
        many.append("\"busy\"");
    QVERIFY(publishKeyed(f, Orders, busy, many).ok());
    QVERIFY(publishKeyed(f, Orders, quiet, {"\"quiet\"", "\"quiet\"", "\"quiet\""}).ok());
    // Each consume starts at the next partition: the quiet one is first every fourth time at least.
    int quietSeen = 0;
    for (int i = 0; i < 12; ++i) {
        const QList<Message> got = *f.consume(Orders);
        QCOMPARE(got.size(), 1);
        quietSeen += got.first().data == "\"quiet\"";
    }
    QCOMPARE(quietSeen, 3);
    // Several at once are taken across the partitions.
    QVERIFY(f.create(QStringLiteral("mixed"), jsonObject(R"({"partitions": 3})")).ok());
    for (int i = 0; i < 6; ++i)
        QVERIFY(f.publish(QStringLiteral("mixed"), numbers(i, i)).ok());
    QCOMPARE(f.consume(QStringLiteral("mixed"), 6)->size(), 6);
}

void TestMessageBrokerPartitions::leasesAreSettledInTheirPartition()
{
    EngineFixture f;
    QVERIFY(f.create(Orders, jsonObject(R"({"partitions": 3, "visibility_timeout": 30})")).ok());
    for (int i = 0; i < 3; ++i)
        QVERIFY(f.publish(Orders, numbers(i, i)).ok());
    const QList<Message> leased = *f.consume(Orders, 3, false);
    QCOMPARE(leased.size(), 3);
    QSet<QString> receipts;
    for (const Message &m : leased)
        receipts.insert(m.receipt);
    QCOMPARE(receipts.size(), 3);
    QCOMPARE(f.info(Orders)->inFlight, 3);

    QVERIFY(f.extend(Orders, leased[0].id, leased[0].receipt, 60'000).ok());
    QVERIFY(f.ack(Orders, leased[0].id, leased[0].receipt).ok());
    const Result<NackResult> nacked = f.nack(Orders, leased[1].id, leased[1].receipt);
    QVERIFY(nacked.ok() && nacked->requeued);
    // A receipt naming another partition, or none of the queue's, is refused and changes nothing.
    const auto [receipt, partition] = Partitioning::splitReceipt(leased[2].receipt);
    const QString elsewhere = Partitioning::receiptWithPartition(receipt, (partition + 1) % 3);
    QVERIFY(!f.ack(Orders, leased[2].id, elsewhere).ok());
    QCOMPARE(f.ack(Orders, leased[2].id, receipt + QStringLiteral(".9")).error().code, ErrorCode::StaleReceipt);
    QVERIFY(f.ack(Orders, leased[2].id, leased[2].receipt).ok());
    QCOMPARE(f.info(Orders)->inFlight, 0);
    QCOMPARE(f.info(Orders)->depth, 1); // the nacked one
    QCOMPARE(f.ack(Orders, leased[0].id, leased[0].receipt).error().code, ErrorCode::MessageNotFound);
}

void TestMessageBrokerPartitions::anAckWithoutReceiptFindsItsPartition()
{
    // Leases delivered by another broker (here: a second PartitionedStore that remembers none)
    // are found by asking every partition.
    ManualClock clock;
    QueueTypeRegistry types;
    std::unique_ptr<QueueStore> inner = makeTestStore(types, clock);
    PartitionedStore store(*inner, clock, 0);
    QueueConfig config;
    config.partitions = 4;
    Captured<QueueInfo> created;
    store.createQueue(Orders, config, created.sink());
    QVERIFY(created.take().ok());
    for (int i = 0; i < 4; ++i) {
        Captured<PublishResult> published;
        store.publish(Orders, {NewMessage{QByteArray::number(i), {}, 0, 0, {}}}, QStringLiteral("alice"), published.sink());
        QVERIFY(published.take().ok());
    }
    ConsumeRequest lease;
    lease.count = 4;
    lease.acknowledge = false;
    Captured<QList<Message>> consumed;
    store.consume(Orders, lease, consumed.sink());
    const QList<Message> leased = *consumed.take();
    QCOMPARE(leased.size(), 4);
    for (const Message &m : leased) {
        Captured<void> acked;
        store.ack(Orders, MessageRef{m.id, {}, {}, {}}, acked.sink());
        QVERIFY(acked.take().ok());
    }
    Captured<void> again;
    store.ack(Orders, MessageRef{leased[0].id, {}, {}, {}}, again.sink());
    QCOMPARE(again.take().error().code, ErrorCode::MessageNotFound);
    Captured<QueueInfo> info;
    store.queueInfo(Orders, info.sink());
    QCOMPARE(info.take()->counters.acked, 4);
}

void TestMessageBrokerPartitions::partitionsOnlyGrow()
{
    EngineFixture f;
    QVERIFY(f.create(Orders, jsonObject(R"({"partitions": 2})")).ok());
    const auto [first, second] = keysApart(2);
    QVERIFY(publishKeyed(f, Orders, first, {"1", "2"}).ok());
    const Result<QueueInfo> grown = f.update(Orders, jsonObject(R"({"partitions": 5, "max_size": 777})"));
    QVERIFY2(grown.ok(), qPrintable(grown.ok() ? QString() : grown.error().message));
    QCOMPARE(grown->config.partitions, 5);
    QCOMPARE(grown->config.maxSize, 777);
    QCOMPARE(grown->partitions.size(), 5);
    QCOMPARE(grown->depth, 2); // stored messages stay where they were
    // Every partition took the other options too.
    Captured<QueueInfo> last;
    f.store->queueInfo(Partitioning::storeQueue(Orders, 4), last.sink());
    QCOMPARE(last.take()->config.maxSize, 777);
    Captured<QueueInfo> old;
    f.store->queueInfo(Partitioning::storeQueue(Orders, 1), old.sink());
    QCOMPARE(old.take()->config.maxSize, 777);

    const Result<QueueInfo> shrunk = f.update(Orders, jsonObject(R"({"partitions": 3})"));
    QCOMPARE(shrunk.error().code, ErrorCode::InvalidArgument);
    QVERIFY(shrunk.error().message.contains(u"only grow"));
    QCOMPARE(f.info(Orders)->config.partitions, 5);
    // New keyed publishes follow the new count.
    QVERIFY(publishKeyed(f, Orders, first, {"3"}).ok());
    QCOMPARE(f.info(Orders)->partitions.value(Partitioning::partitionOf(first, 5)).counters.published,
             Partitioning::partitionOf(first, 5) == Partitioning::partitionOf(first, 2) ? 3 : 1);
    QCOMPARE(f.consume(Orders, 10)->size(), 3);
    // A plain queue becomes partitioned and keeps its messages in partition 0.
    QVERIFY(f.create(QStringLiteral("plain")).ok());
    QVERIFY(f.publish(QStringLiteral("plain"), numbers(1, 3)).ok());
    QCOMPARE(partitionDepths(*f.update(QStringLiteral("plain"), jsonObject(R"({"partitions": 2})"))), QList<qint64>({3, 0}));
}

void TestMessageBrokerPartitions::aBatchGoesToOnePartitionWhole()
{
    EngineFixture f;
    QVERIFY(f.create(Orders, jsonObject(R"({"partitions": 4, "max_size": 5})")).ok());
    QVERIFY(f.publish(Orders, numbers(1, 4)).ok());
    const QList<qint64> depths = partitionDepths(*f.info(Orders));
    QCOMPARE(depths.count(4), 1);
    QCOMPARE(depths.count(0), 3);
    // Mixed keys in one batch are refused: it could not be all or nothing.
    QList<NewMessage> mixed(2);
    mixed[0].data = "1";
    mixed[0].key = QStringLiteral("a");
    mixed[1].data = "2";
    mixed[1].key = QStringLiteral("b");
    Captured<PublishResult> refused;
    f.broker.publish(Orders, mixed, QStringLiteral("alice"), refused.sink());
    QCOMPARE(refused.take().error().code, ErrorCode::InvalidArgument);
    // max_size bounds each partition: a batch of six never fits one.
    QCOMPARE(f.publish(Orders, numbers(1, 6)).error().code, ErrorCode::QueueFull);
    QCOMPARE(f.info(Orders)->depth, 4);
}

void TestMessageBrokerPartitions::browsingWalksThePartitions()
{
    EngineFixture f;
    QVERIFY(f.create(Orders, jsonObject(R"({"partitions": 3})")).ok());
    for (int i = 1; i <= 7; ++i)
        QVERIFY(f.publish(Orders, numbers(i, i)).ok());
    QSet<QByteArray> seen;
    qint64 offset = 0;
    int pages = 0;
    while (offset >= 0 && pages < 10) {
        const BrowsePage page = *f.browse(Orders, offset, 3);
        QCOMPARE(page.total, 7);
        for (const Message &m : page.messages) {
            QCOMPARE(m.queue, Orders);
            seen.insert(m.data);
        }
        QVERIFY(page.messages.size() == 3 || page.nextOffset == -1);
        offset = page.nextOffset;
        ++pages;
    }
    QCOMPARE(pages, 3);
    QCOMPARE(seen.size(), 7);
    QCOMPARE(f.info(Orders)->depth, 7); // nothing taken
}

void TestMessageBrokerPartitions::purgeAndDeleteTakeEveryPartition()
{
    EngineFixture f;
    QVERIFY(f.create(Orders, jsonObject(R"({"partitions": 3})")).ok());
    for (int i = 1; i <= 6; ++i)
        QVERIFY(f.publish(Orders, numbers(i, i)).ok());
    QCOMPARE(*f.purge(Orders), 6);
    QCOMPARE(f.info(Orders)->depth, 0);
    QVERIFY(f.publish(Orders, numbers(1, 1)).ok());
    QVERIFY(f.remove(Orders).ok());
    QCOMPARE(f.info(Orders).error().code, ErrorCode::QueueNotFound);
    Captured<QList<QueueInfo>> stored;
    f.store->listQueues(stored.sink());
    QVERIFY(stored.take()->isEmpty()); // no partition left behind
    QCOMPARE(f.publish(Orders, numbers(1, 1)).error().code, ErrorCode::QueueNotFound);
}

void TestMessageBrokerPartitions::deadLettersNameTheQueue()
{
    EngineFixture f;
    QVERIFY(f.create(Orders, jsonObject(R"({"partitions": 3, "max_deliveries": 1, "dead_letter_queue": true})")).ok());
    for (int i = 1; i <= 3; ++i)
        QVERIFY(f.publish(Orders, numbers(i, i)).ok());
    const QList<Message> leased = *f.consume(Orders, 3, false);
    QCOMPARE(leased.size(), 3);
    for (const Message &m : leased) {
        const Result<NackResult> nacked = f.nack(Orders, m.id, m.receipt);
        QVERIFY(nacked.ok() && nacked->deadLettered);
    }
    const BrowsePage dead = *f.browse(QStringLiteral("orders.dlq"), 0, 10);
    QCOMPARE(dead.messages.size(), 3);
    for (const Message &m : dead.messages)
        QCOMPARE(m.originQueue, Orders);
    QCOMPARE(f.info(Orders)->counters.deadLettered, 3);
    const QList<MessageEvent> history = f.broker.lifecycle(dead.messages.first().id);
    QVERIFY(!history.isEmpty());
    for (const MessageEvent &event : history) {
        QVERIFY(!event.queue.contains(u'~'));
        QVERIFY(!event.detail.contains(u'~'));
    }
    // Redrive sends each back to its partition; the queue has them again.
    QCOMPARE(*f.redrive(QStringLiteral("orders.dlq")), 3);
    QCOMPARE(f.info(Orders)->depth, 3);
    QCOMPARE(f.consume(Orders, 3)->size(), 3);
}

void TestMessageBrokerPartitions::aLongPollIsWokenByAnyPartition()
{
    EngineFixture f;
    QVERIFY(f.create(Orders, jsonObject(R"({"partitions": 4})")).ok());
    const auto [first, second] = keysApart(4);
    Q_UNUSED(first);
    Captured<QList<Message>> waiting;
    f.broker.consume(Orders, ConsumeRequest{}, 5000, waiting.sink());
    QTest::qWait(100);
    QVERIFY(!waiting.done());
    QElapsedTimer timer;
    timer.start();
    QVERIFY(publishKeyed(f, Orders, second, {"\"hello\""}).ok());
    QTRY_VERIFY_WITH_TIMEOUT(waiting.done(), 3000);
    QVERIFY2(timer.elapsed() < 1500, "woken by the publish, not by the timeout");
    const QList<Message> got = *waiting.take();
    QCOMPARE(got.size(), 1);
    QCOMPARE(got.first().data, QByteArray("\"hello\""));
    QCOMPARE(got.first().queue, Orders);
}

void TestMessageBrokerPartitions::aMissingPartitionIsMadeAgain()
{
    // A create or grow that stopped before all its partitions were made: the first publish to
    // a missing one makes it from partition 0's options.
    EngineFixture f;
    QVERIFY(f.create(Orders, jsonObject(R"({"partitions": 2, "max_size": 50})")).ok());
    Captured<qint64> removed;
    f.store->deleteQueue(Partitioning::storeQueue(Orders, 1), removed.sink());
    QVERIFY(removed.take().ok());
    QCOMPARE(f.info(Orders)->partitions.size(), 1);
    QVERIFY(f.consume(Orders)->isEmpty()); // a missing partition holds nothing
    for (int i = 0; i < 4; ++i)
        QVERIFY(f.publish(Orders, numbers(i, i)).ok());
    const QueueInfo info = *f.info(Orders);
    QCOMPARE(partitionDepths(info), QList<qint64>({2, 2}));
    Captured<QueueInfo> made;
    f.store->queueInfo(Partitioning::storeQueue(Orders, 1), made.sink());
    QCOMPARE(made.take()->config.maxSize, 50);
}

void TestMessageBrokerPartitions::anOldCountNeverShrinksTheQueue()
{
    // B read 2 partitions; A grows the queue to 8. B, asked for 4, must see 8 and refuse: going
    // from 2 to 4 would set the count to 4 and strand partitions 4 to 7 with their messages.
    TwoBrokers t;
    QVERIFY(await<QueueInfo>([&](auto d) { t.a.createQueue(Orders, partitioned(2), d); }).ok());
    QCOMPARE(await<QueueInfo>([&](auto d) { t.b.queueInfo(Orders, d); })->config.partitions, 2);
    QueueConfigChange grow;
    grow.partitions = 8;
    QVERIFY(await<QueueInfo>([&](auto d) { t.a.updateQueue(Orders, grow, d); }).ok());
    QueueConfigChange fewer;
    fewer.partitions = 4;
    const Result<QueueInfo> refused = await<QueueInfo>([&](auto d) { t.b.updateQueue(Orders, fewer, d); });
    QCOMPARE(refused.error().code, ErrorCode::InvalidArgument);
    QVERIFY(refused.error().message.contains(u"has 8"));
    QCOMPARE(await<QueueInfo>([&](auto d) { t.a.queueInfo(Orders, d); })->config.partitions, 8);
    // A delete by B takes all eight, not the two it knew of.
    QVERIFY(await<qint64>([&](auto d) { t.b.deleteQueue(Orders, d); }).ok());
    QVERIFY(await<QList<QueueInfo>>([&](auto d) { t.inner->listQueues(d); })->isEmpty());
}

void TestMessageBrokerPartitions::anOldCountNeverMakesAPartitionAgain()
{
    // B read 4 partitions; A deletes the queue and makes it again plain. B's publishes must land
    // in the queue consumers read, not in partitions B makes again from its old count.
    TwoBrokers t;
    QVERIFY(await<QueueInfo>([&](auto d) { t.a.createQueue(Orders, partitioned(4), d); }).ok());
    QCOMPARE(await<QueueInfo>([&](auto d) { t.b.queueInfo(Orders, d); })->config.partitions, 4);
    QVERIFY(await<qint64>([&](auto d) { t.a.deleteQueue(Orders, d); }).ok());
    QVERIFY(await<QueueInfo>([&](auto d) { t.a.createQueue(Orders, partitioned(1), d); }).ok());
    for (int i = 0; i < 8; ++i)
        QVERIFY(publishTo(t.b, Orders, QByteArray::number(i), i % 2 ? QStringLiteral("key-%1").arg(i) : QString()).ok());
    const QList<QueueInfo> stored = *await<QList<QueueInfo>>([&](auto d) { t.inner->listQueues(d); });
    QCOMPARE(stored.size(), 1);
    QCOMPARE(stored.first().name, Orders);
    ConsumeRequest all;
    all.count = 20;
    QCOMPARE(await<QList<Message>>([&](auto d) { t.a.consume(Orders, all, d); })->size(), 8);
}

void TestMessageBrokerPartitions::aReceiptOfANewPartitionIsSettled()
{
    // A grew the queue and leased a message from a partition B has not heard of: B's ack of it
    // (the receipt names partition 3) is settled, not refused as stale.
    TwoBrokers t;
    QVERIFY(await<QueueInfo>([&](auto d) { t.a.createQueue(Orders, partitioned(2), d); }).ok());
    QCOMPARE(await<QueueInfo>([&](auto d) { t.b.queueInfo(Orders, d); })->config.partitions, 2);
    QueueConfigChange grow;
    grow.partitions = 4;
    QVERIFY(await<QueueInfo>([&](auto d) { t.a.updateQueue(Orders, grow, d); }).ok());
    for (int i = 0; i < 4; ++i)
        QVERIFY(publishTo(t.a, Orders, QByteArray::number(i)).ok());
    ConsumeRequest lease;
    lease.count = 4;
    lease.acknowledge = false;
    const QList<Message> leased = *await<QList<Message>>([&](auto d) { t.a.consume(Orders, lease, d); });
    QCOMPARE(leased.size(), 4);
    int newPartition = 0;
    for (const Message &m : leased) {
        if (Partitioning::splitReceipt(m.receipt).second >= 2)
            ++newPartition;
        QVERIFY(await<void>([&](auto d) { t.b.ack(Orders, MessageRef{m.id, m.receipt, {}, {}}, d); }).ok());
    }
    QCOMPARE(newPartition, 2);
    QCOMPARE(await<QueueInfo>([&](auto d) { t.a.queueInfo(Orders, d); })->counters.acked, 4);
    // A receipt past the count the store holds is stale, as before.
    const Result<void> stale = await<void>([&](auto d) {
        t.b.ack(Orders, MessageRef{leased[0].id, Partitioning::receiptWithPartition(QStringLiteral("00ff"), 9), {}, {}}, d);
    });
    QCOMPARE(stale.error().code, ErrorCode::StaleReceipt);

    // The same where B last saw the queue plain.
    const QString jobs = QStringLiteral("jobs");
    QVERIFY(await<QueueInfo>([&](auto d) { t.a.createQueue(jobs, partitioned(1), d); }).ok());
    QCOMPARE(await<QueueInfo>([&](auto d) { t.b.queueInfo(jobs, d); })->config.partitions, 1);
    QVERIFY(await<QueueInfo>([&](auto d) { t.a.updateQueue(jobs, grow, d); }).ok());
    for (int i = 0; i < 4; ++i)
        QVERIFY(publishTo(t.a, jobs, QByteArray::number(i)).ok());
    const QList<Message> jobsLeased = *await<QList<Message>>([&](auto d) { t.a.consume(jobs, lease, d); });
    QCOMPARE(jobsLeased.size(), 4);
    for (const Message &m : jobsLeased) {
        const Result<void> acked = await<void>([&](auto d) { t.b.ack(jobs, MessageRef{m.id, m.receipt, {}, {}}, d); });
        QVERIFY2(acked.ok(), qPrintable(acked.ok() ? QString() : acked.error().message));
    }
}

void TestMessageBrokerPartitions::aNewQueueDoesNotTakeOverLeftoverPartitions()
{
    // A delete that stopped after partition 0 leaves orders~1 with a message; a new orders of
    // another type must not take it over with what it held.
    TwoBrokers t;
    QVERIFY(await<QueueInfo>([&](auto d) { t.inner->createQueue(Partitioning::storeQueue(Orders, 1), partitioned(1), d); }).ok());
    QVERIFY(await<PublishResult>([&](auto d) {
        t.inner->publish(Partitioning::storeQueue(Orders, 1), {NewMessage{"old", {}, 0, 0, {}}}, QStringLiteral("alice"), d);
    }).ok());
    t.clock.advanceMs(60'000);
    const Result<QueueInfo> made = await<QueueInfo>([&](auto d) { t.a.createQueue(Orders, partitioned(2, QStringLiteral("priority")), d); });
    QVERIFY2(made.ok(), qPrintable(made.ok() ? QString() : made.error().message));
    QCOMPARE(made->depth, 0);
    const QueueInfo part = *await<QueueInfo>([&](auto d) { t.inner->queueInfo(Partitioning::storeQueue(Orders, 1), d); });
    QCOMPARE(part.config.type, QStringLiteral("priority"));
    QCOMPARE(part.depth, 0);
}

void TestMessageBrokerPartitions::aPartitionAPublishMadeDuringTheCreateIsKept()
{
    // While A makes the partitions of a new queue one after another, B (which read partition 0)
    // publishes to one not made yet, makes it and stores a message: A must keep it, message and all.
    TwoBrokers t;
    QVERIFY(await<QueueInfo>([&](auto d) { t.inner->createQueue(Partitioning::storeQueue(Orders, 1), partitioned(1), d); }).ok());
    QVERIFY(await<PublishResult>([&](auto d) {
        t.inner->publish(Partitioning::storeQueue(Orders, 1), {NewMessage{"acknowledged", {}, 0, 0, {}}}, QStringLiteral("alice"), d);
    }).ok());
    t.clock.advanceMs(200);
    const Result<QueueInfo> made = await<QueueInfo>([&](auto d) { t.a.createQueue(Orders, partitioned(2), d); });
    QVERIFY2(made.ok(), qPrintable(made.ok() ? QString() : made.error().message));
    QCOMPARE(made->depth, 1);
}

void TestMessageBrokerPartitions::aGrowMakesTheGroupsOnTheNewPartitions()
{
    // Group g reads a stream queue of 2 partitions; the queue grows to 4; group h reads and
    // acknowledges everything published since. g must still get all of it, in the new
    // partitions too: they had g before the count named them.
    TwoBrokers t;
    QVERIFY(await<QueueInfo>([&](auto d) { t.a.createQueue(Orders, partitioned(2, QStringLiteral("stream")), d); }).ok());
    ConsumeRequest g;
    g.group = QStringLiteral("g");
    g.count = 100;
    QVERIFY(await<QList<Message>>([&](auto d) { t.b.consume(Orders, g, d); })->isEmpty());
    QueueConfigChange grow;
    grow.partitions = 4;
    QVERIFY(await<QueueInfo>([&](auto d) { t.a.updateQueue(Orders, grow, d); }).ok());
    for (int i = 0; i < 8; ++i)
        QVERIFY(publishTo(t.a, Orders, QByteArray::number(i)).ok());
    ConsumeRequest h;
    h.group = QStringLiteral("h");
    h.count = 100;
    QCOMPARE(await<QList<Message>>([&](auto d) { t.a.consume(Orders, h, d); })->size(), 8);
    QCOMPARE(await<QList<Message>>([&](auto d) { t.a.consume(Orders, g, d); })->size(), 8);
}

void TestMessageBrokerPartitions::everyGroupSeesWhatWasPublishedAfterItsFirstRead()
{
    // Group "late" first reads one message, from one partition; group "early" then reads and
    // acknowledges everything, which lets each partition trim what all of its groups have. What
    // the partitions held at late's first read, and what was published after it, must still
    // reach late, whichever partition it is in.
    TwoBrokers t;
    QVERIFY(await<QueueInfo>([&](auto d) { t.a.createQueue(Orders, partitioned(4, QStringLiteral("stream")), d); }).ok());
    for (int i = 0; i < 4; ++i)
        QVERIFY(publishTo(t.a, Orders, QByteArray::number(i)).ok()); // one to each partition
    QList<QByteArray> seen;
    ConsumeRequest late;
    late.group = QStringLiteral("late");
    late.count = 1;
    const QList<Message> first = *await<QList<Message>>([&](auto d) { t.b.consume(Orders, late, d); });
    for (const Message &m : first)
        seen.append(m.data);
    QCOMPARE(seen.size(), 1);
    ConsumeRequest early;
    early.group = QStringLiteral("early");
    early.count = 100;
    // Not the one late took: it had left its partition's stream before early was made there.
    QCOMPARE(await<QList<Message>>([&](auto d) { t.a.consume(Orders, early, d); })->size(), 3);
    for (int i = 4; i < 12; ++i)
        QVERIFY(publishTo(t.a, Orders, QByteArray::number(i)).ok()); // two more to each partition
    QCOMPARE(await<QList<Message>>([&](auto d) { t.a.consume(Orders, early, d); })->size(), 8);
    late.count = 100;
    const QList<Message> rest = *await<QList<Message>>([&](auto d) { t.b.consume(Orders, late, d); });
    for (const Message &m : rest)
        seen.append(m.data);
    std::sort(seen.begin(), seen.end(), [](const QByteArray &x, const QByteArray &y) { return x.toInt() < y.toInt(); });
    QList<QByteArray> all;
    for (int i = 0; i < 12; ++i)
        all.append(QByteArray::number(i));
    QCOMPARE(seen, all);
}

QTEST_GUILESS_MAIN(TestMessageBrokerPartitions)
#include "tst_messagebroker_partitions.moc"
