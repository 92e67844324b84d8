// SPDX-License-Identifier: GPL-3.0-or-later
// The Redis layer against a real redis-server and a black-hole server: replies, handshake,
// deadlines, dropped connections, the pool's waiting and reconnecting, and script reloads.
#include "redis/connectionpool.h"
#include "redis/redisconnection.h"
#include "redis/scriptcache.h"

#include "../support/eventloop.h"
#include "../support/redisserver.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTest>

#include <optional>

using namespace Broker;
using namespace Broker::Redis;
using namespace Broker::Testing;

namespace {

// Runs the event loop until `done()` or `timeoutMs`; returns done().

ConnectionOptions optionsFor(quint16 port)
{
    ConnectionOptions options;
    options.port = port;
    options.connectTimeoutMs = 1000;
    options.commandTimeoutMs = 1000;
    return options;
}

// Sends one command and waits for its outcome.
std::optional<CommandResult> call(RedisConnection &connection, const QByteArrayList &args, int timeoutMs = 0)
{
    std::optional<CommandResult> outcome;
    connection.command(args, [&outcome](CommandResult result) { outcome = std::move(result); }, timeoutMs);
    waitUntil([&] { return outcome.has_value(); }, 10'000);
    return outcome;
}

bool openAndWait(RedisConnection &connection)
{
    connection.open();
    return waitUntil([&] { return connection.state() == RedisConnection::State::Ready; });
}

} // namespace

class TestRedisConnection : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void repliesOfEveryType();
    void authenticatesAndSelects();
    void wrongPasswordIsRefusedWithoutEchoingIt();
    void blackHoleTimesOutTheConnect();
    void commandDeadlineDropsTheConnection();
    void serverKilledWithCommandsInFlight();
    void destroyedWithCommandsInFlight();
    void poolWaitsForAConnectionAndReconnects();
    void poolFailsWaitingCommandsAfterTheWaitTimeout();
    void scriptsReloadAfterFlush();

private:
    RedisServer m_redis;
};

void TestRedisConnection::initTestCase()
{
    QVERIFY2(m_redis.start(), qPrintable(m_redis.errorString()));
}

void TestRedisConnection::repliesOfEveryType()
{
    RedisConnection connection(optionsFor(m_redis.port()));
    QVERIFY(openAndWait(connection));

    auto r = call(connection, {"SET", "t:key", QByteArray("binary\0value", 12)});
    QVERIFY(r && r->ok());
    QVERIFY((*r)->isText("OK"));
    QCOMPARE((*r)->type, RedisReply::Type::Status);

    r = call(connection, {"GET", "t:key"});
    QCOMPARE((*r)->type, RedisReply::Type::String);
    QCOMPARE((*r)->string, QByteArray("binary\0value", 12));

    r = call(connection, {"GET", "t:missing"});
    QVERIFY((*r)->isNil());

    r = call(connection, {"RPUSH", "t:list", "a", "b"});
    QCOMPARE((*r)->type, RedisReply::Type::Integer);
    QCOMPARE((*r)->integer, 2);

    r = call(connection, {"LRANGE", "t:list", "0", "-1"});
    QCOMPARE((*r)->type, RedisReply::Type::Array);
    QCOMPARE((*r)->elements.size(), 2);
    QCOMPARE((*r)->elements[1].string, QByteArray("b"));

    r = call(connection, {"LPUSH", "t:key", "x"}); // wrong type: the server answers with an error
    QVERIFY(r->ok());
    QVERIFY((*r)->isError());
    QCOMPARE((*r)->errorCode(), QByteArray("WRONGTYPE"));
}

void TestRedisConnection::authenticatesAndSelects()
{
    RedisServer secured;
    QVERIFY2(secured.start({"--requirepass", "s3cret-pass"}), qPrintable(secured.errorString()));
    ConnectionOptions options = optionsFor(secured.port());
    options.password = QStringLiteral("s3cret-pass");
    options.database = 3;
    RedisConnection connection(options);
    QVERIFY(openAndWait(connection));
    QVERIFY(call(connection, {"SET", "in-db-3", "1"})->ok());
    QCOMPARE(secured.cli({"-n", "3", "GET", "in-db-3"}, "s3cret-pass"), QByteArray("1"));
    QCOMPARE(secured.cli({"-n", "0", "EXISTS", "in-db-3"}, "s3cret-pass"), QByteArray("0"));
}

