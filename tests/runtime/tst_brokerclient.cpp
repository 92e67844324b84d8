// SPDX-License-Identifier: GPL-3.0-or-later
#include "runtime/brokerclient.h"

#include "../support/redisserver.h"

#include <QFile>
#include <QJsonDocument>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

using namespace Broker;

class TestBrokerClient : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    HostSettings settings() const
    {
        HostSettings s;
        s.configFile = m_dir.filePath("broker.yaml");
        s.createUsersFile = true;
        s.bindOverride = "127.0.0.1";
        s.portOverride = 0;
        return s;
    }

    template<typename T>
    static T wait(QFuture<T> future)
    {
        [&] { QTRY_VERIFY_WITH_TIMEOUT(future.isFinished(), 10000); }();
        return future.result();
    }
    static void wait(QFuture<void> future)
    {
        [&] { QTRY_VERIFY_WITH_TIMEOUT(future.isFinished(), 10000); }();
    }

private Q_SLOTS:
    void initTestCase();
    void commandsRunInTheWorkerThread();
    void snapshotsFollowChanges();
    void usersAreWrittenAndReported();
    void commandsWhileStoppedFail();
    void definitionsAreExportedAndImportedInTheWorker();
    void restartStopsTheOldHostFirst();
    void snapshotsStartAfreshWithEachBroker();
    void settingsAreWrittenThenApplied();
    void settingsThatCannotBeWrittenChangeNothing();
    void settingsThatDoNotStartAreRolledBack();
    void destroyingWhileBusyEndsCleanly();
};

// Apply writes the file in the worker thread and restarts the broker on it.
void TestBrokerClient::settingsAreWrittenThenApplied()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    HostSettings s = settings();
    s.configFile = dir.filePath("broker.yaml");
    QVERIFY(QFile::copy(m_dir.filePath("broker.yaml"), s.configFile));
    BrokerClient client;
    QVERIFY(wait(client.start(s)).ok);

    const Result<ApplyReport> applied =
        wait(client.applySettings(s, {{"message_broker.max_queue_size", 77}, {"api.limits.max_batch", 12}}));
    QVERIFY2(applied.ok(), applied.ok() ? "" : qPrintable(applied.error().message));
    QVERIFY2(applied->attempt.ok, qPrintable(applied->attempt.error));
    QVERIFY(!applied->rolledBack);
    QCOMPARE(applied->attempt.config.queues.maxQueueSize, 77);
    QCOMPARE(applied->attempt.config.api.limits.maxBatch, 12);
    QTRY_COMPARE(client.state(), BrokerClient::State::Running);
    QFile file(s.configFile);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray text = file.readAll();
    QVERIFY(text.contains("max_queue_size: 77"));
    QVERIFY(text.contains("users_file: users.yaml")); // other keys are kept
}

// A file that cannot be written: an error, and the broker goes on as it was.
void TestBrokerClient::settingsThatCannotBeWrittenChangeNothing()
{
    BrokerClient client;
    const StartReport started = wait(client.start(settings()));
    QVERIFY(started.ok);
    HostSettings elsewhere = settings();
    elsewhere.configFile = m_dir.filePath("no-such-folder/broker.yaml");

    const Result<ApplyReport> applied = wait(client.applySettings(elsewhere, {{"api.port", 1}}));
    QVERIFY(!applied.ok());
    QVERIFY(!applied.error().message.isEmpty());
    QCOMPARE(client.state(), BrokerClient::State::Running);
    QCOMPARE(client.lastStart().apiUrl, started.apiUrl);
    QVERIFY(wait(client.createQueue("still-here", {})).ok());
}

