// SPDX-License-Identifier: GPL-3.0-or-later
// Long polls woken by other brokers (RedisWakeups): two brokers share one redis-server, or a
// 6-node cluster; a publish, a nack or an expired lease on one wakes a consumer waiting on the
// other long before any reaper would. The reaper is kept out of the way (a minute between runs),
// so that only the wake-up can answer in time. Also: no message while nobody waits or once a wait
// has ended, a shorter wait that does not end a longer one's, no wait kept for a queue that does
// not exist, a wait that outlives its queue's delete, brokers whose clocks disagree by an hour, a
// subscription that is cut (what was published meanwhile is found once it is back), and a
// subscription whose cluster node dies (it moves to another node).
#include "../support/awaitresult.h"
#include "../support/brokeronredis.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QTest>

#include <memory>
#include <optional>

using namespace Broker;
using namespace Broker::Testing;

namespace {

constexpr qint64 WaitMs = 8'000;     // a long poll's wait: far beyond what a wake-up takes
constexpr int AnsweredWithinMs = 2'000;

// A long poll that records when it was answered.
struct Poll
{
    std::shared_ptr<std::optional<Result<QList<Message>>>> result = std::make_shared<std::optional<Result<QList<Message>>>>();
    std::shared_ptr<QElapsedTimer> answeredAt = std::make_shared<QElapsedTimer>();

    void start(MessageBroker &broker, const QString &queue, bool acknowledge = true)
    {
        ConsumeRequest request;
        request.acknowledge = acknowledge;
        broker.consume(queue, request, WaitMs, [result = result, answeredAt = answeredAt](Result<QList<Message>> r) {
            answeredAt->start();
            result->emplace(std::move(r));
        });
    }
    bool answered() const { return result->has_value(); }
    QList<Message> messages() const { return answered() && (*result)->ok() ? (*result)->value() : QList<Message>{}; }
};

// The system's clock moved by an offset: a broker on a machine whose clock is wrong.
class OffsetClock final : public Clock
{
public:
    explicit OffsetClock(qint64 offsetMs) : m_offsetMs(offsetMs) {}
    qint64 nowMs() const override { return QDateTime::currentMSecsSinceEpoch() + m_offsetMs; }

private:
    qint64 m_offsetMs;
};

} // namespace

class TestCrossBrokerWakeups : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();
    void aPublishWakesAPollOnAnotherBroker();
    void aNackAndAnExpiredLeaseWakeAnotherBroker();
    void nobodyWaitingNothingIsPublished();
    void anEndedWaitIsNotWoken();
    void aShorterWaitDoesNotEndALongerOne();
    void aWaitOnAMissingQueueMakesNothing();
    void aWaitOutlivesItsQueueMadeAgain();
    void oneWakeUpPerQueueAndScript();
    void brokersWhoseClocksDisagreeWakeEachOther();
    void whatWasPublishedWhileCutOffIsFound();
    void aUserWithoutTheChannelLosesNothing();
    void aUserWithTheNarrowGrantWakesAndLosesNothing();
    void acrossTheCluster();
    void aDeadNodeMovesTheSubscription();

private:
    RedisStoreOptions serverOptions() const;
    RedisStoreOptions clusterOptions() const;
    void makeBrokers(const RedisStoreOptions &options);
    void createQueue(const QString &name, const QueueConfig &config = {});
    bool publish(BrokerOnRedis &on, const QString &queue, const QByteArray &data);
    // Starts a poll on `b` and waits until its wait is known to Redis (`waiting` set) and B is idle.
    bool parkOnB(Poll &poll, const QString &queue, bool acknowledge = true);
    qint64 publishCommandsRun();
    // A publishes `data` to `queue` and leases it for a second: the leased message's id, or empty.
    QString leaseForASecond(const QString &queue, const QByteArray &data);
    qint64 scriptCallsRun(); // FCALL, EVALSHA and EVAL the server ran
    // Until when (ms) Redis holds a wait on `queue`: the meta hash's `waiting`, 0 when none.
    qint64 waitingUntil(const QString &queue);
    bool idle(BrokerOnRedis &on) { return waitUntil([&] { return on.store.client().commandsInFlight() == 0; }); }

    RedisServer m_server;
    RedisCluster m_cluster;
    QueueTypeRegistry m_types;
    SystemClock m_clock;
    std::unique_ptr<Clock> m_offsetClock; // a broker's whose clock is wrong; outlives a and b
    std::unique_ptr<BrokerOnRedis> a;
    std::unique_ptr<BrokerOnRedis> b;
    RedisServer *m_queueNode = nullptr; // where the queue's keys live (cli checks)
};

