// SPDX-License-Identifier: GPL-3.0-or-later
// The Redis layer against a real redis-server, a black-hole server and a server that answers
// garbage: replies, pipelining, handshake (password, ACL user), deadlines, dropped connections,
// protocol errors, the output bound, the pool's waiting and reconnecting, and script reloads.
// TLS: tst_redistls.
#include "redis/connectionpool.h"
#include "redis/redisconnection.h"
#include "redis/scriptcache.h"
#include "redis/subscriber.h"

#include "../support/eventloop.h"
#include "../support/redisserver.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTest>

#include <QThread>

#include <optional>

#include <sys/socket.h>

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

// Answers the first bytes each client sends with `answer`, whatever they were.
class ScriptedServer
{
public:
    explicit ScriptedServer(QByteArray answer) : m_answer(std::move(answer))
    {
        m_server.listen(QHostAddress::LocalHost, 0);
        QObject::connect(&m_server, &QTcpServer::newConnection, &m_server, [this] {
            while (QTcpSocket *socket = m_server.nextPendingConnection()) {
                m_sockets.emplace_back(socket);
                QObject::connect(socket, &QTcpSocket::readyRead, socket, [this, socket] {
                    socket->readAll();
                    if (!m_answer.isEmpty())
                        socket->write(m_answer);
                });
            }
        });
    }
    quint16 port() const { return m_server.serverPort(); }
    // Ends every connection with a reset (no lingering), as a crashed or restarted server does.
    void resetAll()
    {
        for (const auto &socket : m_sockets) {
            const linger immediate{1, 0};
            ::setsockopt(int(socket->socketDescriptor()), SOL_SOCKET, SO_LINGER, &immediate, sizeof immediate);
            socket->abort();
        }
    }

private:
    QByteArray m_answer;
    QTcpServer m_server;
    std::vector<std::unique_ptr<QTcpSocket>> m_sockets;
};

} // namespace

class TestRedisConnection : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void repliesOfEveryType();
    void authenticatesAndSelects();
    void wrongPasswordIsRefusedWithoutEchoingIt();
    void aclUser_data();
    void aclUser();
    void pipelinedCommandsKeepTheirOrder();
    void commandLargerThanTheKernelTakesGoesOutWhole();
    void writeRefusedByAResetConnectionIsNotSent();
    void callbackMayCloseOrDestroyTheConnection();
    void commandsNeverWrittenFailAsNotSent();
    void outputBoundFailsCommandsAtOnce();
    void protocolGarbageDropsTheConnection_data();
    void protocolGarbageDropsTheConnection();
    void blackHoleTimesOutTheConnect();
    void commandDeadlineDropsTheConnection();
    void serverKilledWithCommandsInFlight();
    void destroyedWithCommandsInFlight();
    void poolWaitsForAConnectionAndReconnects();
    void poolFailsWaitingCommandsAfterTheWaitTimeout();
    void scriptsReloadAfterFlush();
    void functionsLoadOnceAndAgainAfterFlush();
    void subscriberHearsItsChannelOnTheFirstNodeThatAnswers();
    void subscriberLeavesANodeThatStopsAnswering();

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

void TestRedisConnection::aclUser_data()
{
    QTest::addColumn<QString>("username");
    QTest::addColumn<QString>("password");
    QTest::addColumn<bool>("ready");

    QTest::addRow("user-and-password") << "acl-broker" << "acl-pass-123" << true;
    QTest::addRow("wrong-password") << "acl-broker" << "wrong-acl-pass-987" << false;
    QTest::addRow("unknown-user") << "no-such-acl-user" << "acl-pass-123" << false;
}