// The new settings do not start (their port is taken): the file is put back byte for byte and
// the broker runs again on the settings that worked, with its queues.
void TestBrokerClient::settingsThatDoNotStartAreRolledBack()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    HostSettings s = settings();
    s.configFile = dir.filePath("broker.yaml");
    s.portOverride = -1;
    const QByteArray original = "# kept as it is\napi: {bind: 127.0.0.1, port: 0}\nsecurity: {users_file: users.yaml}\n";
    {
        QFile file(s.configFile);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(original);
    }
    BrokerClient client;
    QVERIFY(wait(client.start(s)).ok);
    QVERIFY(wait(client.createQueue("survives", {})).ok());
    QTcpServer taken;
    QVERIFY(taken.listen(QHostAddress::LocalHost, 0));

    const Result<ApplyReport> applied = wait(client.applySettings(s, {{"api.port", int(taken.serverPort())}}));
    QVERIFY(applied.ok());
    QVERIFY(!applied->attempt.ok);
    QCOMPARE(applied->attempt.failedStage, StartStage::Listen);
    QCOMPARE(applied->attempt.config.api.port, int(taken.serverPort())); // what was tried
    QVERIFY(applied->attempt.freePort > 0);
    QVERIFY(applied->attempt.freePort != int(taken.serverPort()));
    QVERIFY(applied->rolledBack);
    QVERIFY2(applied->restored.ok, qPrintable(applied->restored.error));
    QVERIFY(applied->restoreError.isEmpty());
    QCOMPARE(applied->restored.config.api.port, 0);
    QTRY_COMPARE(client.state(), BrokerClient::State::Running);
    QCOMPARE(client.lastStart().apiUrl, applied->restored.apiUrl);
    QFile file(s.configFile);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), original);
    // A memory store without a journal starts empty on a restart; the broker answers commands.
    QVERIFY(wait(client.createQueue("after", {})).ok());
}

void TestBrokerClient::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QFile config(m_dir.filePath("broker.yaml"));
    QVERIFY(config.open(QIODevice::WriteOnly));
    config.write("security: {users_file: users.yaml}\n");
}

void TestBrokerClient::commandsRunInTheWorkerThread()
{
    BrokerClient client;
    QSignalSpy states(&client, &BrokerClient::stateChanged);
    const StartReport report = wait(client.start(settings()));
    QVERIFY2(report.ok, qPrintable(report.error));
    QVERIFY(report.apiUrl.startsWith("http://127.0.0.1:"));
    QCOMPARE(report.storage, "memory");
    QCOMPARE(report.durability, "none");
    QCOMPARE(report.issuedKeys.size(), 1); // first run: a users file with a fresh admin key
    QVERIFY(report.queueTypes.contains("priority"));
    QVERIFY(report.roles.contains("publisher"));
    QTRY_COMPARE(client.state(), BrokerClient::State::Running);
    QCOMPARE(states.first().first().value<BrokerClient::State>(), BrokerClient::State::Starting);

    QueueConfig small;
    small.maxSize = 5;
    const Result<QueueInfo> created = wait(client.createQueue("orders", small));
    QVERIFY(created.ok());
    QCOMPARE(created->config.maxSize, 5);
    QCOMPARE(wait(client.createQueue("orders", QueueConfig{})).error().code, ErrorCode::QueueExists);
    QCOMPARE(wait(client.createQueue("bad name", QueueConfig{})).error().message, "Invalid queue name");

    NewMessage message;
    message.data = R"({"n":1})";
    const Result<PublishResult> published = wait(client.publish("orders", {message}));
    QVERIFY(published.ok());
    QCOMPARE(published->queueSize, 1);

    const Result<BrowsePage> page = wait(client.browse("orders", 0, 10));
    QVERIFY(page.ok());
    QCOMPARE(page->messages.size(), 1);
    QCOMPARE(page->messages.first().data, R"({"n":1})");
    QCOMPARE(page->messages.first().publisher, BrokerClient::desktopUser());

    const Result<QList<MessageEvent>> history = wait(client.lifecycle(QStringLiteral("orders"), published->messageIds().first()));
    QVERIFY(history.ok());
    QCOMPARE(history->size(), 1);
    QCOMPARE(history->first().kind, MessageEventKind::Published);

    QCOMPARE(wait(client.purgeQueue("orders")).value(), 1);
    QCOMPARE(wait(client.deleteQueue("orders")).ok(), true);
    QCOMPARE(wait(client.deleteQueue("orders")).error().code, ErrorCode::QueueNotFound);
}

