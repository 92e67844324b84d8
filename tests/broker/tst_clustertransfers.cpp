// SPDX-License-Identifier: GPL-3.0-or-later
// Transfers between slots on a real 6-node Redis Cluster when things fail between their two steps
// (the script that sends messages away, then the hand-over by receive.lua): a target whose node
// stops answering gets them later from the outbox, once; a hand-over repeated after a crash is
// taken once; a move or redrive target deleted before the hand-over gives the messages back.
// Dead-lettering, redrive and move each take their own path into the outbox (lib.lua, sendAway).
#include "storage/redismessage.h"
#include "storage/redisscripts.h"
#include "storage/redisstore.h"

#include "engine/queuetyperegistry.h"

#include "../support/awaitresult.h"
#include "../support/rediscluster.h"

#include <QTest>

using namespace Broker;
using namespace Broker::Testing;

namespace {

// Stops a node of the cluster the moment a store's script tells that messages left for a queue
// in another slot (Moved, Redriven): after the first step of the transfer and before its
// hand-over starts, which the store begins right after telling the listener (RedisOperations::run).
class PauseBeforeHandOver final : public StoreListener
{
public:
    explicit PauseBeforeHandOver(RedisCluster &cluster) : m_cluster(cluster) {}
    void arm(int node) { m_node = node; }
    void messageEvent(const MessageEvent &event) override
    {
        if (m_node < 0 || (event.kind != MessageEventKind::Moved && event.kind != MessageEventKind::Redriven))
            return;
        m_cluster.node(m_node).pause();
        m_node = -1; // once: a script tells of every message it sent
    }
    void messagesAvailable(const QString &) override {}

private:
    RedisCluster &m_cluster;
    int m_node = -1;
};

// Messages sent from one queue to a queue on another primary: a redrive (source: the dead-letter
// queue, target: the origin queue) or an operator's move (source -> target).
struct Transfer
{
    bool redrive = false;
    QString source, target;
    int sourceNode = -1, targetNode = -1;
    QList<QString> ids; // the messages sent, in the order they stand in the source
    QString outbox() const { return QStringLiteral("brokerdesk:{%1}:outbox").arg(source); }
};

} // namespace

// Runs a helper that checks with QVERIFY/QCOMPARE, and ends the test when it failed.
#define STEP(call)                                                                                                     \
    do {                                                                                                               \
        call;                                                                                                          \
        if (QTest::currentTestFailed())                                                                                \
            return;                                                                                                    \
    } while (false)

class TestClusterTransfers : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void aTargetOutOfReachGetsItLaterAndOnce();
    void aRedriveToAPausedOriginWaitsInTheOutboxThenArrivesOnce();
    void aHandOverRepeatedAfterACrashIsTakenOnce_data();
    void aHandOverRepeatedAfterACrashIsTakenOnce();
    void aTargetDeletedBeforeTheHandOverGivesTheMessagesBack_data();
    void aTargetDeletedBeforeTheHandOverGivesTheMessagesBack();
    void aRefusedHandOverStaysRefusedWhenTheTargetIsMadeAgain();

private:
    // A store on the cluster, telling `listener` (if any) of its events.
    std::unique_ptr<RedisStore> connectedStore(StoreListener *listener = nullptr);
    QString nameAvoiding(const QString &stem, int node);
    Transfer pickTransfer(bool redrive, const QString &stem);
    void prepare(RedisStore &store, Transfer &transfer, int count, qint64 sourceMaxSize = 10'000);
    Result<qint64> sendAway(RedisStore &store, const Transfer &transfer);
    Result<qint64> sendAwayCutShort(RedisStore &store, PauseBeforeHandOver &pauser, const Transfer &transfer,
                                    int pausedNode, const std::function<void()> &whilePaused);
    QList<QByteArray> outboxEntries(const Transfer &transfer);
    void handOverEverything(RedisStore &store, const Transfer &transfer);

    RedisCluster m_cluster;
    QueueTypeRegistry m_types;
    SystemClock m_clock;
};