void TestRedisConnection::aclUser()
{
    QFETCH(QString, username);
    QFETCH(QString, password);
    QFETCH(bool, ready);
    QCOMPARE(m_redis.cli({"ACL", "SETUSER", "acl-broker", "on", ">acl-pass-123", "~*", "+@all"}), QByteArray("OK"));
    ConnectionOptions options = optionsFor(m_redis.port());
    options.username = username;
    options.password = password;
    RedisConnection connection(options);
    QSignalSpy lost(&connection, &RedisConnection::disconnected);
    connection.open();
    QVERIFY(waitUntil([&] { return connection.state() == RedisConnection::State::Ready || lost.count() > 0; }));
    if (ready) {
        QCOMPARE(connection.state(), RedisConnection::State::Ready);
        QCOMPARE((*call(connection, {"ACL", "WHOAMI"}))->string, username.toUtf8());
        return;
    }
    const QString reason = lost.first().first().toString();
    QVERIFY2(reason.contains("refused AUTH: WRONGPASS"), qPrintable(reason));
    QVERIFY2(!reason.contains(password) && !reason.contains(username), qPrintable(reason));
}

void TestRedisConnection::pipelinedCommandsKeepTheirOrder()
{
    RedisConnection connection(optionsFor(m_redis.port()));
    QVERIFY(openAndWait(connection));
    // 2000 commands in one event-loop turn, and each callback issues one more: replies in order.
    QList<qint64> counts;
    int followUps = 0;
    for (int i = 0; i < 2000; ++i) {
        connection.command({"INCR", "t:pipelined"}, [&](CommandResult r) {
            counts.append(r ? r->integer : -1);
            connection.command({"PING"}, [&](CommandResult p) { followUps += p && p->isText("PONG"); });
        });
    }
    QVERIFY(waitUntil([&] { return followUps == 2000; }));
    for (int i = 0; i < 2000; ++i)
        QCOMPARE(counts[i], i + 1);
    QCOMPARE(connection.waitingCommands(), 0);
}

void TestRedisConnection::commandLargerThanTheKernelTakesGoesOutWhole()
{
    // Written straight to the socket, a 24 MiB command is taken in part; the rest goes through
    // the socket's buffer, and the commands behind it follow it there, in order.
    RedisConnection connection(optionsFor(m_redis.port()));
    QVERIFY(openAndWait(connection));
    QByteArray value(24 * 1024 * 1024, Qt::Uninitialized);
    for (qsizetype i = 0; i < value.size(); ++i)
        value[i] = char('a' + i % 26);
    QList<QByteArray> replies;
    connection.command({"SET", "t:large", value}, [&](CommandResult r) { replies.append(r ? r->string : "failed"); });
    connection.command({"STRLEN", "t:large"}, [&](CommandResult r) { replies.append(r ? QByteArray::number(r->integer) : "failed"); });
    QVERIFY(waitUntil([&] { return replies.size() == 2; }));
    connection.command({"SET", "t:large", value.left(10)}, [&](CommandResult r) { replies.append(r ? r->string : "failed"); });
    connection.command({"GETRANGE", "t:large", "0", "-1"}, [&](CommandResult r) { replies.append(r ? r->string : "failed"); });
    QVERIFY(waitUntil([&] { return replies.size() == 4; }));
    QCOMPARE(replies, (QList<QByteArray>{"OK", QByteArray::number(value.size()), "OK", value.left(10)}));
}

void TestRedisConnection::writeRefusedByAResetConnectionIsNotSent()
{
    // The server resets the connection before this side has seen it (its event loop has not
    // run). The next command, written at once, fails before any of its bytes left: NotSent, so
    // that the router may send it elsewhere and the spool may take a publish.
    ScriptedServer server("+PONG\r\n");
    RedisConnection connection(optionsFor(server.port()));
    QVERIFY(openAndWait(connection));
    server.resetAll();
    QThread::msleep(50); // the reset reaches the kernel; no event loop runs meanwhile
    std::optional<CommandResult> outcome;
    QSignalSpy lost(&connection, &RedisConnection::disconnected);
    connection.command({"SET", "t:reset", "1"}, [&](CommandResult r) { outcome = std::move(r); });
    QVERIFY(outcome.has_value()); // at once: the write failed inside command()
    QCOMPARE(outcome->error().code, ErrorCode::Unavailable);
    QCOMPARE(outcome->error().detail, NotSent);
    QCOMPARE(connection.state(), RedisConnection::State::Disconnected);
    QCOMPARE(lost.count(), 1);
}

