// SPDX-License-Identifier: GPL-3.0-or-later
// The Redis store's group commit (RedisOperations::publish): publishes to a queue that arrive while
// an earlier call of that queue is on its way wait, then go together in one script call; each
// stays all or nothing against max_size, answers for itself, and keeps its place in the queue's
// order; when Redis does not answer a call, what waits behind it fails unsent (the spool takes
// it, in order). Also: a batch larger than Lua's unpack limit. On one redis-server, and
// (BROKER_TEST_STORE=redis-cluster) on a cluster.
#include "storage/redisstore.h"

#include "engine/queuetyperegistry.h"

#include "../support/awaitresult.h"
#include "../support/redisbackend.h"

#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace Broker;
using namespace Broker::Testing;

namespace {

const QString Queue = QStringLiteral("orders");

// Messages whose data are their numbers, padded with spaces to `bytes` when given.
QList<NewMessage> messages(int first, int count, int bytes = 0)
{
    QList<NewMessage> out;
    for (int i = first; i < first + count; ++i) {
        NewMessage m;
        m.data = QByteArray::number(i);
        if (m.data.size() < bytes)
            m.data.append(QByteArray(bytes - m.data.size(), ' '));
        out.append(m);
    }
    return out;
}

// A `type` column with a row for each queue type the scripts implement.
void addQueueTypes()
{
    QTest::addColumn<QString>("type");
    QTest::addRow("list") << QStringLiteral("list");
    QTest::addRow("priority") << QStringLiteral("priority");
    QTest::addRow("stream") << QStringLiteral("stream");
}

// A failed result's message, for QVERIFY2 (which reads it whether or not the check fails).
template<typename T>
QByteArray whyNot(const Result<T> &r)
{
    return r ? QByteArray() : r.error().message.toUtf8();
}

// Publishes started one after the other without waiting, and what each was answered (and how
// often: a completion must run once).
class Publishes
{
public:
    explicit Publishes(QueueStore &store) : m_store(store) {}
    void start(const QList<NewMessage> &batch, std::function<void()> then = {})
    {
        const auto index = m_answers.size();
        m_answers.append(std::nullopt);
        m_calls.append(0);
        m_store.publish(Queue, batch, QStringLiteral("alice"),
                        [this, index, then = std::move(then)](Result<PublishResult> r) {
                            ++m_calls[index];
                            m_answers[index] = std::move(r);
                            if (then)
                                then();
                        });
    }
    bool waitForAll(int timeoutMs = 10'000)
    {
        return waitUntil([this] { return !m_calls.contains(0); }, timeoutMs);
    }
    const Result<PublishResult> &answer(qsizetype i) const { return *m_answers.at(i); }
    bool completed(qsizetype i) const { return m_calls.at(i) > 0; }
    qsizetype size() const { return m_answers.size(); }
    bool eachCompletedOnce() const { return m_calls.count(1) == m_calls.size(); }

private:
    QueueStore &m_store;
    QList<std::optional<Result<PublishResult>>> m_answers;
    QList<int> m_calls;
};

} // namespace

class TestRedisPublishGroups : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void publishesThatWaitGoInOneCall_data();
    void publishesThatWaitGoInOneCall();
    void waitingPublishesSplitIntoCalls_data();
    void waitingPublishesSplitIntoCalls();
    void eachPublishIsAllOrNothingAgainstMaxSize_data();
    void eachPublishIsAllOrNothingAgainstMaxSize();
    void aPublishMadeInACompletionGoesAfterThoseThatWaited();
    void aRefusedCallRefusesEachPublishInIt();
    void aStoppedRedisFailsTheWaitingPublishesUnsent();
    void theSpoolTakesTheWaitingPublishesInOrder();
    void publishesBeyondTheWaitingBoundFailUnsent();
    void aBatchBeyondLuasUnpackLimitIsTaken();

private:
    std::unique_ptr<RedisStore> newStore(RedisStoreOptions options);
    std::unique_ptr<RedisStore> newStore() { return newStore(m_redis.options()); }
    void createQueue(QueueStore &store, const QString &type, qint64 maxSize = 100'000);
    // Takes every message of the queue (acknowledge=true), their data (numbers only) in the order delivered.
    QList<QByteArray> drain(QueueStore &store);
    // Publishes 0..5 to a stopped Redis: the first goes alone and times out, the others wait.
    void publishToAStoppedRedis(Publishes &publishes, RedisStore &store);

    RedisBackend m_redis;
    QueueTypeRegistry m_types;
    ManualClock m_clock;
};

void TestRedisPublishGroups::initTestCase()
{
    QVERIFY2(m_redis.start(), qPrintable(m_redis.errorString()));
}

void TestRedisPublishGroups::init()
{
    m_redis.flush();
}

std::unique_ptr<RedisStore> TestRedisPublishGroups::newStore(RedisStoreOptions options)
{
    auto store = std::make_unique<RedisStore>(options, m_types, m_clock);
    store->start();
    if (!waitUntil([&] { return store->client().readyCount() == store->client().size() && store->client().size() > 0; }))
        qFatal("the Redis store is not ready after 5 s");
    return store;
}

void TestRedisPublishGroups::createQueue(QueueStore &store, const QString &type, qint64 maxSize)
{
    QueueConfig config;
    config.type = type;
    config.maxSize = maxSize;
    QVERIFY(awaitResult<QueueInfo>([&](auto d) { store.createQueue(Queue, config, d); }).ok());
}

QList<QByteArray> TestRedisPublishGroups::drain(QueueStore &store)
{
    QList<QByteArray> out;
    for (;;) {
        ConsumeRequest request;
        request.count = 100;
        const Result<QList<Message>> taken = awaitResult<QList<Message>>([&](auto d) { store.consume(Queue, request, d); });
        if (!taken || taken->isEmpty())
            return out;
        for (const Message &m : *taken)
            out << m.data.trimmed();
    }
}

void TestRedisPublishGroups::publishesThatWaitGoInOneCall_data()
{
    addQueueTypes();
}

void TestRedisPublishGroups::publishesThatWaitGoInOneCall()
{
    QFETCH(QString, type);
    const auto store = newStore();
    createQueue(*store, type);
    const qint64 callsBefore = m_redis.commandCalls("fcall");
    Publishes publishes(*store);
    for (int i = 0; i < 50; ++i)
        publishes.start(messages(i, 1));
    QVERIFY(publishes.waitForAll());
    QVERIFY(publishes.eachCompletedOnce());
    // The first went alone; the 49 that came while it was on its way, together.
    QCOMPARE(m_redis.commandCalls("fcall") - callsBefore, 2);
    for (int i = 0; i < 50; ++i) {
        QVERIFY2(publishes.answer(i).ok(), whyNot(publishes.answer(i)).constData());
        QCOMPARE(publishes.answer(i)->queueSize, i + 1); // the queue's size after this publish
    }
    QList<QByteArray> expected;
    for (int i = 0; i < 50; ++i)
        expected << QByteArray::number(i);
    QCOMPARE(drain(*store), expected);
}

void TestRedisPublishGroups::waitingPublishesSplitIntoCalls_data()
{
    QTest::addColumn<int>("publishCount");
    QTest::addColumn<int>("messagesEach");
    QTest::addColumn<int>("bytesEach");
    QTest::addColumn<int>("calls");
    // The first alone; then as many as fit in 1,000 messages and 1 MiB.
    QTest::addRow("batches-past-a-call's-messages") << 4 << 600 << 0 << 4;
    QTest::addRow("publishes-past-a-call's-bytes") << 6 << 1 << 300'000 << 3;
    QTest::addRow("a-batch-larger-than-a-call") << 3 << 1'500 << 0 << 3;
}

void TestRedisPublishGroups::waitingPublishesSplitIntoCalls()
{
    QFETCH(int, publishCount);
    QFETCH(int, messagesEach);
    QFETCH(int, bytesEach);
    QFETCH(int, calls);
    const auto store = newStore();
    createQueue(*store, QStringLiteral("list"));
    const qint64 callsBefore = m_redis.commandCalls("fcall");
    Publishes publishes(*store);
    for (int i = 0; i < publishCount; ++i)
        publishes.start(messages(i * messagesEach, messagesEach, bytesEach));
    QVERIFY(publishes.waitForAll());
    QVERIFY(publishes.eachCompletedOnce());
    for (int i = 0; i < publishCount; ++i)
        QVERIFY2(publishes.answer(i).ok(), whyNot(publishes.answer(i)).constData());
    QCOMPARE(m_redis.commandCalls("fcall") - callsBefore, calls);
    const QList<QByteArray> held = drain(*store);
    QCOMPARE(held.size(), publishCount * messagesEach);
    for (qsizetype i = 0; i < held.size(); ++i)
        QCOMPARE(held[i], QByteArray::number(i));
}

void TestRedisPublishGroups::eachPublishIsAllOrNothingAgainstMaxSize_data()
{
    addQueueTypes();
}

void TestRedisPublishGroups::eachPublishIsAllOrNothingAgainstMaxSize()
{
    QFETCH(QString, type);
    const auto store = newStore();
    createQueue(*store, type, 10);
    Publishes publishes(*store);
    publishes.start(messages(0, 3));  // alone: 3
    publishes.start(messages(3, 4));  // waits, fits: 7
    publishes.start(messages(7, 5));  // would be 12: refused whole
    publishes.start(messages(12, 1)); // fits: 8
    publishes.start(messages(13, 2)); // fits: 10
    publishes.start(messages(15, 1)); // full
    QVERIFY(publishes.waitForAll());
    QVERIFY(publishes.eachCompletedOnce());
    const QList<qint64> sizes{3, 7, -1, 8, 10, -1};
    for (qsizetype i = 0; i < sizes.size(); ++i) {
        if (sizes[i] < 0) {
            QVERIFY2(!publishes.answer(i), qPrintable(QString::number(i)));
            QCOMPARE(publishes.answer(i).error().code, ErrorCode::QueueFull);
        } else {
            QVERIFY2(publishes.answer(i).ok(), qPrintable(QString::number(i)));
            QCOMPARE(publishes.answer(i)->queueSize, sizes[i]);
            QCOMPARE(publishes.answer(i)->messageSequences.size(), i == 1 ? 4 : i == 4 ? 2 : i == 0 ? 3 : 1);
        }
    }
    const QList<QByteArray> expected{"0", "1", "2", "3", "4", "5", "6", "12", "13", "14"};
    QCOMPARE(drain(*store), expected);
}

void TestRedisPublishGroups::aPublishMadeInACompletionGoesAfterThoseThatWaited()
{
    const auto store = newStore();
    createQueue(*store, QStringLiteral("list"));
    Publishes publishes(*store);
    // A's completion publishes C; B waited for A's call before it: B goes before C.
    publishes.start(messages(0, 1), [&] { publishes.start(messages(2, 1)); });
    publishes.start(messages(1, 1));
    QVERIFY(waitUntil([&] { return publishes.size() == 3; }));
    QVERIFY(publishes.waitForAll());
    QVERIFY(publishes.eachCompletedOnce());
    for (qsizetype i = 0; i < 3; ++i)
        QVERIFY(publishes.answer(i).ok());
    const QList<QByteArray> expected{"0", "1", "2"};
    QCOMPARE(drain(*store), expected);
}

void TestRedisPublishGroups::aRefusedCallRefusesEachPublishInIt()
{
    const auto store = newStore();
    createQueue(*store, QStringLiteral("list"));
    // Gone behind the store's back: the store still takes the queue for one that exists.
    m_redis.cli("brokerdesk:{" + Queue.toUtf8() + "}:meta", {QStringLiteral("DEL")});
    Publishes publishes(*store);
    for (int i = 0; i < 5; ++i)
        publishes.start(messages(i, 1));
    QVERIFY(publishes.waitForAll());
    QVERIFY(publishes.eachCompletedOnce());
    for (qsizetype i = 0; i < 5; ++i) {
        QVERIFY(!publishes.answer(i));
        QCOMPARE(publishes.answer(i).error().code, ErrorCode::QueueNotFound);
    }
    QCOMPARE(m_redis.cli("brokerdesk:{" + Queue.toUtf8() + "}:ready", {QStringLiteral("LLEN")}), QByteArray("0"));
}

void TestRedisPublishGroups::publishToAStoppedRedis(Publishes &publishes, RedisStore &store)
{
    createQueue(store, QStringLiteral("list"));
    m_redis.pause();
    for (int i = 0; i < 6; ++i)
        publishes.start(messages(i, 1));
    const bool allAnswered = publishes.waitForAll(10'000);
    m_redis.resume();
    QVERIFY(allAnswered);
    QVERIFY(publishes.eachCompletedOnce());
    QVERIFY(waitUntil([&] { return store.client().readyCount() == store.client().size(); }));
}

void TestRedisPublishGroups::aStoppedRedisFailsTheWaitingPublishesUnsent()
{
    RedisStoreOptions options = m_redis.options();
    options.connection.commandTimeoutMs = 1'000;
    options.breaker.failureThreshold = 1000; // the deadline is the subject here, not the breaker
    const auto store = newStore(options);
    Publishes publishes(*store);
    publishToAStoppedRedis(publishes, *store);
    if (QTest::currentTestFailed())
        return;
    QVERIFY(!publishes.answer(0));
    QCOMPARE(publishes.answer(0).error().code, ErrorCode::Timeout);
    // Not sent: each failed with the call before it, not after a deadline of its own.
    for (qsizetype i = 1; i < publishes.size(); ++i) {
        QVERIFY2(!publishes.answer(i), qPrintable(QString::number(i)));
        QCOMPARE(publishes.answer(i).error().detail, Redis::NotSent);
    }
    // The first was on its way: Redis may have taken it once it ran again (a timeout says the
    // outcome is unknown). The others never reached it.
    const QList<QByteArray> held = drain(*store);
    QVERIFY2(held.isEmpty() || held == QList<QByteArray>{"0"}, held.join(' ').constData());
}

void TestRedisPublishGroups::theSpoolTakesTheWaitingPublishesInOrder()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    RedisStoreOptions options = m_redis.options();
    options.connection.commandTimeoutMs = 1'000;
    options.breaker.failureThreshold = 1000;
    auto store = std::make_unique<RedisStore>(options, m_types, m_clock);
    store->setSpool(std::move(PublishSpool::open(dir.filePath(QStringLiteral("spool")), {}).value()));
    store->start();
    QVERIFY(waitUntil([&] { return store->client().readyCount() == store->client().size() && store->client().size() > 0; }));
    Publishes publishes(*store);
    publishToAStoppedRedis(publishes, *store);
    if (QTest::currentTestFailed())
        return;
    QVERIFY(!publishes.answer(0)); // sent, outcome unknown: not the spool's
    for (qsizetype i = 1; i < publishes.size(); ++i)
        QVERIFY2(publishes.answer(i).ok(), whyNot(publishes.answer(i)).constData()); // spooled
    QVERIFY(waitUntil([&] { return store->spool()->isEmpty(); }, 15'000));
    QList<QByteArray> held = drain(*store);
    if (held.value(0) == "0")
        held.removeFirst();
    const QList<QByteArray> spooled{"1", "2", "3", "4", "5"};
    QCOMPARE(held, spooled);
}

void TestRedisPublishGroups::publishesBeyondTheWaitingBoundFailUnsent()
{
    RedisStoreOptions options = m_redis.options();
    options.connection.commandTimeoutMs = 30'000; // the first call waits until Redis runs again
    const auto store = newStore(options);
    createQueue(*store, QStringLiteral("list"));
    m_redis.pause();
    Publishes publishes(*store);
    constexpr int Count = 70; // 1 MiB each: 64 MiB may wait behind the first
    for (int i = 0; i < Count; ++i)
        publishes.start(messages(i, 1, 1 << 20));
    // Refused at once, before Redis runs again: the publishes past the bound, and only those.
    qsizetype refused = 0;
    for (qsizetype i = Count - 1; i > 0 && publishes.completed(i); --i) {
        QCOMPARE(publishes.answer(i).error().detail, Redis::NotSent);
        ++refused;
    }
    m_redis.resume();
    QVERIFY(refused >= 5 && refused <= 7);
    QVERIFY(publishes.waitForAll(30'000));
    QVERIFY(publishes.eachCompletedOnce());
    for (qsizetype i = 0; i < Count - refused; ++i)
        QVERIFY2(publishes.answer(i).ok(), whyNot(publishes.answer(i)).constData());
    QCOMPARE(drain(*store).size(), Count - refused);
}

void TestRedisPublishGroups::aBatchBeyondLuasUnpackLimitIsTaken()
{
    const auto store = newStore();
    createQueue(*store, QStringLiteral("list"));
    constexpr int Count = 9'000; // Lua's unpack gives at most about 8,000 values
    const Result<PublishResult> r =
        awaitResult<PublishResult>([&](auto d) { store->publish(Queue, messages(0, Count), QStringLiteral("alice"), d); });
    QVERIFY2(r.ok(), whyNot(r).constData());
    QCOMPARE(r->queueSize, Count);
    const QList<QByteArray> held = drain(*store);
    QCOMPARE(held.size(), Count);
    for (int i = 0; i < Count; ++i)
        QCOMPARE(held[i], QByteArray::number(i));
}

QTEST_GUILESS_MAIN(TestRedisPublishGroups)
#include "tst_redispublishgroups.moc"