void TestRedisConnection::wrongPasswordIsRefusedWithoutEchoingIt()
{
    RedisServer secured;
    QVERIFY2(secured.start({"--requirepass", "right-pass"}), qPrintable(secured.errorString()));
    ConnectionOptions options = optionsFor(secured.port());
    options.password = QStringLiteral("wrong-pass-xyz");
    RedisConnection connection(options);
    QSignalSpy lost(&connection, &RedisConnection::disconnected);
    connection.open();
    QVERIFY(waitUntil([&] { return lost.count() > 0; }));
    const QString reason = lost.first().first().toString();
    QVERIFY2(reason.contains("refused AUTH"), qPrintable(reason));
    QVERIFY(!reason.contains("wrong-pass-xyz"));
    QCOMPARE(connection.state(), RedisConnection::State::Disconnected);
}

void TestRedisConnection::blackHoleTimesOutTheConnect()
{
    BlackHoleServer hole;
    ConnectionOptions options = optionsFor(hole.port());
    options.connectTimeoutMs = 300;
    RedisConnection connection(options);
    QSignalSpy ready(&connection, &RedisConnection::ready);
    QSignalSpy lost(&connection, &RedisConnection::disconnected);
    QElapsedTimer timer;
    timer.start();
    connection.open();
    QVERIFY(waitUntil([&] { return lost.count() > 0; }));
    QVERIFY2(timer.elapsed() >= 250 && timer.elapsed() < 2000, qPrintable(QString::number(timer.elapsed())));
    QCOMPARE(ready.count(), 0);
    QCOMPARE(hole.accepted(), 1);
    QVERIFY(lost.first().first().toString().contains("connect timeout"));
    // Commands on a connection that is not ready fail at once.
    const auto r = call(connection, {"PING"});
    QCOMPARE(r->error().code, ErrorCode::Unavailable);
}

void TestRedisConnection::commandDeadlineDropsTheConnection()
{
    RedisConnection connection(optionsFor(m_redis.port()));
    QVERIFY(openAndWait(connection));
    // BLPOP on an empty list holds the reply for 2 s: longer than the 200 ms deadline. The PING
    // pipelined behind it cannot be answered first, so it fails with the connection.
    std::optional<CommandResult> blocked, behind;
    QElapsedTimer timer;
    timer.start();
    connection.command({"BLPOP", "t:empty", "2"}, [&](CommandResult r) { blocked = std::move(r); }, 200);
    connection.command({"PING"}, [&](CommandResult r) { behind = std::move(r); });
    QVERIFY(waitUntil([&] { return blocked && behind; }));
    QVERIFY(timer.elapsed() < 1500);
    QCOMPARE(blocked->error().code, ErrorCode::Timeout);
    QCOMPARE(behind->error().code, ErrorCode::Timeout);
    QCOMPARE(connection.state(), RedisConnection::State::Disconnected);
    QCOMPARE(connection.waitingCommands(), 0);
    // And it can be opened again.
    QVERIFY(openAndWait(connection));
    QVERIFY((*call(connection, {"PING"}))->isText("PONG"));
}

void TestRedisConnection::serverKilledWithCommandsInFlight()
{
    RedisServer doomed;
    QVERIFY2(doomed.start(), qPrintable(doomed.errorString()));
    RedisConnection connection(optionsFor(doomed.port()));
    QVERIFY(openAndWait(connection));
    QSignalSpy lost(&connection, &RedisConnection::disconnected);
    int failed = 0;
    for (int i = 0; i < 5; ++i)
        connection.command({"BLPOP", "t:empty", "5"}, [&](CommandResult r) {
            if (!r && r.error().code == ErrorCode::Unavailable)
                ++failed;
        }, 8000);
    QTest::qWait(50);
    doomed.kill();
    QVERIFY(waitUntil([&] { return failed == 5; }));
    QCOMPARE(lost.count(), 1);
    QCOMPARE(connection.state(), RedisConnection::State::Disconnected);
    // The event loop keeps running over the freed context without touching it (ASan checks).
    QTest::qWait(50);
}

void TestRedisConnection::destroyedWithCommandsInFlight()
{
    int called = 0;
    {
        RedisConnection connection(optionsFor(m_redis.port()));
        QVERIFY(openAndWait(connection));
        connection.command({"BLPOP", "t:empty", "1"}, [&](CommandResult) { ++called; });
    }
    QTest::qWait(50);
    QCOMPARE(called, 0);
}