void TestBrokerClient::snapshotsFollowChanges()
{
    BrokerClient client(60000); // no periodic snapshots: only those caused by changes
    QSignalSpy snapshots(&client, &BrokerClient::snapshotUpdated);
    QVERIFY(wait(client.start(settings())).ok);
    QTRY_COMPARE(snapshots.size(), 1); // one at start
    QVERIFY(wait(client.createQueue("a", QueueConfig{})).ok());
    QTRY_COMPARE(snapshots.size(), 2);
    const auto snapshot = snapshots.last().first().value<BrokerSnapshot>();
    QCOMPARE(snapshot.queues.size(), 1);
    QCOMPARE(snapshot.queues.first().name, "a");
    QCOMPARE(snapshot.storage, "memory");

    // Events arrive once: each snapshot carries those after the previous one.
    NewMessage message;
    message.data = "1";
    QVERIFY(wait(client.publish("a", {message})).ok());
    QVERIFY(wait(client.purgeQueue("a")).ok());
    QTRY_COMPARE(snapshots.size(), 3);
    const auto events = snapshots.last().first().value<BrokerSnapshot>().recentEvents;
    QCOMPARE(events.size(), 2);
    QCOMPARE(events.at(0).kind, MessageEventKind::Published);
    QCOMPARE(events.at(1).kind, MessageEventKind::Purged);
}

void TestBrokerClient::usersAreWrittenAndReported()
{
    BrokerClient client;
    QSignalSpy directories(&client, &BrokerClient::directoryUpdated);
    QVERIFY(wait(client.start(settings())).ok);
    const Result<IssuedKey> added = wait(client.addUser("reporter", "Report job", {"consumer"}));
    QVERIFY(added.ok());
    QCOMPARE(added->userId, "reporter");
    QVERIFY(added->apiKey.size() >= 43);

    QFile file(m_dir.filePath("users.yaml"));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray text = file.readAll();
    QVERIFY(text.contains("reporter"));
    QVERIFY(!text.contains(added->apiKey.toUtf8())); // hashed at rest

    QTRY_VERIFY(!directories.isEmpty()
                && directories.last().first().value<HostDirectory>().users.size() == 2);
    QCOMPARE(wait(client.setRoles("reporter", {"nobody"})).error().code, ErrorCode::InvalidArgument);
    QVERIFY(wait(client.setDisabled("reporter", true)).ok());
    QTRY_VERIFY(directories.last().first().value<HostDirectory>().users.last().disabled);
    QVERIFY(wait(client.rotateKey("reporter"))->apiKey != added->apiKey);
    QVERIFY(wait(client.removeUser("reporter")).ok());
    QTRY_COMPARE(directories.last().first().value<HostDirectory>().users.size(), 1);
}

void TestBrokerClient::commandsWhileStoppedFail()
{
    BrokerClient client;
    const Result<QueueInfo> created = wait(client.createQueue("a", QueueConfig{}));
    QCOMPARE(created.error().code, ErrorCode::Unavailable);
    QCOMPARE(created.error().message, "The broker is not running");
    QCOMPARE(wait(client.exportDefinitions()).error().code, ErrorCode::Unavailable);
    QCOMPARE(wait(client.importDefinitions({})).error().code, ErrorCode::Unavailable);
}

// The engine's export and import, reached through queued calls: a bad document changes nothing,
// a good one adds what is missing and the new user reaches the pages with the next directory.
void TestBrokerClient::definitionsAreExportedAndImportedInTheWorker()
{
    BrokerClient client;
    QVERIFY(wait(client.start(settings())).ok);
    QVERIFY(wait(client.createQueue("exported", QueueConfig{})).ok());
    const Result<QJsonObject> before = wait(client.exportDefinitions());
    QVERIFY(before);
    QVERIFY(QJsonDocument(*before).toJson().contains(R"("name": "exported")"));

    const QJsonObject bad = QJsonDocument::fromJson(
        R"({"queues":[{"name":"imported"}],"users":[{"id":"bob","roles":["publisher"],"api_key":"k"}]})").object();
    const Result<DefinitionsImport> refused = wait(client.importDefinitions(bad));
    QCOMPARE(refused.error().code, ErrorCode::InvalidArgument);
    QVERIFY(refused.error().detail.contains("api_key"));
    QCOMPARE(*wait(client.exportDefinitions()), *before);

    QSignalSpy directories(&client, &BrokerClient::directoryUpdated);
    const QJsonObject good = QJsonDocument::fromJson(
        R"({"queues":[{"name":"imported","options":{"max_size":5}}],"users":[{"id":"bob","roles":["publisher"]}]})").object();
    const Result<DefinitionsImport> summary = wait(client.importDefinitions(good));
    QVERIFY(summary);
    QCOMPARE(summary->queuesCreated, QStringList({"imported"}));
    QCOMPARE(summary->usersCreated.size(), 1);
    QVERIFY(summary->usersCreated.at(0).apiKey.startsWith("bd_"));
    const auto bobListed = [&] {
        if (directories.isEmpty())
            return false;
        const QList<User> users = directories.last().at(0).value<HostDirectory>().users;
        return std::any_of(users.begin(), users.end(), [](const User &user) { return user.id == u"bob"; });
    };
    QTRY_VERIFY(bobListed());
    wait(client.stop());
}