namespace {

// `queue` as the store reports it; a depth of -1 when it could not be read.
QueueInfo infoOf(RedisStore &store, const QString &queue)
{
    const Result<QueueInfo> info = awaitResult<QueueInfo>([&](auto d) { store.queueInfo(queue, d); });
    QueueInfo unread;
    unread.depth = -1;
    return info ? *info : unread;
}

// A reaper pass. One may fail while the pool reconnects to a node that was paused: the next goes on.
void reap(RedisStore &store)
{
    (void)awaitResult<qint64>([&](auto d) { store.runMaintenance(d); });
}

// Consumes (and so removes) everything ready in `queue`; the ids in the order delivered.
QList<QString> takeAll(RedisStore &store, const QString &queue)
{
    ConsumeRequest all;
    all.count = 100;
    const Result<QList<Message>> taken = awaitResult<QList<Message>>([&](auto d) { store.consume(queue, all, d); });
    QList<QString> ids;
    if (taken) {
        for (const Message &message : *taken)
            ids.append(message.id);
    }
    return ids;
}

// Rows for the two ways into another slot an operator starts.
void redriveAndMove()
{
    QTest::addColumn<bool>("redrive");
    QTest::addRow("redrive") << true;
    QTest::addRow("move") << false;
}

} // namespace

void TestClusterTransfers::initTestCase()
{
    QVERIFY2(m_cluster.start(), qPrintable(m_cluster.errorString()));
}

void TestClusterTransfers::init()
{
    // A node paused by the test before settles back first (its peers may still flag it).
    QVERIFY2(m_cluster.waitHealthy(), qPrintable(m_cluster.errorString()));
    m_cluster.flushPrimaries(); // every test starts from an empty registry
}

void TestClusterTransfers::cleanup()
{
    // A test that failed with a node paused must not leave it so for the next one.
    for (int i = 0; i < m_cluster.size(); ++i)
        m_cluster.node(i).resume();
}

std::unique_ptr<RedisStore> TestClusterTransfers::connectedStore(StoreListener *listener)
{
    RedisStoreOptions options;
    options.cluster.emplace();
    for (int i = 0; i < m_cluster.size(); ++i)
        options.cluster->seeds.append(Redis::NodeAddress{QStringLiteral("127.0.0.1"), m_cluster.node(i).port()});
    // Short deadlines: a paused node fails a hand-over quickly, well before the cluster fails it
    // over (NodeTimeoutMs).
    options.connection.commandTimeoutMs = 300;
    options.connection.connectTimeoutMs = 300;
    options.pool.size = 1;
    options.pool.reconnect = RetryPolicy{20, 2.0, 100, 0};
    options.breaker.failureThreshold = 1000; // these tests are about the transfers, not the breaker
    auto store = std::make_unique<RedisStore>(options, m_types, m_clock);
    if (listener)
        store->setListener(listener);
    store->start();
    if (!waitUntil([&] { return store->cluster()->refreshes() > 0 && store->cluster()->allSlotsServed(); }))
        return nullptr;
    return store;
}

// The first name `stem`<i> whose slot another primary than `node` serves.
QString TestClusterTransfers::nameAvoiding(const QString &stem, int node)
{
    for (int i = 0; i < 100; ++i) {
        const QString name = stem + QString::number(i);
        if (m_cluster.primaryFor(name.toUtf8()) != node)
            return name;
    }
    return {};
}

Transfer TestClusterTransfers::pickTransfer(bool redrive, const QString &stem)
{
    Transfer transfer;
    transfer.redrive = redrive;
    transfer.source = stem + (redrive ? QStringLiteral("-dlq") : QStringLiteral("-source"));
    transfer.sourceNode = m_cluster.primaryFor(transfer.source.toUtf8());
    transfer.target = nameAvoiding(stem + (redrive ? QStringLiteral("-origin") : QStringLiteral("-target")),
                                   transfer.sourceNode);
    transfer.targetNode = m_cluster.primaryFor(transfer.target.toUtf8());
    return transfer;
}