void TestRedisConnection::callbackMayCloseOrDestroyTheConnection()
{
    // Closing from a callback fails the commands behind it, each once.
    RedisConnection connection(optionsFor(m_redis.port()));
    QVERIFY(openAndWait(connection));
    int outcomes = 0, unavailable = 0;
    connection.command({"PING"}, [&](CommandResult) { connection.close(); });
    for (int i = 0; i < 3; ++i) {
        connection.command({"PING"}, [&](CommandResult r) {
            ++outcomes;
            unavailable += !r && r.error().code == ErrorCode::Unavailable;
        });
    }
    QVERIFY(waitUntil([&] { return outcomes == 3; }));
    QTest::qWait(20);
    QCOMPARE(outcomes, 3);
    QCOMPARE(unavailable, 3);

    // Destroying it from a callback (inside the socket's readyRead) drops the rest (ASan checks).
    auto *doomed = new RedisConnection(optionsFor(m_redis.port()));
    QVERIFY(openAndWait(*doomed));
    int called = 0;
    doomed->command({"PING"}, [&](CommandResult) {
        ++called;
        delete doomed;
    });
    doomed->command({"PING"}, [&](CommandResult) { ++called; });
    QVERIFY(waitUntil([&] { return called > 0; }));
    QTest::qWait(50);
    QCOMPARE(called, 1);
}

void TestRedisConnection::commandsNeverWrittenFailAsNotSent()
{
    RedisConnection connection(optionsFor(m_redis.port()));
    QVERIFY(openAndWait(connection));
    // The first command on an idle connection is written at once; the one behind it waits for
    // the end of the event-loop turn. Closed in the same turn: the second was never handed to
    // the socket, the first was (it may have run).
    std::optional<CommandResult> written, outcome;
    connection.command({"PING"}, [&](CommandResult r) { written = std::move(r); });
    connection.command({"SET", "t:never", "1"}, [&](CommandResult r) { outcome = std::move(r); });
    connection.close();
    QVERIFY(written.has_value());
    QCOMPARE(written->error().code, ErrorCode::Unavailable);
    QCOMPARE(written->error().detail, QString());
    QVERIFY(outcome.has_value());
    QCOMPARE(outcome->error().code, ErrorCode::Unavailable);
    QCOMPARE(outcome->error().detail, NotSent);
    QCOMPARE(m_redis.cli({"EXISTS", "t:never"}), QByteArray("0"));
}

void TestRedisConnection::outputBoundFailsCommandsAtOnce()
{
    ConnectionOptions options = optionsFor(m_redis.port());
    options.maxOutputBytes = 1024;
    RedisConnection connection(options);
    QVERIFY(openAndWait(connection));
    // A command in flight first, so that the large one waits in the connection's output.
    std::optional<CommandResult> ping, first, second;
    connection.command({"PING"}, [&](CommandResult r) { ping = std::move(r); });
    connection.command({"SET", "t:bound", QByteArray(2000, 'x')}, [&](CommandResult r) { first = std::move(r); });
    connection.command({"SET", "t:bound", "small"}, [&](CommandResult r) { second = std::move(r); });
    QVERIFY(second.has_value()); // at once: over the bound
    QCOMPARE(second->error().code, ErrorCode::Unavailable);
    QCOMPARE(second->error().detail, NotSent);
    QVERIFY(waitUntil([&] { return first.has_value(); }));
    QVERIFY(ping->ok());
    QVERIFY(first->ok()); // the connection itself goes on
    QVERIFY((*call(connection, {"PING"}))->isText("PONG"));
}

void TestRedisConnection::protocolGarbageDropsTheConnection_data()
{
    QTest::addColumn<QByteArray>("answer");
    QTest::addColumn<int>("maxReplyBytes");
    QTest::addColumn<QString>("reason");

    QTest::addRow("http-server") << QByteArray("HTTP/1.1 400 Bad Request\r\n\r\n") << 0
                                 << "protocol error: Protocol error, got \"H\" as reply type byte";
    QTest::addRow("reply-to-no-command") << QByteArray("+PONG\r\n+OK\r\n") << 0
                                         << "protocol error: the server sent a reply to no command";
    QTest::addRow("reply-past-the-bound") << QByteArray("$100000\r\n") + QByteArray(4000, 'x') << 1024
                                          << "cannot read the server's replies: a reply larger than 1024 bytes";
}