void TestCrossBrokerWakeups::initTestCase()
{
    QVERIFY2(m_server.start(), qPrintable(m_server.errorString()));
}

void TestCrossBrokerWakeups::init()
{
    m_server.cli({QStringLiteral("FLUSHALL")});
    m_queueNode = &m_server;
}

void TestCrossBrokerWakeups::cleanup()
{
    b.reset();
    a.reset();
}

RedisStoreOptions TestCrossBrokerWakeups::serverOptions() const
{
    RedisStoreOptions options;
    options.connection.port = m_server.port();
    options.pool.size = 2;
    return options;
}

RedisStoreOptions TestCrossBrokerWakeups::clusterOptions() const
{
    return clusterStoreOptions(m_cluster, 1);
}

void TestCrossBrokerWakeups::makeBrokers(const RedisStoreOptions &options)
{
    a = std::make_unique<BrokerOnRedis>(options, m_types, m_clock, withoutReaper());
    b = std::make_unique<BrokerOnRedis>(options, m_types, m_clock, withoutReaper());
    QVERIFY(waitUntil([&] {
        return a->store.client().readyCount() == a->store.client().size() && a->store.client().size() > 0
               && b->store.client().readyCount() == b->store.client().size() && b->store.client().size() > 0
               && a->store.wakeups().subscriber().isSubscribed() && b->store.wakeups().subscriber().isSubscribed();
    }, 10'000));
}

void TestCrossBrokerWakeups::createQueue(const QString &name, const QueueConfig &config)
{
    QVERIFY(awaitResult<QueueInfo>([&](auto done) { a->broker.createQueue(name, config, done); }).ok());
    // B learns of it as a second broker does: by asking.
    QVERIFY(awaitResult<QueueInfo>([&](auto done) { b->broker.queueInfo(name, done); }).ok());
}

bool TestCrossBrokerWakeups::publish(BrokerOnRedis &on, const QString &queue, const QByteArray &data)
{
    NewMessage message;
    message.data = data;
    return awaitResult<PublishResult>([&](auto done) { on.broker.publish(queue, {message}, QStringLiteral("alice"), done); })
        .ok();
}

bool TestCrossBrokerWakeups::parkOnB(Poll &poll, const QString &queue, bool acknowledge)
{
    poll.start(b->broker, queue, acknowledge);
    // Until B has the wait's reply too, and has looked at the queue once more (the consume
    // that covers publishes before the wait was set): then only a wake-up can answer the poll.
    if (!waitUntil([&] { return waitingUntil(queue) > m_clock.nowMs(); }) || !idle(*b))
        return false;
    QTest::qWait(30);
    return idle(*b) && !poll.answered();
}

qint64 TestCrossBrokerWakeups::waitingUntil(const QString &queue)
{
    const QString meta = QStringLiteral("brokerdesk:{%1}:meta").arg(queue);
    return m_queueNode->cli({QStringLiteral("HGET"), meta, QStringLiteral("waiting")}).trimmed().toLongLong();
}

namespace {

// "cmdstat_<command>:calls=N,..." of INFO commandstats; it counts commands scripts run too.
qint64 commandsRun(RedisServer &node, const QByteArray &command)
{
    const QByteArray stats = node.cli({QStringLiteral("INFO"), QStringLiteral("commandstats")});
    const QByteArray label = "cmdstat_" + command + ":calls=";
    const qsizetype at = stats.indexOf(label);
    if (at < 0)
        return 0;
    const qsizetype from = at + label.size();
    return stats.mid(from, stats.indexOf(',', from) - from).toLongLong();
}

} // namespace

QString TestCrossBrokerWakeups::leaseForASecond(const QString &queue, const QByteArray &data)
{
    if (!publish(*a, queue, data))
        return {};
    ConsumeRequest lease;
    lease.acknowledge = false;
    lease.visibilityTimeoutMs = 1'000;
    const Result<QList<Message>> leased =
        awaitResult<QList<Message>>([&](auto done) { a->broker.consume(queue, lease, 0, done); });
    return leased.ok() && leased->size() == 1 ? leased->first().id : QString();
}

qint64 TestCrossBrokerWakeups::publishCommandsRun()
{
    return commandsRun(*m_queueNode, "publish");
}

qint64 TestCrossBrokerWakeups::scriptCallsRun()
{
    return commandsRun(*m_queueNode, "fcall") + commandsRun(*m_queueNode, "evalsha") + commandsRun(*m_queueNode, "eval");
}

void TestCrossBrokerWakeups::aPublishWakesAPollOnAnotherBroker()
{
    makeBrokers(serverOptions());
    createQueue(QStringLiteral("jobs"));
    Poll poll;
    QVERIFY(parkOnB(poll, QStringLiteral("jobs")));

    QElapsedTimer published;
    QVERIFY(publish(*a, QStringLiteral("jobs"), "\"one\""));
    published.start();
    QVERIFY2(waitUntil([&] { return poll.answered(); }, AnsweredWithinMs), "the poll on B was not woken");
    QCOMPARE(poll.messages().size(), 1);
    QCOMPARE(poll.messages().first().data, QByteArray("\"one\""));
    QVERIFY(b->store.wakeups().wakeupsReceived() >= 1);
}

void TestCrossBrokerWakeups::aNackAndAnExpiredLeaseWakeAnotherBroker()
{
    makeBrokers(serverOptions());
    createQueue(QStringLiteral("work"));
    QVERIFY(publish(*a, QStringLiteral("work"), "\"job\""));
    ConsumeRequest lease;
    lease.acknowledge = false;
    lease.visibilityTimeoutMs = 60'000;
    Result<QList<Message>> leased = awaitResult<QList<Message>>([&](auto done) { a->broker.consume(QStringLiteral("work"), lease, 0, done); });
    QVERIFY(leased.ok() && leased->size() == 1);

    // A gives the message back: B, waiting, gets it.
    Poll afterNack;
    QVERIFY(parkOnB(afterNack, QStringLiteral("work"), false));
    const MessageRef ref{leased->first().id, leased->first().receipt, {}, QStringLiteral("alice")};
    QVERIFY(awaitResult<NackResult>([&](auto done) { a->broker.nack(QStringLiteral("work"), ref, 0, done); }).ok());
    QVERIFY2(waitUntil([&] { return afterNack.answered(); }, AnsweredWithinMs), "a nack on A did not wake B");
    QCOMPARE(afterNack.messages().size(), 1);

    // B's lease runs out and A's reaper returns the message: B, waiting again, gets it.
    const Message onB = afterNack.messages().first();
    const MessageRef bRef{onB.id, onB.receipt, {}, QStringLiteral("bob")};
    QVERIFY(awaitResult<qint64>([&](auto done) { b->broker.extend(QStringLiteral("work"), bRef, 1000, done); }).ok());
    Poll afterExpiry;
    QVERIFY(parkOnB(afterExpiry, QStringLiteral("work")));
    QTest::qWait(1100);
    QVERIFY(!afterExpiry.answered()); // B's own reaper does not run for a minute
    a->broker.runMaintenance();
    QVERIFY2(waitUntil([&] { return afterExpiry.answered(); }, AnsweredWithinMs), "an expiry on A did not wake B");
    QCOMPARE(afterExpiry.messages().size(), 1);
    QCOMPARE(afterExpiry.messages().first().id, onB.id);
}

void TestCrossBrokerWakeups::nobodyWaitingNothingIsPublished()
{
    makeBrokers(serverOptions());
    createQueue(QStringLiteral("busy"));
    const qint64 before = publishCommandsRun();
    for (int i = 0; i < 20; ++i)
        QVERIFY(publish(*a, QStringLiteral("busy"), "\"x\""));
    QCOMPARE(publishCommandsRun(), before);

    // One waiter: the next publish announces itself, once.
    createQueue(QStringLiteral("quiet"));
    Poll quiet;
    QVERIFY(parkOnB(quiet, QStringLiteral("quiet")));
    QVERIFY(publish(*a, QStringLiteral("quiet"), "\"y\""));
    QVERIFY(waitUntil([&] { return quiet.answered(); }, AnsweredWithinMs));
    QCOMPARE(publishCommandsRun(), before + 1);
}

void TestCrossBrokerWakeups::anEndedWaitIsNotWoken()
{
    makeBrokers(serverOptions());
    createQueue(QStringLiteral("late"));
    const QString meta = QStringLiteral("brokerdesk:{late}:meta");
    const qint64 before = publishCommandsRun();
    // A wait that ended a second ago (its broker went away, or its poll was answered long since).
    m_server.cli({QStringLiteral("HSET"), meta, QStringLiteral("waiting"), QString::number(m_clock.nowMs() - 1000)});
    QVERIFY(publish(*a, QStringLiteral("late"), "\"x\""));
    QCOMPARE(publishCommandsRun(), before);
    // Found ended, it is put back to none: later changes need not look at the clock for it.
    QCOMPARE(waitingUntil(QStringLiteral("late")), 0);
    // One that lasts another minute: announced.
    m_server.cli({QStringLiteral("HSET"), meta, QStringLiteral("waiting"), QString::number(m_clock.nowMs() + 60'000)});
    QVERIFY(publish(*a, QStringLiteral("late"), "\"y\""));
    QCOMPARE(publishCommandsRun(), before + 1);
}

void TestCrossBrokerWakeups::aShorterWaitDoesNotEndALongerOne()
{
    makeBrokers(serverOptions());
    createQueue(QStringLiteral("shared"));
    const qint64 longUntil = m_clock.nowMs() + 120'000;
    b->store.awaitMessages(QStringLiteral("shared"), longUntil);
    QVERIFY(waitUntil([&] { return waitingUntil(QStringLiteral("shared")) >= longUntil; }));
    // A's consumer waits a second: Redis keeps B's end, which lies further ahead.
    const qint64 calls = scriptCallsRun();
    a->store.awaitMessages(QStringLiteral("shared"), m_clock.nowMs() + 1000);
    QVERIFY(idle(*a));
    QVERIFY(scriptCallsRun() > calls); // A's wait did reach Redis
    QVERIFY(waitingUntil(QStringLiteral("shared")) >= longUntil);
    // A wait that reaches further moves it.
    const qint64 longer = longUntil + 60'000;
    a->store.awaitMessages(QStringLiteral("shared"), longer);
    QVERIFY(waitUntil([&] { return waitingUntil(QStringLiteral("shared")) >= longer; }));
}

void TestCrossBrokerWakeups::aWaitOnAMissingQueueMakesNothing()
{
    makeBrokers(serverOptions());
    b->store.awaitMessages(QStringLiteral("nosuch"), m_clock.nowMs() + 5000);
    QVERIFY(idle(*b));
    QCOMPARE(m_server.cli({QStringLiteral("EXISTS"), QStringLiteral("brokerdesk:{nosuch}:meta")}).trimmed(), QByteArray("0"));
    // The queue made afterwards is made whole, not refused as existing.
    createQueue(QStringLiteral("nosuch"));
}

void TestCrossBrokerWakeups::aWaitOutlivesItsQueueMadeAgain()
{
    makeBrokers(serverOptions());
    createQueue(QStringLiteral("again"));
    // B waits on the queue for a minute (as a poll's wait starts), then the queue is deleted and
    // made again under its name.
    b->store.awaitMessages(QStringLiteral("again"), m_clock.nowMs() + 60'000);
    QVERIFY(waitUntil([&] { return waitingUntil(QStringLiteral("again")) > m_clock.nowMs() + 50'000; }));
    QVERIFY(awaitResult<qint64>([&](auto done) { a->broker.deleteQueue(QStringLiteral("again"), done); }).ok());
    createQueue(QStringLiteral("again"));
    QVERIFY(waitingUntil(QStringLiteral("again")) > m_clock.nowMs() + 50'000);
    QCOMPARE(m_server.cli({QStringLiteral("EXISTS"), QStringLiteral("brokerdesk:{again}:waiting")}).trimmed(),
             QByteArray("0")); // taken back
    // B remembers its wait as set and does not set it again; the queue made again has it, so a
    // publish there still wakes B's next poll.
    Poll second;
    QVERIFY(parkOnB(second, QStringLiteral("again")));
    QVERIFY(publish(*a, QStringLiteral("again"), "\"back\""));
    QVERIFY2(waitUntil([&] { return second.answered(); }, AnsweredWithinMs), "the poll on B was not woken");
    QCOMPARE(second.messages().size(), 1);
}

void TestCrossBrokerWakeups::oneWakeUpPerQueueAndScript()
{
    // Three messages run out of time in one queue; the consume that finds them dead-letters all
    // three into a queue B waits on, opening it once per message: one PUBLISH, not three.
    makeBrokers(serverOptions());
    createQueue(QStringLiteral("dead"));
    QueueConfig config;
    config.ttlSeconds = 1;
    config.deadLetterQueue = QStringLiteral("dead");
    createQueue(QStringLiteral("brief"), config);
    for (int i = 0; i < 3; ++i)
        QVERIFY(publish(*a, QStringLiteral("brief"), "\"old\""));
    Poll poll;
    QVERIFY(parkOnB(poll, QStringLiteral("dead")));
    QTest::qWait(1'100);
    const qint64 before = publishCommandsRun();
    ConsumeRequest request;
    QVERIFY(awaitResult<QList<Message>>([&](auto done) { a->broker.consume(QStringLiteral("brief"), request, 0, done); })
                ->isEmpty());
    QCOMPARE(publishCommandsRun(), before + 1);
    QVERIFY2(waitUntil([&] { return poll.answered(); }, AnsweredWithinMs), "the poll on B was not woken");
    QCOMPARE(poll.messages().size(), 1);
}

void TestCrossBrokerWakeups::brokersWhoseClocksDisagreeWakeEachOther()
{
    // Waits are set and read by Redis's clock: a publisher whose clock is an hour ahead of the
    // waiting broker's (with the brokers' clocks compared, it would take every wait for ended),
    // or an hour behind it, still wakes it.
    for (const qint64 offset : {3'600'000LL, -3'600'000LL}) {
        b.reset();
        a.reset();
        m_offsetClock = std::make_unique<OffsetClock>(offset);
        RedisStoreOptions options = serverOptions();
        a = std::make_unique<BrokerOnRedis>(options, m_types, *m_offsetClock, withoutReaper());
        b = std::make_unique<BrokerOnRedis>(options, m_types, m_clock, withoutReaper());
        QVERIFY(waitUntil([&] {
            return a->store.wakeups().subscriber().isSubscribed() && b->store.wakeups().subscriber().isSubscribed()
                   && a->store.client().readyCount() > 0 && b->store.client().readyCount() > 0;
        }, 10'000));
        const QString queue = offset > 0 ? QStringLiteral("ahead") : QStringLiteral("behind");
        createQueue(queue);
        Poll poll;
        QVERIFY(parkOnB(poll, queue));
        QVERIFY(publish(*a, queue, "\"tick\""));
        QVERIFY2(waitUntil([&] { return poll.answered(); }, AnsweredWithinMs), qPrintable(queue));
        QCOMPARE(poll.messages().size(), 1);
    }
}

void TestCrossBrokerWakeups::whatWasPublishedWhileCutOffIsFound()
{
    makeBrokers(serverOptions());
    createQueue(QStringLiteral("gap"));
    Poll poll;
    QVERIFY(parkOnB(poll, QStringLiteral("gap")));
    const qint64 subscriptions = b->store.wakeups().subscriber().subscriptions();
    const qint64 heard = b->store.wakeups().wakeupsReceived();

    // Both brokers' subscriptions are cut; A's publish goes out before B has subscribed again
    // (B reconnects after a back-off), so its message reaches no one.
    m_server.cli({QStringLiteral("CLIENT"), QStringLiteral("KILL"), QStringLiteral("TYPE"), QStringLiteral("pubsub")});
    QVERIFY(publish(*a, QStringLiteral("gap"), "\"meanwhile\""));
    QVERIFY2(waitUntil([&] { return poll.answered(); }, AnsweredWithinMs), "the poll on B was not answered");
    QCOMPARE(poll.messages().size(), 1);
    QCOMPARE(b->store.wakeups().wakeupsReceived(), heard); // not by a wake-up: by the look after resubscribing
    QVERIFY(b->store.wakeups().subscriber().subscriptions() > subscriptions);
    QVERIFY(b->store.wakeups().subscriber().isSubscribed());
}

// An ACL user with the keys but no pub/sub channel (Redis 7's default for new users): the wake-up's
// PUBLISH is refused inside scripts that already changed the queue, and must not undo or cut
// them short; the subscription is refused, and says so.
// The narrow grant docs/redis.md names (no TIME among it: scripts take the broker's clock then):
// waits are set, a publish wakes a poll on the other broker, and an expired lease given back on a
// queue with a wait on it is kept.
void TestCrossBrokerWakeups::aUserWithTheNarrowGrantWakesAndLosesNothing()
{
    QCOMPARE(m_server.cli({"ACL", "SETUSER", "narrow", "on", ">secret", "~brokerdesk:*", "&brokerdesk:*", "+@read",
                           "+@write", "+@scripting", "+@pubsub", "+ping", "+info", "+select"}),
             QByteArray("OK"));
    RedisStoreOptions options = serverOptions();
    options.connection.username = QStringLiteral("narrow");
    options.connection.password = QStringLiteral("secret");
    makeBrokers(options);
    createQueue(QStringLiteral("narrow"));
    Poll poll;
    QVERIFY(parkOnB(poll, QStringLiteral("narrow")));
    QVERIFY(publish(*a, QStringLiteral("narrow"), "\"one\""));
    QVERIFY2(waitUntil([&] { return poll.answered(); }, AnsweredWithinMs), "the poll on B was not woken");
    QCOMPARE(poll.messages().size(), 1);

    const QString leased = leaseForASecond(QStringLiteral("narrow"), "\"two\"");
    QVERIFY(!leased.isEmpty());
    Poll waiting;
    QVERIFY(parkOnB(waiting, QStringLiteral("narrow")));
    QTest::qWait(1'100);
    a->broker.runMaintenance(); // gives the lease back: a wake-up for B
    QVERIFY2(waitUntil([&] { return waiting.answered(); }, AnsweredWithinMs), "the expired lease did not wake B");
    QCOMPARE(waiting.messages().size(), 1);
    QCOMPARE(waiting.messages().first().id, leased);
}

void TestCrossBrokerWakeups::aUserWithoutTheChannelLosesNothing()
{
    QCOMPARE(m_server.cli({"ACL", "SETUSER", "keysonly", "on", ">secret", "~brokerdesk:*", "+@all", "resetchannels"}),
             QByteArray("OK"));
    RedisStoreOptions options = serverOptions();
    options.connection.username = QStringLiteral("keysonly");
    options.connection.password = QStringLiteral("secret");
    a = std::make_unique<BrokerOnRedis>(options, m_types, m_clock, withoutReaper());
    b = std::make_unique<BrokerOnRedis>(options, m_types, m_clock, withoutReaper());
    QVERIFY(waitUntil([&] {
        return a->store.client().readyCount() == 2 && b->store.client().readyCount() == 2
               && b->store.wakeups().subscriber().lastError().contains(QStringLiteral("NOPERM"));
    }));
    QVERIFY(!b->store.wakeups().subscriber().isSubscribed());
    QVERIFY(b->store.status().wakeupError.contains(QStringLiteral("NOPERM")));
    createQueue(QStringLiteral("guarded"));

    // B waits (its wait is set); A leases a message, its lease runs out and A's reaper gives
    // it back (the step that publishes, refused), then A takes it again.
    const QString leased = leaseForASecond(QStringLiteral("guarded"), "\"kept\"");
    QVERIFY(!leased.isEmpty());
    Poll waiting;
    QVERIFY(parkOnB(waiting, QStringLiteral("guarded")));
    QTest::qWait(1'100);
    a->broker.runMaintenance();
    QVERIFY(waitUntil([&] { return a->store.client().commandsInFlight() == 0; }));
    const Result<QList<Message>> again =
        awaitResult<QList<Message>>([&](auto done) { a->broker.consume(QStringLiteral("guarded"), ConsumeRequest{}, 0, done); });
    QVERIFY(again.ok());
    QCOMPARE(again->size(), 1); // back in the queue: the refused PUBLISH did not cut the reaper's step short
    QCOMPARE(again->first().id, leased);
    QVERIFY(!waiting.answered()); // B hears nothing without the channel (its reaper would answer)
}

void TestCrossBrokerWakeups::acrossTheCluster()
{
    QVERIFY2(m_cluster.start(), qPrintable(m_cluster.errorString()));
    makeBrokers(clusterOptions());
    const QString queue = QStringLiteral("spread");
    m_queueNode = &m_cluster.node(m_cluster.primaryFor(queue.toUtf8()));
    createQueue(queue);
    for (int round = 0; round < 3; ++round) {
        Poll poll;
        QVERIFY(parkOnB(poll, queue));
        QVERIFY(publish(*a, queue, "\"far\""));
        QVERIFY2(waitUntil([&] { return poll.answered(); }, AnsweredWithinMs), "the poll on B was not woken");
        QCOMPARE(poll.messages().size(), 1);
    }
}

void TestCrossBrokerWakeups::aDeadNodeMovesTheSubscription()
{
    if (m_cluster.size() == 0) // run alone: acrossTheCluster did not start it
        QVERIFY2(m_cluster.start(), qPrintable(m_cluster.errorString()));
    makeBrokers(clusterOptions());
    const Redis::NodeAddress subscribedTo = b->store.wakeups().subscriber().node();
    const int dead = m_cluster.ports().indexOf(quint16(subscribedTo.port));
    QVERIFY(dead >= 0);
    m_cluster.node(dead).kill();
    QVERIFY2(m_cluster.waitHealthy(), qPrintable(m_cluster.errorString()));
    QVERIFY(waitUntil([&] {
        return b->store.wakeups().subscriber().isSubscribed() && !(b->store.wakeups().subscriber().node() == subscribedTo)
               && a->store.wakeups().subscriber().isSubscribed() && a->store.cluster()->allSlotsServed()
               && b->store.cluster()->allSlotsServed();
    }, 15'000));

    const QString queue = QStringLiteral("after-failover");
    m_queueNode = &m_cluster.node(m_cluster.primaryFor(queue.toUtf8()));
    createQueue(queue);
    Poll poll;
    QVERIFY(parkOnB(poll, queue));
    QVERIFY(publish(*a, queue, "\"moved\""));
    QVERIFY2(waitUntil([&] { return poll.answered(); }, AnsweredWithinMs), "the poll on B was not woken");
    QCOMPARE(poll.messages().size(), 1);
}

QTEST_GUILESS_MAIN(TestCrossBrokerWakeups)
#include "tst_crossbrokerwakeups.moc"