// Makes both queues and puts `count` messages in the source (all nodes answering): for a redrive,
// published to the origin and dead-lettered from it into its dead-letter queue.
void TestClusterTransfers::prepare(RedisStore &store, Transfer &transfer, int count, qint64 sourceMaxSize)
{
    QVERIFY(transfer.sourceNode >= 0 && transfer.targetNode >= 0 && transfer.sourceNode != transfer.targetNode);
    QueueConfig sourceConfig, targetConfig;
    sourceConfig.maxSize = sourceMaxSize;
    if (transfer.redrive)
        targetConfig.deadLetterQueue = transfer.source;
    QVERIFY(awaitResult<QueueInfo>([&](auto d) { store.createQueue(transfer.source, sourceConfig, d); }).ok());
    QVERIFY(awaitResult<QueueInfo>([&](auto d) { store.createQueue(transfer.target, targetConfig, d); }).ok());

    QList<NewMessage> messages(count);
    for (int i = 0; i < count; ++i)
        messages[i].data = QByteArray::number(i);
    const QString publishTo = transfer.redrive ? transfer.target : transfer.source;
    const Result<PublishResult> published =
        awaitResult<PublishResult>([&](auto d) { store.publish(publishTo, messages, {}, d); });
    QVERIFY(published.ok());
    transfer.ids = published->messageIds();
    if (transfer.redrive) {
        const MessageAction deadLetter{MessageAction::Kind::DeadLetter, transfer.ids, {}, {}};
        const Result<MessageActionResult> moved =
            awaitResult<MessageActionResult>([&](auto d) { store.messageAction(transfer.target, deadLetter, d); });
        QVERIFY(moved.ok());
        QCOMPARE(moved->affected, qint64(count));
    }
    QCOMPARE(infoOf(store, transfer.source).depth, qint64(count));
}

// The redrive (asked of the dead-letter queue) or move; how many messages it sent away.
Result<qint64> TestClusterTransfers::sendAway(RedisStore &store, const Transfer &transfer)
{
    if (transfer.redrive) {
        const Result<RedriveResult> redriven =
            awaitResult<RedriveResult>([&](auto d) { store.redrive(transfer.source, RedriveRequest{}, d); });
        return redriven ? Result<qint64>(redriven->moved) : Result<qint64>(redriven.error());
    }
    const MessageAction move{MessageAction::Kind::Move, transfer.ids, transfer.target, {}};
    const Result<MessageActionResult> moved =
        awaitResult<MessageActionResult>([&](auto d) { store.messageAction(transfer.source, move, d); });
    return moved ? Result<qint64>(moved->affected) : Result<qint64>(moved.error());
}

// sendAway with the hand-over cut short: `pausedNode` stops between the two steps, `whilePaused`
// runs once the store answered, then the node answers again.
Result<qint64> TestClusterTransfers::sendAwayCutShort(RedisStore &store, PauseBeforeHandOver &pauser,
                                                      const Transfer &transfer, int pausedNode,
                                                      const std::function<void()> &whilePaused)
{
    pauser.arm(pausedNode);
    const Result<qint64> sent = sendAway(store, transfer);
    whilePaused();
    m_cluster.node(pausedNode).resume();
    return sent;
}

// What waits in the source's outbox, entry by entry (an entry holds newlines: LINDEX, not LRANGE).
QList<QByteArray> TestClusterTransfers::outboxEntries(const Transfer &transfer)
{
    RedisServer &node = m_cluster.node(transfer.sourceNode);
    QList<QByteArray> entries;
    const int length = node.cli({QStringLiteral("LLEN"), transfer.outbox()}).toInt();
    for (int i = 0; i < length; ++i)
        entries.append(node.cli({QStringLiteral("LINDEX"), transfer.outbox(), QString::number(i)}));
    return entries;
}