void TestRedisConnection::protocolGarbageDropsTheConnection()
{
    QFETCH(QByteArray, answer);
    QFETCH(int, maxReplyBytes);
    QFETCH(QString, reason);
    ScriptedServer server(answer);
    ConnectionOptions options = optionsFor(server.port());
    if (maxReplyBytes > 0)
        options.maxReplyBytes = maxReplyBytes;
    RedisConnection connection(options);
    QSignalSpy lost(&connection, &RedisConnection::disconnected);
    connection.open();
    QVERIFY(waitUntil([&] { return lost.count() > 0; }));
    QCOMPARE(lost.first().first().toString(), reason);
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

void TestRedisConnection::functionsLoadOnceAndAgainAfterFlush()
{
    PoolOptions poolOptions;
    poolOptions.size = 1;
    ConnectionPool pool(optionsFor(m_redis.port()), poolOptions);
    pool.start();
    QVERIFY(waitUntil([&] { return pool.readyCount() == 1; }));
    ScriptRunner runner(pool);
    auto library = std::make_shared<FunctionLibrary>();
    library->name = "tst_counter_lib";
    library->source = "#!lua name=tst_counter_lib\n"
                      "redis.register_function('tst_incr', function(keys, args) return redis.call('INCRBY', keys[1], args[1]) end)";
    Script script;
    script.source = "return redis.call('INCRBY', KEYS[1], ARGV[1])";
    script.sha1 = QCryptographicHash::hash(script.source, QCryptographicHash::Sha1).toHex();
    script.library = library;
    script.function = "tst_incr";
    m_redis.cli({"FUNCTION", "DELETE", "tst_counter_lib"});

    const auto run = [&] {
        std::optional<CommandResult> outcome;
        runner.run(script, {"t:fcounter"}, {"5"}, [&](CommandResult r) { outcome = std::move(r); });
        waitUntil([&] { return outcome.has_value(); });
        return outcome;
    };
    QCOMPARE(runner.functions(), ScriptRunner::Functions::Untried);
    const qint64 before = run().value()->integer;
    QCOMPARE(runner.reloads(), 1); // "Function not found": FUNCTION LOAD, then FCALL again
    QCOMPARE(runner.functions(), ScriptRunner::Functions::InUse);
    QVERIFY(m_redis.cli({"FUNCTION", "LIST"}).contains("tst_incr"));
    QCOMPARE(run().value()->integer, before + 5);
    QCOMPARE(runner.reloads(), 1);
    QCOMPARE(m_redis.cli({"FUNCTION", "FLUSH"}), QByteArray("OK"));
    QCOMPARE(run().value()->integer, before + 10);
    QCOMPARE(runner.reloads(), 2);
    // Another broker (second) finds the library this one loaded, and loads nothing.
    ScriptRunner second(pool);
    std::optional<CommandResult> outcome;
    second.run(script, {"t:fcounter"}, {"5"}, [&](CommandResult r) { outcome = std::move(r); });
    QVERIFY(waitUntil([&] { return outcome.has_value(); }));
    QCOMPARE((*outcome)->integer, before + 15);
    QCOMPARE(second.reloads(), 0);
    // Both find it missing at once: both load it, the later load is answered "already exists",
    // and both calls go through.
    QCOMPARE(m_redis.cli({"FUNCTION", "FLUSH"}), QByteArray("OK"));
    std::optional<CommandResult> first, other;
    runner.run(script, {"t:fcounter"}, {"5"}, [&](CommandResult r) { first = std::move(r); });
    second.run(script, {"t:fcounter"}, {"5"}, [&](CommandResult r) { other = std::move(r); });
    QVERIFY(waitUntil([&] { return first.has_value() && other.has_value(); }));
    QVERIFY(first->ok() && !first->value().isError());
    QVERIFY2(other->ok() && !other->value().isError(), other->ok() ? other->value().string.constData() : "");
    QCOMPARE(qMax(first->value().integer, other->value().integer), before + 25);
    QCOMPARE(runner.reloads() + second.reloads(), 4); // two earlier, one load each now
    QCOMPARE(second.functions(), ScriptRunner::Functions::InUse);
    pool.stop();
}

void TestRedisConnection::subscriberHearsItsChannelOnTheFirstNodeThatAnswers()
{
    BlackHoleServer hole;
    const NodeAddress refused{QStringLiteral("127.0.0.1"), freeLoopbackPort()};
    const QList<NodeAddress> candidates{{QStringLiteral("127.0.0.1"), hole.port()}, refused,
                                        {QStringLiteral("127.0.0.1"), m_redis.port()}};
    ConnectionOptions options = optionsFor(0);
    options.connectTimeoutMs = 300;
    Subscriber subscriber(options, "test:wake", [&] { return candidates; });
    subscriber.reconnect = RetryPolicy{10, 1.0, 10, 0};
    QSignalSpy subscribed(&subscriber, &Subscriber::subscribed);
    QSignalSpy heard(&subscriber, &Subscriber::message);
    subscriber.start();
    QVERIFY(waitUntil([&] { return subscriber.isSubscribed(); }));
    QCOMPARE(subscriber.node().port, int(m_redis.port()));
    QCOMPARE(subscribed.count(), 1);

    m_redis.cli({QStringLiteral("PUBLISH"), QStringLiteral("other:wake"), QStringLiteral("no")});
    m_redis.cli({QStringLiteral("PUBLISH"), QStringLiteral("test:wake"), QStringLiteral("orders")});
    QVERIFY(waitUntil([&] { return heard.count() > 0; }));
    QCOMPARE(heard.count(), 1);
    QCOMPARE(heard.first().first().toByteArray(), QByteArray("orders"));

    // Cut off: it subscribes again (the two dead candidates come first) and says so.
    m_redis.cli({QStringLiteral("CLIENT"), QStringLiteral("KILL"), QStringLiteral("TYPE"), QStringLiteral("pubsub")});
    QVERIFY(waitUntil([&] { return subscribed.count() == 2; }));
    QCOMPARE(subscriber.subscriptions(), 2);
    m_redis.cli({QStringLiteral("PUBLISH"), QStringLiteral("test:wake"), QStringLiteral("again")});
    QVERIFY(waitUntil([&] { return heard.count() == 2; }));
    QCOMPARE(heard.last().first().toByteArray(), QByteArray("again"));

    subscriber.stop();
    QVERIFY(!subscriber.isSubscribed());
    QVERIFY(waitUntil([&] {
        return m_redis.cli({QStringLiteral("PUBSUB"), QStringLiteral("NUMSUB"), QStringLiteral("test:wake")})
               == QByteArray("test:wake\n0");
    }));
}

void TestRedisConnection::subscriberLeavesANodeThatStopsAnswering()
{
    RedisServer frozen;
    QVERIFY2(frozen.start(), qPrintable(frozen.errorString()));
    const QList<NodeAddress> candidates{{QStringLiteral("127.0.0.1"), frozen.port()},
                                        {QStringLiteral("127.0.0.1"), m_redis.port()}};
    ConnectionOptions options = optionsFor(0);
    options.connectTimeoutMs = 300;
    options.commandTimeoutMs = 300;
    Subscriber subscriber(options, "test:wake", [&] { return candidates; });
    subscriber.pingIntervalMs = 100;
    subscriber.reconnect = RetryPolicy{10, 1.0, 10, 0};
    QSignalSpy heard(&subscriber, &Subscriber::message);
    subscriber.start();
    QVERIFY(waitUntil([&] { return subscriber.isSubscribed(); }));
    QCOMPARE(subscriber.node().port, int(frozen.port()));

    // SIGSTOP: the connection stays open, nothing answers; the PING's deadline gives it up.
    frozen.pause();
    QVERIFY(waitUntil([&] { return subscriber.isSubscribed() && subscriber.node().port == int(m_redis.port()); }));
    QVERIFY2(subscriber.lastError().contains(QStringLiteral("no reply within the command deadline")), qPrintable(subscriber.lastError()));
    m_redis.cli({QStringLiteral("PUBLISH"), QStringLiteral("test:wake"), QStringLiteral("here")});
    QVERIFY(waitUntil([&] { return heard.count() == 1; }));
    frozen.resume();
}

QTEST_GUILESS_MAIN(TestRedisConnection)
#include "tst_redisconnection.moc"
