// SPDX-License-Identifier: GPL-3.0-or-later
// brokerctl against a live brokerd on a free port: output and exit code of the subcommands, and
// retries against a server that fails and then recovers.
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QTest>

#include <functional>

namespace {

const QByteArray AdminKey = "cli-admin-key-0001";

struct Run
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
    QJsonObject json() const { return QJsonDocument::fromJson(out).object(); }
};

// A stand-in broker that answers every request with what `answer` returns for its number (1, 2, ...).
class FakeServer : public QTcpServer
{
public:
    explicit FakeServer(std::function<QByteArray(int)> answer) : m_answer(std::move(answer))
    {
        listen(QHostAddress::LocalHost, 0);
        connect(this, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = nextPendingConnection()) {
                connect(socket, &QTcpSocket::readyRead, socket, [this, socket] {
                    if (!socket->readAll().contains("\r\n\r\n"))
                        return;
                    socket->write(m_answer(++requests));
                    socket->disconnectFromHost();
                });
            }
        });
    }
    QString url() const { return QStringLiteral("http://127.0.0.1:%1").arg(serverPort()); }
    int requests = 0;

private:
    std::function<QByteArray(int)> m_answer;
};

QByteArray response(const QByteArray &statusLine, const QByteArray &body, const QByteArray &extraHeaders = {})
{
    return "HTTP/1.1 " + statusLine + "\r\nContent-Type: application/json\r\nConnection: close\r\n" + extraHeaders
        + "Content-Length: " + QByteArray::number(body.size()) + "\r\n\r\n" + body;
}

} // namespace

class TestBrokerctl : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QProcess m_brokerd;
    QString m_url;

    // Runs brokerctl while the event loop keeps running (the retry test serves from this process).
    Run ctl(const QStringList &arguments, const QByteArray &input = {}, const QString &url = {},
            const QStringList &extraEnv = {})
    {
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("API_URL", url.isEmpty() ? m_url : url);
        env.insert("API_KEY", QString::fromLatin1(AdminKey));
        for (const QString &pair : extraEnv)
            env.insert(pair.section('=', 0, 0), pair.section('=', 1));
        process.setProcessEnvironment(env);
        process.start(BROKERCTL_PATH, arguments);
        process.waitForStarted();
        if (!input.isNull()) {
            process.write(input);
        }
        process.closeWriteChannel();
        QElapsedTimer timer;
        timer.start();
        while (process.state() != QProcess::NotRunning && timer.elapsed() < 30'000)
            QTest::qWait(5);
        return Run{process.exitCode(), process.readAllStandardOutput(), process.readAllStandardError()};
    }

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void queuesLifecycle();
    void publishAndConsume();
    void leaseAckNackExtend();
    void usersAndMetrics();
    void demo();
    void exitCodes_data();
    void exitCodes();
    void circuitOpensAfterThreeFailures();
    void retryDelayIsInMilliseconds();
    void shellRunsScriptedInput();
    void retriesUntilTheServerRecovers();
    void doesNotRetryClientErrors();
    void doesNotRepeatAPublishThatMayHaveBeenDone();
    void watchPrintsEventsLive();
    void watchWithAWrongKeyFails();
};