void TestBrokerClient::restartStopsTheOldHostFirst()
{
    BrokerClient client;
    const StartReport first = wait(client.start(settings()));
    QVERIFY(first.ok);
    QVERIFY(wait(client.createQueue("kept-only-in-memory", QueueConfig{})).ok());
    HostSettings same = settings();
    same.portOverride = QUrl(first.apiUrl).port(); // the old listener must be gone to reuse it
    const StartReport second = wait(client.start(same));
    QVERIFY2(second.ok, qPrintable(second.error));
    QCOMPARE(second.apiUrl, first.apiUrl);
    QVERIFY(second.issuedKeys.isEmpty()); // the users file exists now
    QCOMPARE(wait(client.createQueue("kept-only-in-memory", QueueConfig{})).ok(), true);

    HostSettings broken = settings();
    broken.bindOverride = "not-an-address";
    const StartReport failed = wait(client.start(broken));
    QVERIFY(!failed.ok);
    QCOMPARE(failed.failedStage, StartStage::Listen);
    QTRY_COMPARE(client.state(), BrokerClient::State::Failed);
    wait(client.stop());
    QTRY_COMPARE(client.state(), BrokerClient::State::Stopped);
}

// A snapshot asked of a broker that is then replaced (here: one whose Redis never answers) holds
// nothing back, and the new broker's events, numbered from 1 again, all arrive.
void TestBrokerClient::snapshotsStartAfreshWithEachBroker()
{
    BrokerClient client(100);
    QSignalSpy snapshots(&client, &BrokerClient::snapshotUpdated);
    QVERIFY(wait(client.start(settings())).ok);
    QVERIFY(wait(client.createQueue("busy", QueueConfig{})).ok());
    NewMessage message;
    message.data = "1";
    for (int i = 0; i < 5; ++i)
        QVERIFY(wait(client.publish("busy", {message})).ok());
    QTRY_VERIFY(!snapshots.isEmpty() && snapshots.last().first().value<BrokerSnapshot>().lastEventNumber >= 5);

    Testing::BlackHoleServer hole;
    QFile config(m_dir.filePath("hole.yaml"));
    QVERIFY(config.open(QIODevice::WriteOnly));
    config.write(QStringLiteral("security: {users_file: users.yaml}\nstorage:\n  backend: redis\n  redis: {port: %1, "
                                "connect_timeout_ms: 600000, command_timeout_ms: 600000, spool: false}\n")
                     .arg(hole.port())
                     .toUtf8());
    config.close();
    HostSettings silent = settings();
    silent.configFile = config.fileName();
    QVERIFY(wait(client.start(silent)).ok);
    QTRY_VERIFY(hole.accepted() > 0); // its snapshot now waits for an answer that never comes

    snapshots.clear();
    QVERIFY(wait(client.start(settings())).ok);
    QVERIFY(wait(client.createQueue("fresh", QueueConfig{})).ok());
    QVERIFY(wait(client.publish("fresh", {message})).ok());
    // Snapshots go on (the silent broker's one holds nothing back), and the new broker's publish
    // (event 1 of its own) arrives in one of them.
    const auto publishedFresh = [&] {
        for (const QList<QVariant> &signal : std::as_const(snapshots)) {
            for (const MessageEvent &event : signal.first().value<BrokerSnapshot>().recentEvents) {
                if (event.kind == MessageEventKind::Published && event.queue == u"fresh")
                    return true;
            }
        }
        return false;
    };
    QTRY_VERIFY(publishedFresh());
}

void TestBrokerClient::destroyingWhileBusyEndsCleanly()
{
    auto client = std::make_unique<BrokerClient>(10);
    QFuture<StartReport> started = client->start(settings());
    QFuture<Result<QueueInfo>> created = client->createQueue("late", QueueConfig{});
    client.reset(); // waits for the worker thread; nothing may crash or leak (ASan build)
    QVERIFY(started.isFinished());
    QVERIFY(created.isFinished());
}

QTEST_GUILESS_MAIN(TestBrokerClient)
#include "tst_brokerclient.moc"