void TestRedisConnection::poolWaitsForAConnectionAndReconnects()
{
    PoolOptions poolOptions;
    poolOptions.size = 2;
    poolOptions.waitTimeoutMs = 5000;
    poolOptions.reconnect = RetryPolicy{50, 2.0, 200, 0};
    const quint16 port = freeLoopbackPort();
    // Nothing listens yet: commands wait for the pool, which keeps trying.
    ConnectionPool pool(optionsFor(port), poolOptions);
    pool.start();
    std::optional<CommandResult> first;
    pool.command({"PING"}, [&](CommandResult r) { first = std::move(r); });
    QTest::qWait(300);
    QVERIFY(!first.has_value());
    QCOMPARE(pool.readyCount(), 0);

    QProcess server;
    server.start(RedisServer::executable(), {"--port", QString::number(port), "--bind", "127.0.0.1", "--save", "",
                                             "--daemonize", "no"});
    QVERIFY(server.waitForStarted());
    QVERIFY(waitUntil([&] { return first.has_value(); }, 5000));
    QVERIFY2(first->ok(), qPrintable(first->ok() ? QString() : first->error().message));
    QVERIFY(waitUntil([&] { return pool.readyCount() == 2; }));

    // Kill the server, start it again: the pool reconnects by itself.
    server.kill();
    server.waitForFinished();
    QVERIFY(waitUntil([&] { return pool.readyCount() == 0; }));
    server.start(RedisServer::executable(), {"--port", QString::number(port), "--bind", "127.0.0.1", "--save", "",
                                             "--daemonize", "no"});
    QVERIFY(server.waitForStarted());
    QVERIFY(waitUntil([&] { return pool.readyCount() == 2; }, 5000));
    QVERIFY(pool.reconnects() >= 2);
    std::optional<CommandResult> after;
    pool.command({"PING"}, [&](CommandResult r) { after = std::move(r); });
    QVERIFY(waitUntil([&] { return after.has_value(); }));
    QVERIFY(after->ok());
    pool.stop();
    server.kill();
    server.waitForFinished();
}

void TestRedisConnection::poolFailsWaitingCommandsAfterTheWaitTimeout()
{
    BlackHoleServer hole;
    ConnectionOptions options = optionsFor(hole.port());
    options.connectTimeoutMs = 5000;
    PoolOptions poolOptions;
    poolOptions.size = 1;
    poolOptions.waitTimeoutMs = 200;
    ConnectionPool pool(options, poolOptions);
    pool.start();
    std::optional<CommandResult> outcome;
    QElapsedTimer timer;
    timer.start();
    pool.command({"PING"}, [&](CommandResult r) { outcome = std::move(r); });
    QVERIFY(waitUntil([&] { return outcome.has_value(); }));
    QVERIFY(timer.elapsed() >= 150 && timer.elapsed() < 2000);
    QCOMPARE(outcome->error().code, ErrorCode::Unavailable);
    pool.stop();
}

void TestRedisConnection::scriptsReloadAfterFlush()
{
    PoolOptions poolOptions;
    poolOptions.size = 1;
    ConnectionPool pool(optionsFor(m_redis.port()), poolOptions);
    pool.start();
    QVERIFY(waitUntil([&] { return pool.readyCount() == 1; }));
    ScriptRunner runner(pool);
    Script script;
    script.source = "return redis.call('INCRBY', KEYS[1], ARGV[1])";
    script.sha1 = QCryptographicHash::hash(script.source, QCryptographicHash::Sha1).toHex();

    const auto run = [&] {
        std::optional<CommandResult> outcome;
        runner.run(script, {"t:counter"}, {"5"}, [&](CommandResult r) { outcome = std::move(r); });
        waitUntil([&] { return outcome.has_value(); });
        return outcome;
    };
    const qint64 before = run().value()->integer;
    QCOMPARE(runner.reloads(), 1); // never loaded on this server: NOSCRIPT, then EVAL
    QCOMPARE(run().value()->integer, before + 5);
    QCOMPARE(runner.reloads(), 1);
    QCOMPARE(m_redis.cli({"SCRIPT", "FLUSH"}), QByteArray("OK"));
    const auto afterFlush = run();
    QVERIFY(afterFlush->ok());
    QCOMPARE(afterFlush.value()->integer, before + 10);
    QCOMPARE(runner.reloads(), 2);
    pool.stop();
}

QTEST_GUILESS_MAIN(TestRedisConnection)
#include "tst_redisconnection.moc"