void TestBrokerctl::initTestCase()
{
    QFile users(m_dir.filePath("users.yaml"));
    QVERIFY(users.open(QIODevice::WriteOnly));
    users.write("users:\n  admin: {role: admin, api_key: " + AdminKey + "}\n");
    users.close();
    m_brokerd.start(BROKERD_PATH, {"--users", users.fileName(), "--port", "0"});
    QVERIFY(m_brokerd.waitForStarted());
    QByteArray log;
    QTRY_VERIFY_WITH_TIMEOUT((log += m_brokerd.readAllStandardError()).contains("listening on"), 10'000);
    m_url = QString::fromLatin1(QRegularExpression("listening on (http://[0-9.]+:[0-9]+)")
                                    .match(QString::fromLatin1(log))
                                    .captured(1)
                                    .toLatin1());
    QVERIFY(m_url.startsWith("http://127.0.0.1:"));
}

void TestBrokerctl::cleanupTestCase()
{
    m_brokerd.terminate();
    m_brokerd.waitForFinished(10'000);
}

void TestBrokerctl::queuesLifecycle()
{
    Run r = ctl({"queues", "create", "cli.orders", "--dlq", "true", "--max-size", "50"});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.json().value("queue").toString(), QString("cli.orders"));
    QCOMPARE(r.json().value("config").toObject().value("max_size").toInt(), 50);

    r = ctl({"queues", "list", "-o", "table"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.startsWith("NAME"));
    QVERIFY(r.out.contains("cli.orders      list"));
    QVERIFY(r.out.contains("cli.orders.dlq"));

    r = ctl({"queues", "info", "cli.orders"});
    QCOMPARE(r.json().value("type").toString(), QString("list"));
    QCOMPARE(ctl({"queues", "purge", "cli.orders"}).json().value("purged").toInt(), 0);
    QCOMPARE(ctl({"queues", "redrive", "cli.orders"}).json().value("moved").toInt(), 0);
    QCOMPARE(ctl({"queues", "delete", "cli.orders"}).exitCode, 0);
    r = ctl({"queues", "info", "cli.orders"});
    QCOMPARE(r.exitCode, 3);
    QVERIFY2(r.err.contains("brokerctl: 404 Queue not found (request "), r.err.constData());
}

void TestBrokerctl::publishAndConsume()
{
    QCOMPARE(ctl({"queues", "create", "cli.pc"}).exitCode, 0);
    Run r = ctl({"publish", "cli.pc", R"({"order":1})"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.json().value("message_id").toString().startsWith("msg-"));
    QCOMPARE(ctl({"publish", "cli.pc", "plain", "words"}).exitCode, 0); // text becomes a JSON string
    r = ctl({"publish", "cli.pc", "--lines"}, "{\"n\":1}\n\n[2]\n\"three\"\n");
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.json().value("count").toInt(), 3);
    QFile file(m_dir.filePath("message.json"));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(R"({"from":"file"})");
    file.close();
    QCOMPARE(ctl({"publish", "cli.pc", "--file", file.fileName()}).exitCode, 0);

    r = ctl({"queues", "browse", "cli.pc", "--limit", "2"});
    QCOMPARE(r.json().value("total").toInt(), 6);
    QCOMPARE(r.json().value("messages").toArray().size(), 2);

    r = ctl({"consume", "cli.pc", "--count", "6"});
    QCOMPARE(r.exitCode, 0);
    const QList<QByteArray> lines = r.out.trimmed().split('\n');
    QCOMPARE(lines.size(), 6);
    QCOMPARE(QJsonDocument::fromJson(lines[0]).object().value("data").toObject().value("order").toInt(), 1);
    QCOMPARE(QJsonDocument::fromJson(lines[1]).object().value("data").toString(), QString("plain words"));
    QCOMPARE(QJsonDocument::fromJson(lines[5]).object().value("data").toObject().value("from").toString(),
             QString("file"));
    r = ctl({"consume", "cli.pc", "-o", "table"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.err.contains("no message"));
}

void TestBrokerctl::leaseAckNackExtend()
{
    QCOMPARE(ctl({"queues", "create", "cli.lease"}).exitCode, 0);
    QCOMPARE(ctl({"publish", "cli.lease", "1"}).exitCode, 0);
    Run r = ctl({"consume", "cli.lease", "--lease", "--visibility", "60"});
    const QJsonObject message = QJsonDocument::fromJson(r.out).object();
    const QString id = message.value("id").toString();
    const QString receipt = message.value("receipt").toString();
    QCOMPARE(receipt.size(), 16);
    QVERIFY(
        ctl({"extend", "cli.lease", id, "--visibility", "120", "--receipt", receipt}).json().contains("visible_at"));
    QCOMPARE(ctl({"extend", "cli.lease", id}).exitCode, 2); // --visibility is required
    QVERIFY(ctl({"nack", "cli.lease", id, "--receipt", receipt}).json().value("requeued").toBool());
    const QJsonObject again = QJsonDocument::fromJson(ctl({"consume", "cli.lease", "--lease"}).out).object();
    QCOMPARE(again.value("delivery_count").toInt(), 2);
    r = ctl({"ack", "cli.lease", id, "--receipt", receipt}); // the first delivery's receipt
    QCOMPARE(r.exitCode, 3);
    QVERIFY2(r.err.contains("409 Stale receipt"), r.err.constData());
    QVERIFY(ctl({"ack", "cli.lease", id, "--receipt", again.value("receipt").toString()})
                .json()
                .value("acknowledged")
                .toBool());
}

void TestBrokerctl::usersAndMetrics()
{
    Run r = ctl({"users", "add", "robot", "--roles", "publisher,consumer", "--name", "CI robot"});
    QCOMPARE(r.exitCode, 0);
    const QString key = r.json().value("api_key").toString();
    QVERIFY(key.startsWith("bd_"));
    r = ctl({"users", "list", "-o", "table"});
    QVERIFY(r.out.contains("robot"));
    QVERIFY(r.out.contains("publisher,consumer"));
    QVERIFY(!r.out.contains(key.toLatin1()));
    QVERIFY(ctl({"users", "rotate", "robot"}).json().value("api_key").toString() != key);
    QCOMPARE(ctl({"users", "delete", "robot"}).exitCode, 0);
    QCOMPARE(ctl({"users", "delete", "robot"}).exitCode, 3);
    r = ctl({"metrics"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("brokerdesk_up 1"));
    r = ctl({"health"});
    QCOMPARE(r.json().value("status").toString(), QString("healthy"));
}

void TestBrokerctl::demo()
{
    const Run r = ctl({"demo", "--messages", "500", "--batch", "50"});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.json().value("messages").toInt(), 500);
    QVERIFY(r.json().value("publish_per_second").toInt() > 0);
    QVERIFY(r.json().value("consume_per_second").toInt() > 0);
    QVERIFY(!ctl({"queues", "list"}).out.contains("demo-")); // cleaned up
}

void TestBrokerctl::exitCodes_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("url");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QByteArray>("message");
    QTest::addRow("no-command") << QStringList{} << QString() << 2 << QByteArray("no command given");
    QTest::addRow("unknown-command") << QStringList{"frobnicate"} << QString() << 2
                                     << QByteArray("unknown command 'frobnicate'");
    QTest::addRow("missing-argument") << QStringList{"publish"} << QString() << 2
                                      << QByteArray("usage: brokerctl publish");
    QTest::addRow("bad-output") << QStringList{"health", "-o", "xml"} << QString() << 2
                                << QByteArray("--output is table, text or json");
    QTest::addRow("bad-url") << QStringList{"health"} << QString("ftp://x") << 2 << QByteArray("not an http(s) URL");
    QTest::addRow("http-error") << QStringList{"queues", "create", "bad name"} << QString() << 3
                                << QByteArray("400 Invalid queue name (request ");
    QTest::addRow("connection-refused") << QStringList{"health"} << QString("http://127.0.0.1:1") << 4
                                        << QByteArray("cannot reach http://127.0.0.1:1");
}

void TestBrokerctl::exitCodes()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, url);
    QFETCH(int, exitCode);
    QFETCH(QByteArray, message);
    const Run r = ctl(arguments, {}, url, {"RETRY_ATTEMPTS=0"});
    QCOMPARE(r.exitCode, exitCode);
    QVERIFY2(r.err.contains(message), r.err.constData());
}

