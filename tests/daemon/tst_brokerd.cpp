// SPDX-License-Identifier: GPL-3.0-or-later
// brokerd as a user runs it: arguments, exit codes, messages, keys shown once, SIGTERM.
#include "engine/queuetyperegistry.h"
#include "storage/journaledstore.h"
#include "journal/journalfile.h"

#include "../support/brokerdlaunch.h"
#include "../support/storedump.h"
#include "../support/testdata.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

class TestBrokerd : public QObject
{
    Q_OBJECT

private:
    struct Run
    {
        int exitCode = -1;
        QByteArray out;
        QByteArray err;
    };
    static Run run(const QStringList &arguments)
    {
        QProcess process;
        process.start(BROKERD_PATH, arguments);
        if (!process.waitForFinished(10'000))
            qFatal("brokerd did not finish");
        return Run{process.exitCode(), process.readAllStandardOutput(), process.readAllStandardError()};
    }
    static void copy(const QString &from, const QString &to)
    {
        QFile::remove(to);
        QVERIFY(QFile::copy(from, to));
        QVERIFY(QFile::setPermissions(to, QFileDevice::ReadOwner | QFileDevice::WriteOwner));
    }

private Q_SLOTS:
    void versionAndHelp();
    void exitCodes_data();
    void exitCodes();
    void keysAreShownOnce();
    void stopsCleanlyOnSigterm();
    void busyPortExitsWithSix();
    void repairsAJournal();
    void journalKeepsMessagesAcrossAKill();
};

void TestBrokerd::versionAndHelp()
{
    const Run version = run({"--version"});
    QCOMPARE(version.exitCode, 0);
    QCOMPARE(version.out, QByteArray("brokerd " BROKER_VERSION "\n"));
    const Run help = run({"--help"});
    QCOMPARE(help.exitCode, 0);
    QVERIFY(help.out.contains("--config <FILE>"));
    QVERIFY(help.out.contains("Exit codes:"));
}

void TestBrokerd::exitCodes_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QByteArray>("config");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QByteArray>("message");
    QTest::addRow("unknown-option") << QStringList{"--frobnicate"} << QByteArray() << 2
                                    << QByteArray("brokerd: Unknown option 'frobnicate'.");
    QTest::addRow("stray-argument") << QStringList{"extra"} << QByteArray() << 2
                                    << QByteArray("brokerd: unexpected argument 'extra'");
    QTest::addRow("bad-config") << QStringList{} << QByteArray("message_broker:\n  max_deliveries: none\n") << 3
                                << QByteArray("broker.yaml:2:19: 'message_broker.max_deliveries' must be a whole number from 1 to 1000, not 'none'");
    QTest::addRow("missing-config") << QStringList{"--config", "/nonexistent/broker.yaml"} << QByteArray() << 3
                                    << QByteArray("brokerd: /nonexistent/broker.yaml: cannot read");
    QTest::addRow("missing-users") << QStringList{"--users", "/nonexistent/users.yaml"} << QByteArray("{}\n") << 4
                                   << QByteArray("brokerd: /nonexistent/users.yaml: users file not found");
}

void TestBrokerd::exitCodes()
{
    QFETCH(QStringList, arguments);
    QFETCH(QByteArray, config);
    QFETCH(int, exitCode);
    QFETCH(QByteArray, message);
    QTemporaryDir dir;
    if (!config.isEmpty()) {
        QFile file(dir.filePath("broker.yaml"));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(config);
        file.close();
        arguments << "--config" << file.fileName();
    }
    const Run result = run(arguments);
    QCOMPARE(result.exitCode, exitCode);
    QVERIFY2(result.err.contains(message), result.err.constData());
}

void TestBrokerd::keysAreShownOnce()
{
    QTemporaryDir dir;
    copy(BROKER_SOURCE_DIR "/config/message_broker.yaml", dir.filePath("message_broker.yaml"));
    copy(BROKER_SOURCE_DIR "/config/users.yaml.example", dir.filePath("users.yaml"));
    const Run first = run({"--config", dir.filePath("message_broker.yaml"), "--check"});
    QCOMPARE(first.exitCode, 0);
    QVERIFY(first.out.contains("New API keys"));
    QCOMPARE(first.out.count("bd_"), 3);
    const Run second = run({"--config", dir.filePath("message_broker.yaml"), "--check"});
    QCOMPARE(second.exitCode, 0);
    QVERIFY(!second.out.contains("bd_"));
    QVERIFY(second.out.contains("configuration and users are valid"));
}

void TestBrokerd::stopsCleanlyOnSigterm()
{
    QTemporaryDir dir;
    copy(BROKER_SOURCE_DIR "/config/message_broker.yaml", dir.filePath("message_broker.yaml"));
    copy(BROKER_SOURCE_DIR "/config/users.yaml.example", dir.filePath("users.yaml"));
    for (const int signalNumber : {SIGTERM, SIGINT}) {
        QProcess process;
        process.start(BROKERD_PATH, {"--config", dir.filePath("message_broker.yaml"), "--port", "0"});
        QVERIFY(process.waitForStarted());
        QByteArray log;
        QTRY_VERIFY_WITH_TIMEOUT((log += process.readAllStandardError()).contains("listening on http://127.0.0.1:"), 10'000);
        ::kill(pid_t(process.processId()), signalNumber);
        QVERIFY(process.waitForFinished(10'000));
        QCOMPARE(process.exitStatus(), QProcess::NormalExit);
        QCOMPARE(process.exitCode(), 0);
    }
}

void TestBrokerd::busyPortExitsWithSix()
{
    QTcpServer occupier;
    QVERIFY(occupier.listen(QHostAddress::LocalHost, 0));
    QTemporaryDir dir;
    copy(BROKER_SOURCE_DIR "/config/message_broker.yaml", dir.filePath("message_broker.yaml"));
    copy(BROKER_SOURCE_DIR "/config/users.yaml.example", dir.filePath("users.yaml"));
    const Run result = run({"--config", dir.filePath("message_broker.yaml"), "--port", QString::number(occupier.serverPort())});
    QCOMPARE(result.exitCode, 6);
    QVERIFY2(result.err.contains("cannot listen on 127.0.0.1:" + QByteArray::number(occupier.serverPort())), result.err.constData());
}

void TestBrokerd::repairsAJournal()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("journal");
    {
        const Broker::QueueTypeRegistry types;
        const Broker::SystemClock clock;
        auto store = Broker::JournaledStore::open(types, clock, {path, Broker::JournalWriter::Fsync::Never});
        QVERIFY(store.ok());
        Broker::Testing::get<Broker::QueueInfo>([&](auto d) { (*store)->createQueue("r", Broker::QueueConfig{}, d); });
        for (int i = 0; i < 5; ++i) {
            Broker::NewMessage message;
            message.data = "\"record " + QByteArray::number(i) + "\"";
            Broker::Testing::get<Broker::PublishResult>([&](auto d) { (*store)->publish("r", {message}, "alice", d); });
        }
    }
    // Damage the first publish (the third record): records after it make it damage, not a torn tail.
    const auto read = Broker::JournalFile::read(path);
    QVERIFY(read.ok());
    const qint64 third = Broker::JournalFile::HeaderSize + 2 * Broker::JournalFile::RecordOverhead
        + read->records[0].size() + read->records[1].size();
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadWrite));
    QByteArray data = file.readAll();
    data[third + Broker::JournalFile::RecordOverhead + 1] ^= 0x5A;
    file.seek(0);
    file.write(data);
    file.close();
    QVERIFY(!Broker::JournalFile::read(path).ok());

    const Run repaired = run({"--repair-journal", path});
    QCOMPARE(repaired.exitCode, 0);
    QVERIFY2(repaired.out.contains("kept 6 records"), repaired.out.constData());
    QCOMPARE(Broker::JournalFile::read(path)->records.size(), 6);
    QVERIFY(QFile::exists(path + ".damaged"));
    QCOMPARE(run({"--repair-journal", dir.filePath("missing")}).exitCode, 5);
}

// With the journal on, a kill -9 loses nothing that was acknowledged: queued messages and open
// leases are back after the restart.
void TestBrokerd::journalKeepsMessagesAcrossAKill()
{
    QTemporaryDir dir;
    const QByteArray key = "journal-test-admin-key-0123456789"; // the admin of tests/data/brokerd/journal/users.yaml
    QFile users(dir.filePath("users.yaml"));
    QVERIFY(users.open(QIODevice::WriteOnly));
    users.write(Broker::Testing::testData(QStringLiteral("brokerd/journal/users.yaml")));
    users.close();
    QFile config(dir.filePath("broker.yaml"));
    QVERIFY(config.open(QIODevice::WriteOnly));
    config.write(Broker::Testing::testData(QStringLiteral("brokerd/journal/broker.yaml")));
    config.close();

    QNetworkAccessManager network;
    QString base;
    auto call = [&](const QByteArray &method, const QString &path, const QByteArray &body = {}) {
        QNetworkRequest request(QUrl(base + path));
        request.setRawHeader("X-API-Key", key);
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        QNetworkReply *reply = network.sendCustomRequest(request, method, body);
        for (int waited = 0; waited < 1000 && !reply->isFinished(); ++waited)
            QTest::qWait(10); // bounded: at most ten seconds
        reply->deleteLater();
        return qMakePair(reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(),
                         QJsonDocument::fromJson(reply->readAll()).object());
    };
    auto start = [&](QProcess &process) {
        process.start(BROKERD_PATH, {"--config", dir.filePath("broker.yaml"), "--port", "0"});
        QVERIFY(process.waitForStarted());
        QByteArray log;
        base = Broker::Test::waitUntilListening(process, log, 10'000);
        QVERIFY2(!base.isEmpty(), log.constData());
    };

    QProcess first;
    start(first);
    QCOMPARE(call("POST", "/queues", R"({"name":"kept"})").first, 200);
    for (int i = 0; i < 3; ++i)
        QCOMPARE(call("POST", "/messages/kept", R"({"message":{"n":1}})").first, 200);
    const auto leased = call("GET", "/messages/kept?acknowledge=false&visibility_timeout=600");
    QCOMPARE(leased.first, 200);
    ::kill(pid_t(first.processId()), SIGKILL);
    QVERIFY(first.waitForFinished(10'000));

    QProcess second;
    start(second);
    const auto info = call("GET", "/queues/kept");
    QCOMPARE(info.first, 200);
    QCOMPARE(info.second.value("message_count").toInt(), 2);
    QCOMPARE(info.second.value("in_flight").toInt(), 1);
    QCOMPARE(info.second.value("durability").toString(), "always");
    // The lease from before the kill is still valid.
    const QJsonObject message = leased.second.value("message").toObject();
    QCOMPARE(call("PUT", "/messages/kept/" + message.value("id").toString(),
                  QJsonDocument(QJsonObject{{"receipt", message.value("receipt")}}).toJson()).first, 200);
    second.terminate();
    QVERIFY(second.waitForFinished(10'000));
}

QTEST_GUILESS_MAIN(TestBrokerd)
#include "tst_brokerd.moc"
