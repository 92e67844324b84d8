// SPDX-License-Identifier: GPL-3.0-or-later
// The Redis store's script runner alone, against a real redis-server and a black-hole server
// (accepts, never answers): NOSCRIPT answered by EVAL, which outcomes count toward the breaker,
// fail-fast while it is open, a probe closing it, and which calls are retried.
#include "redis/connectionpool.h"
#include "storage/resilientscriptrunner.h"

#include "../support/eventloop.h"
#include "../support/redisserver.h"

#include <QCryptographicHash>
#include <QElapsedTimer>
#include <QTest>

#include <memory>
#include <optional>

using namespace Broker;
using namespace Broker::Testing;
using Retry = ResilientScriptRunner::Retry;

Q_DECLARE_METATYPE(Broker::CircuitBreaker::State)
Q_DECLARE_METATYPE(Broker::ResilientScriptRunner::Retry)

namespace {

Redis::Script script(const char *name, const QByteArray &source)
{
    Redis::Script s;
    s.name = QString::fromLatin1(name);
    s.source = source;
    s.sha1 = QCryptographicHash::hash(source, QCryptographicHash::Sha1).toHex();
    return s;
}

// A pool and a runner on `port`, with short deadlines so that a black hole answers in time.
struct Runner
{
    explicit Runner(quint16 port, int failureThreshold = 3, RetryPolicy readRetry = {10, 2.0, 50, 3})
        : pool(connection(port), poolOptions()), runner(pool, {failureThreshold, 30'000, 1000}, readRetry, clock)
    {
        runner.setBreakerObserver([this](CircuitBreaker::State now, const QString &failure) {
            changes.append(CircuitBreaker::stateName(now));
            failures.append(failure);
        });
        pool.start();
    }
    static Redis::ConnectionOptions connection(quint16 port)
    {
        Redis::ConnectionOptions options;
        options.port = port;
        options.connectTimeoutMs = 200;
        options.commandTimeoutMs = 200;
        return options;
    }
    static Redis::PoolOptions poolOptions()
    {
        Redis::PoolOptions options;
        options.size = 1;
        options.waitTimeoutMs = 100;
        options.reconnect = RetryPolicy{20, 2.0, 100, 0};
        return options;
    }
    // Runs `s` and waits for its outcome (every call here completes well within the wait).
    Redis::CommandResult run(const Redis::Script &s, Retry retry = Retry::Never, const QByteArrayList &args = {})
    {
        std::optional<Redis::CommandResult> outcome;
        runner.run(s, {QByteArrayLiteral("k")}, args, retry,
                   [&outcome](Redis::CommandResult result) { outcome = std::move(result); });
        if (!waitUntil([&] { return outcome.has_value(); }, 10'000))
            qFatal("a script call never completed");
        return std::move(*outcome);
    }
    bool ready() { return waitUntil([this] { return pool.readyCount() == 1; }); }

    ManualClock clock;
    Redis::ConnectionPool pool;
    ResilientScriptRunner runner;
    QStringList changes; // the breaker's states as the observer heard them
    QStringList failures;
};

const Redis::Script Echo = script("echo", "return ARGV[1]");
const Redis::Script Refuse = script("refuse", "return redis.error_reply('QUEUE_FULL queue is full')");

} // namespace

class TestResilientScriptRunner : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void noscriptIsAnsweredByEval();
    void whatCountsTowardTheBreaker_data();
    void whatCountsTowardTheBreaker();
    void anOpenBreakerFailsFastAndAProbeClosesIt();
    void readsAreRetriedChangesAreNot_data();
    void readsAreRetriedChangesAreNot();

private:
    RedisServer m_redis;
};

void TestResilientScriptRunner::initTestCase()
{
    QVERIFY2(m_redis.start(), qPrintable(m_redis.errorString()));
}

void TestResilientScriptRunner::noscriptIsAnsweredByEval()
{
    Runner r(m_redis.port());
    QVERIFY(r.ready());
    m_redis.cli({"SCRIPT", "FLUSH"});
    const Redis::CommandResult first = r.run(Echo, Retry::Never, {"one"});
    QVERIFY(first.ok());
    QCOMPARE(first->string, QByteArray("one"));
    QCOMPARE(r.runner.reloads(), 1); // never loaded: EVALSHA said NOSCRIPT, EVAL loaded it
    QCOMPARE(r.run(Echo, Retry::Never, {"two"})->string, QByteArray("two"));
    QCOMPARE(r.runner.reloads(), 1); // known now: EVALSHA alone
    m_redis.cli({"SCRIPT", "FLUSH"});
    QCOMPARE(r.run(Echo, Retry::Never, {"three"})->string, QByteArray("three"));
    QCOMPARE(r.runner.reloads(), 2);
    QCOMPARE(r.runner.breaker().state(), CircuitBreaker::State::Closed);
}

void TestResilientScriptRunner::whatCountsTowardTheBreaker_data()
{
    QTest::addColumn<bool>("blackHole");
    QTest::addColumn<bool>("refusingScript");
    QTest::addColumn<bool>("answered");
    QTest::addColumn<CircuitBreaker::State>("state");
    QTest::addRow("replies-close-nothing") << false << false << true << CircuitBreaker::State::Closed;
    QTest::addRow("error-replies-are-answers") << false << true << true << CircuitBreaker::State::Closed;
    QTest::addRow("no-reply-counts-and-opens") << true << false << false << CircuitBreaker::State::Open;
}

void TestResilientScriptRunner::whatCountsTowardTheBreaker()
{
    QFETCH(bool, blackHole);
    QFETCH(bool, refusingScript);
    QFETCH(bool, answered);
    QFETCH(CircuitBreaker::State, state);
    BlackHoleServer hole;
    Runner r(blackHole ? hole.port() : m_redis.port(), 3);
    if (!blackHole)
        QVERIFY(r.ready());
    for (int i = 0; i < 3; ++i) {
        const Redis::CommandResult result = r.run(refusingScript ? Refuse : Echo, Retry::Never, {"x"});
        QCOMPARE(result.ok(), answered);
        if (answered)
            QCOMPARE(result->isError(), refusingScript);
    }
    QCOMPARE(r.runner.breaker().state(), state);
    QCOMPARE(r.runner.breaker().consecutiveFailures(), answered ? 0 : 3);
    QCOMPARE(r.changes, answered ? QStringList() : QStringList{"open"});
    if (!answered)
        QVERIFY(!r.failures.value(0).isEmpty()); // the observer hears why
}

void TestResilientScriptRunner::anOpenBreakerFailsFastAndAProbeClosesIt()
{
    RedisServer redis;
    QVERIFY2(redis.start(), qPrintable(redis.errorString()));
    Runner r(redis.port(), 2);
    QVERIFY(r.ready());
    QVERIFY(r.run(Echo, Retry::Never, {"up"}).ok());
    redis.kill();
    QVERIFY(waitUntil([&] { return r.pool.readyCount() == 0; }));
    QVERIFY(!r.run(Echo).ok());
    QVERIFY(!r.run(Echo).ok());
    QCOMPARE(r.runner.breaker().state(), CircuitBreaker::State::Open);

    // Open: nothing is sent, the caller hears so at once, with the time to the next probe.
    QElapsedTimer timer;
    timer.start();
    const Redis::CommandResult refused = r.run(Echo);
    QVERIFY(timer.elapsed() < 50);
    QCOMPARE(refused.error().code, ErrorCode::Unavailable);
    QCOMPARE(refused.error().detail, Redis::NotSent);
    QVERIFY2(refused.error().message.contains("circuit breaker open; next attempt in 1 s"),
             qPrintable(refused.error().message));
    std::optional<Redis::CommandResult> command;
    r.runner.command({"PING"}, [&](Redis::CommandResult result) { command = std::move(result); });
    QVERIFY(command.has_value()); // refused before anything is sent
    QCOMPARE(command->error().detail, Redis::NotSent);

    // Redis back and the pause over: the next call is the probe, and its reply closes the breaker.
    QVERIFY2(redis.restart(), qPrintable(redis.errorString()));
    QVERIFY(r.ready());
    r.clock.advanceMs(1000);
    QCOMPARE(r.runner.breaker().state(), CircuitBreaker::State::HalfOpen);
    QCOMPARE(r.run(Echo, Retry::Never, {"back"})->string, QByteArray("back"));
    QCOMPARE(r.runner.breaker().state(), CircuitBreaker::State::Closed);
    QCOMPARE(r.changes, (QStringList{"open", "closed"}));
}

void TestResilientScriptRunner::readsAreRetriedChangesAreNot_data()
{
    QTest::addColumn<Retry>("retry");
    QTest::addColumn<int>("attempts");
    QTest::addRow("reads-use-the-attempt-budget") << Retry::Reads << 3;
    QTest::addRow("changes-go-once") << Retry::Never << 1;
}

void TestResilientScriptRunner::readsAreRetriedChangesAreNot()
{
    QFETCH(Retry, retry);
    QFETCH(int, attempts);
    BlackHoleServer hole;
    Runner r(hole.port(), 10); // a high threshold: the breaker stays closed and counts
    const Redis::CommandResult result = r.run(Echo, retry);
    QVERIFY(!result.ok());
    // Each attempt went through the breaker and recorded its failure there.
    QCOMPARE(r.runner.breaker().consecutiveFailures(), attempts);
    QCOMPARE(r.runner.breaker().state(), CircuitBreaker::State::Closed);
}

QTEST_GUILESS_MAIN(TestResilientScriptRunner)
#include "tst_resilientscriptrunner.moc"