void TestBrokerctl::circuitOpensAfterThreeFailures()
{
    // Always 503: five retries are allowed, but after three failures in a row the client stops.
    FakeServer failing([](int) { return response("503 Service Unavailable", {}); });
    const Run r = ctl({"health"}, {}, failing.url(), {"RETRY_ATTEMPTS=5", "RETRY_DELAY=10"});
    QCOMPARE(r.exitCode, 3);
    QCOMPARE(failing.requests, 3);
    QVERIFY2(r.err.contains("503"), r.err.constData());
}

// gCore's client counts RETRY_DELAY in milliseconds: 300 is the first pause of about 0.3 s
// (jitter +-20%), not five minutes.
void TestBrokerctl::retryDelayIsInMilliseconds()
{
    FakeServer failing([](int) { return response("503 Service Unavailable", {}); });
    QElapsedTimer timer;
    timer.start();
    const Run r = ctl({"health"}, {}, failing.url(), {"RETRY_ATTEMPTS=1", "RETRY_DELAY=300"});
    const qint64 elapsedMs = timer.elapsed();
    QCOMPARE(r.exitCode, 3);
    QCOMPARE(failing.requests, 2);
    QVERIFY2(elapsedMs >= 230 && elapsedMs < 10'000, qPrintable(QString::number(elapsedMs)));
    QCOMPARE(ctl({"health"}, {}, failing.url(), {"RETRY_DELAY=soon"}).exitCode, 2);
}

void TestBrokerctl::shellRunsScriptedInput()
{
    const QByteArray script = "# a comment, then an empty line\n\n"
                              "queues create shell.q --max-size 5\n"
                              "publish shell.q '{\"said\": \"hello world\"}'\n"
                              "consume shell.q\n"
                              "help\n"
                              "exit\n"
                              "health\n"; // never reached
    const Run r = ctl({"shell", "-o", "json"}, script);
    QCOMPARE(r.exitCode, 0);
    const QList<QByteArray> lines = r.out.split('\n');
    QCOMPARE(QJsonDocument::fromJson(lines[0]).object().value("queue").toString(), QString("shell.q"));
    QVERIFY(QJsonDocument::fromJson(lines[1]).object().value("message_id").toString().startsWith("msg-"));
    QCOMPARE(QJsonDocument::fromJson(lines[2]).object().value("data").toObject().value("said").toString(),
             QString("hello world"));
    QVERIFY(r.out.contains("Commands:"));
    QVERIFY(!r.out.contains("\"status\":\"healthy\"")); // after exit

    // A failing line does not stop the script; the exit code reports it.
    const Run failing = ctl({"shell"}, "queues info missing.queue\nhealth\n");
    QCOMPARE(failing.exitCode, 3);
    QVERIFY(failing.err.contains("404 Queue not found"));
    QVERIFY(failing.out.contains("healthy"));
    QCOMPARE(ctl({"shell"}, "publish 'unterminated\n").exitCode, 2);
}

void TestBrokerctl::retriesUntilTheServerRecovers()
{
    FakeServer flaky([](int number) {
        return number <= 2 ? response("503 Service Unavailable", R"({"error":"busy"})")
                           : response("200 OK", R"({"status":"healthy"})");
    });
    const Run r = ctl({"health"}, {}, flaky.url(), {"RETRY_ATTEMPTS=3", "RETRY_DELAY=50"});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(flaky.requests, 3);
    QCOMPARE(r.json().value("status").toString(), QString("healthy"));
}

// A 503 to a publish may come after the broker queued it: sending it again could publish twice.
void TestBrokerctl::doesNotRepeatAPublishThatMayHaveBeenDone()
{
    FakeServer busy([](int) { return response("503 Service Unavailable", R"({"error":"busy"})"); });
    const Run r = ctl({"publish", "orders", R"({"n":1})"}, {}, busy.url(), {"RETRY_ATTEMPTS=3", "RETRY_DELAY=10"});
    QCOMPARE(r.exitCode, 3);
    QCOMPARE(busy.requests, 1);
}

void TestBrokerctl::doesNotRetryClientErrors()
{
    FakeServer strict([](int) {
        return response("401 Unauthorized", R"({"error":"Unauthorized - Invalid API key"})",
                        "X-Request-ID: abc123\r\n");
    });
    const Run r = ctl({"queues", "list"}, {}, strict.url(), {"RETRY_ATTEMPTS=3", "RETRY_DELAY=50"});
    QCOMPARE(r.exitCode, 3);
    QCOMPARE(strict.requests, 1);
    QVERIFY(r.err.contains("401 Unauthorized - Invalid API key (request abc123)"));
}

QTEST_GUILESS_MAIN(TestBrokerctl)
#include "tst_brokerctl.moc"

void TestBrokerctl::watchPrintsEventsLive()
{
    QCOMPARE(ctl({"queues", "create", "cli.watched"}).exitCode, 0);
    QCOMPARE(ctl({"queues", "create", "cli.unwatched"}).exitCode, 0);
    QProcess watch;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("API_URL", m_url);
    env.insert("API_KEY", QString::fromLatin1(AdminKey));
    watch.setProcessEnvironment(env);
    watch.start(BROKERCTL_PATH, {"watch", "cli.watch*", "-o", "json"});
    QVERIFY(watch.waitForStarted());
    QByteArray err;
    QTRY_VERIFY_WITH_TIMEOUT((err += watch.readAllStandardError()).contains("watching"), 10'000);

    QCOMPARE(ctl({"publish", "cli.unwatched", R"({"n":0})"}).exitCode, 0);
    QCOMPARE(ctl({"publish", "cli.watched", R"({"n":1})"}).exitCode, 0);
    QCOMPARE(ctl({"consume", "cli.watched"}).exitCode, 0);
    QByteArray out;
    QList<QJsonObject> events;
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            out += watch.readAllStandardOutput();
            events.clear();
            for (const QByteArray &line : out.split('\n')) {
                const QJsonObject event = QJsonDocument::fromJson(line).object();
                if (event.value("type").toString() == "message") // besides: ready (and heartbeats are not printed)
                    events.append(event);
            }
            return events.size() >= 2;
        }(),
        10'000);
    watch.terminate();
    QVERIFY(watch.waitForFinished(5000));
    QCOMPARE(events[0].value("type").toString(), QString("message"));
    QCOMPARE(events[0].value("data").toObject().value("queue").toString(), QString("cli.watched"));
    QCOMPARE(events[0].value("data").toObject().value("event").toString(), QString("published"));
    QVERIFY(events[0].value("id").toString().contains('-'));
    QCOMPARE(events[1].value("data").toObject().value("event").toString(), QString("delivered"));
    for (const QJsonObject &event : events)
        QVERIFY(!QJsonDocument(event).toJson().contains("cli.unwatched"));
}

void TestBrokerctl::watchWithAWrongKeyFails()
{
    const Run r = ctl({"watch"}, {}, {}, {"API_KEY=not-a-key-of-this-broker"});
    QCOMPARE(r.exitCode, 3);
    QVERIFY2(r.err.contains("401"), r.err.constData());
}