// Reaper passes until the source's outbox is empty: every hand-over (or give-back) finished.
void TestClusterTransfers::handOverEverything(RedisStore &store, const Transfer &transfer)
{
    QVERIFY2(waitUntil([&] {
        reap(store);
        return m_cluster.node(transfer.sourceNode).cli({QStringLiteral("LLEN"), transfer.outbox()}) == "0";
    }, 15'000), "the outbox was not handed over");
}

void TestClusterTransfers::aTargetOutOfReachGetsItLaterAndOnce()
{
    const QString origin = QStringLiteral("origin");
    const int originNode = m_cluster.primaryFor(origin.toUtf8());
    // A dead-letter queue on another primary than its origin's.
    const QString dlq = nameAvoiding(QStringLiteral("dlq"), originNode);
    const int dlqNode = m_cluster.primaryFor(dlq.toUtf8());
    QVERIFY(dlqNode >= 0);

    const std::unique_ptr<RedisStore> store = connectedStore();
    QVERIFY(store);
    QueueConfig config;
    config.maxDeliveries = 1;
    config.deadLetterQueue = dlq;
    QVERIFY(awaitResult<QueueInfo>([&](auto d) { store->createQueue(dlq, QueueConfig{}, d); }).ok());
    QVERIFY(awaitResult<QueueInfo>([&](auto d) { store->createQueue(origin, config, d); }).ok());
    NewMessage message;
    message.data = "\"lost?\"";
    QVERIFY(awaitResult<PublishResult>([&](auto d) { store->publish(origin, {message}, {}, d); }).ok());
    ConsumeRequest lease;
    lease.acknowledge = false;
    const Result<QList<Message>> leased = awaitResult<QList<Message>>([&](auto d) { store->consume(origin, lease, d); });
    QVERIFY(leased.ok() && leased->size() == 1);

    // The dead-letter queue's node stops answering: the nack dead-letters into the outbox (the
    // origin's own slot) and is answered; the hand-over waits.
    const QString outbox = QStringLiteral("brokerdesk:{%1}:outbox").arg(origin);
    m_cluster.node(dlqNode).pause();
    const Result<NackResult> nacked = awaitResult<NackResult>(
        [&](auto d) { store->nack(origin, MessageRef{leased->first().id, leased->first().receipt, {}, {}}, 0, d); });
    const QByteArray waiting = m_cluster.node(originNode).cli({QStringLiteral("LRANGE"), outbox, "0", "-1"});
    m_cluster.node(dlqNode).resume();
    QVERIFY2(nacked.ok(), nacked ? "" : qPrintable(nacked.error().message));
    QVERIFY(nacked->deadLettered);
    QVERIFY2(waiting.contains("lost?"), waiting.constData()); // in the outbox while the target was out of reach

    // The reaper hands it over once the node answers again.
    QVERIFY(waitUntil([&] {
        reap(*store);
        return infoOf(*store, dlq).depth == 1;
    }, 15'000));
    QCOMPARE(m_cluster.node(originNode).cli({QStringLiteral("LLEN"), outbox}), QByteArray("0"));

    // A crash between taking and removing: the same entry is handed over again, and taken once.
    // A dead-letter entry ends with a newline (it has no original), which redis-cli's output lost.
    m_cluster.node(originNode).cli({QStringLiteral("RPUSH"), outbox, QString::fromUtf8(waiting.trimmed() + '\n')});
    QCOMPARE(m_cluster.node(originNode).cli({QStringLiteral("LLEN"), outbox}), QByteArray("1"));
    QVERIFY(waitUntil([&] {
        reap(*store);
        return m_cluster.node(originNode).cli({QStringLiteral("LLEN"), outbox}) == "0";
    }, 10'000));
    QCOMPARE(infoOf(*store, dlq).depth, 1);
    QCOMPARE(store->health(), HealthStatus::Healthy);
}

void TestClusterTransfers::aRedriveToAPausedOriginWaitsInTheOutboxThenArrivesOnce()
{
    PauseBeforeHandOver pauser(m_cluster);
    const std::unique_ptr<RedisStore> store = connectedStore(&pauser);
    QVERIFY(store);
    Transfer redrive = pickTransfer(true, QStringLiteral("paused"));
    STEP(prepare(*store, redrive, 3));

    // The origin's node stops once the dead-letter queue's script sent the messages away: the
    // redrive is answered all the same (the hand-over failing only delays it), the messages
    // wait in the dead-letter queue's outbox, and the dead-letter queue no longer lists them.
    int waiting = -1;
    qint64 leftInDlq = -1;
    const Result<qint64> redriven = sendAwayCutShort(*store, pauser, redrive, redrive.targetNode, [&] {
        waiting = int(outboxEntries(redrive).size());
        leftInDlq = infoOf(*store, redrive.source).depth;
    });
    QVERIFY2(redriven.ok(), redriven ? "" : qPrintable(redriven.error().message));
    QCOMPARE(*redriven, 3);
    QCOMPARE(waiting, 3);
    QCOMPARE(leftInDlq, 0);

    // The origin's node answers again; it may even run the hand-over it was sent while paused
    // (the broker had given up on it), and the reaper hands the outbox over again: every message
    // arrives once, in the order it left, and is counted as redriven once.
    STEP(handOverEverything(*store, redrive));
    QCOMPARE(takeAll(*store, redrive.target), redrive.ids);
    QCOMPARE(infoOf(*store, redrive.target).counters.redriven, 3);
    QCOMPARE(infoOf(*store, redrive.source).depth, 0);
    QCOMPARE(store->health(), HealthStatus::Healthy);
}

void TestClusterTransfers::aHandOverRepeatedAfterACrashIsTakenOnce_data()
{
    redriveAndMove();
}

void TestClusterTransfers::aHandOverRepeatedAfterACrashIsTakenOnce()
{
    QFETCH(bool, redrive);
    PauseBeforeHandOver pauser(m_cluster);
    const std::unique_ptr<RedisStore> store = connectedStore(&pauser);
    QVERIFY(store);
    Transfer transfer = pickTransfer(redrive, QStringLiteral("repeated"));
    STEP(prepare(*store, transfer, 2));

    // The outbox entries, as they wait while the target's node is paused.
    QList<QByteArray> entries;
    const Result<qint64> sent =
        sendAwayCutShort(*store, pauser, transfer, transfer.targetNode, [&] { entries = outboxEntries(transfer); });
    QVERIFY(sent.ok());
    QCOMPARE(*sent, 2);
    QCOMPARE(entries.size(), 2);
    STEP(handOverEverything(*store, transfer));

    // A crash after the target took them and before they left the outbox: the same entries are
    // handed over again. The target answers "taken before" and they leave the outbox.
    for (const QByteArray &entry : std::as_const(entries))
        m_cluster.node(transfer.sourceNode).cli({QStringLiteral("RPUSH"), transfer.outbox(), QString::fromUtf8(entry)});
    QCOMPARE(outboxEntries(transfer), entries);
    STEP(handOverEverything(*store, transfer));

    QCOMPARE(takeAll(*store, transfer.target), transfer.ids);
    QCOMPARE(infoOf(*store, transfer.source).depth, 0);
    if (redrive)
        QCOMPARE(infoOf(*store, transfer.target).counters.redriven, 2);
}

void TestClusterTransfers::aTargetDeletedBeforeTheHandOverGivesTheMessagesBack_data()
{
    redriveAndMove();
}

void TestClusterTransfers::aTargetDeletedBeforeTheHandOverGivesTheMessagesBack()
{
    QFETCH(bool, redrive);
    constexpr int Count = 3;
    PauseBeforeHandOver pauser(m_cluster);
    const std::unique_ptr<RedisStore> store = connectedStore(&pauser);
    QVERIFY(store);
    Transfer transfer = pickTransfer(redrive, QStringLiteral("gone"));
    // The source holds exactly max_size: its held count must take the messages back too.
    STEP(prepare(*store, transfer, Count, Count));

    // The source's node stops before the hand-over reads its outbox, so the target hears nothing
    // of the transfer; meanwhile the target (its node answers) is deleted.
    Result<qint64> deleted = Error{ErrorCode::Internal, QStringLiteral("not deleted")};
    const Result<qint64> sent = sendAwayCutShort(*store, pauser, transfer, transfer.sourceNode, [&] {
        deleted = awaitResult<qint64>([&](auto d) { store->deleteQueue(transfer.target, d); });
    });
    QVERIFY(sent.ok());
    QCOMPARE(*sent, qint64(Count));
    QVERIFY2(deleted.ok(), deleted ? "" : qPrintable(deleted.error().message));

    // The reaper's hand-over finds the target gone and gives every message back to the source,
    // once each; none is lost with the deleted target.
    STEP(handOverEverything(*store, transfer));
    QCOMPARE(infoOf(*store, transfer.source).depth, qint64(Count));
    const Result<QueueInfo> target = awaitResult<QueueInfo>([&](auto d) { store->queueInfo(transfer.target, d); });
    QVERIFY(!target);
    QCOMPARE(target.error().code, ErrorCode::QueueNotFound);
    // The source counts them as held again: it is full.
    NewMessage more;
    more.data = "\"one too many\"";
    const Result<PublishResult> refused =
        awaitResult<PublishResult>([&](auto d) { store->publish(transfer.source, {more}, {}, d); });
    QVERIFY(!refused);
    QCOMPARE(refused.error().code, ErrorCode::QueueFull);
    // Each once, and in the order they stood before they left (given back to the back of the
    // queue in the order they left; to the front, one by one, they stood reversed).
    QCOMPARE(takeAll(*store, transfer.source), transfer.ids);
}

void TestClusterTransfers::aRefusedHandOverStaysRefusedWhenTheTargetIsMadeAgain()
{
    // Two brokers' reapers hand the same outbox entry over: the first is refused (the target is
    // gone) and gives the message back to its source; the target is made again before the
    // second's try, which must be refused too, or the message would stand in both queues.
    const std::unique_ptr<RedisStore> store = connectedStore();
    QVERIFY(store);
    const QString target = QStringLiteral("remade");
    const int node = m_cluster.primaryFor(target.toUtf8());
    NewMessage sent;
    sent.data = "\"moved\"";
    const QString message = QString::fromUtf8(RedisMessage::encode(1, m_clock.nowMs() * 1000, sent, "alice"));
    const QString receive = QString::fromUtf8(RedisScripts::Set().receive.source);
    const auto handOver = [&](const QString &transfer) {
        return m_cluster.node(node).cli({QStringLiteral("EVAL"), receive, QStringLiteral("1"),
                                         QStringLiteral("brokerdesk:{%1}:meta").arg(target), QStringLiteral("brokerdesk:"),
                                         target, QString::number(m_clock.nowMs()), QStringLiteral("move"), transfer, message,
                                         QString()});
    };
    const QString transfer = QStringLiteral("source:1:1:1");
    QVERIFY2(handOver(transfer).contains("TARGET_NOT_FOUND"), "the target is gone");
    QVERIFY(awaitResult<QueueInfo>([&](auto d) { store->createQueue(target, QueueConfig{}, d); }).ok());
    const QByteArray again = handOver(transfer);
    QVERIFY2(again.contains("TARGET_NOT_FOUND"), again.constData());
    QCOMPARE(infoOf(*store, target).depth, qint64(0));
    // Another transfer into the queue made again is taken.
    QCOMPARE(handOver(QStringLiteral("source:2:1:2")), QByteArray("1"));
    QCOMPARE(infoOf(*store, target).depth, qint64(1));
}

QTEST_GUILESS_MAIN(TestClusterTransfers)
#include "tst_clustertransfers.moc"
