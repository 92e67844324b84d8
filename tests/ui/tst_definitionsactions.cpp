// SPDX-License-Identifier: GPL-3.0-or-later
// Export and import of definitions in the desktop app, offscreen and as a user does it: the action,
// the file dialog, the summary and the key dialogs, against embedded brokers (memory and Redis
// stores). One broker's definitions go through a file into a fresh broker; a bad file changes
// nothing and says why.
#include "runtime/brokerclient.h"
#include "ui/definitionsactions.h"
#include "ui/keydialog.h"

#include "runtime/continuation.h"

#include "../support/redisserver.h"

#include <QAction>
#include <QFile>
#include <QFileDialog>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QTemporaryDir>
#include <QTest>

using namespace Broker;
using namespace Broker::Ui;

namespace {

template<typename T>
T waitFor(QFuture<T> future)
{
    [&] { QTRY_VERIFY_WITH_TIMEOUT(future.isFinished(), 10000); }();
    return future.result();
}

// One embedded broker with a window that holds the definitions actions.
struct Desk
{
    QTemporaryDir dir;
    BrokerClient client{100};
    QWidget window;
    DefinitionsActions *actions = new DefinitionsActions(client, &window);
    HostDirectory directory;

    // `storage` is the storage section of message_broker.yaml (empty: the memory store).
    bool start(const QByteArray &storage)
    {
        QFile config(dir.filePath("message_broker.yaml"));
        if (!config.open(QIODevice::WriteOnly))
            return false;
        config.write("api: {bind: 127.0.0.1, port: 0}\n" + storage);
        config.close();
        QObject::connect(&client, &BrokerClient::directoryUpdated, &window,
                         [this](const HostDirectory &update) { directory = update; });
        HostSettings settings;
        settings.configFile = config.fileName();
        settings.createUsersFile = true;
        const StartReport report = waitFor(client.start(settings));
        if (!report.ok)
            qWarning() << report.error;
        window.show();
        return report.ok;
    }

    QueueConfig options(const QJsonObject &json) const
    {
        return *QueueConfig::fromOptions(QStringLiteral("q"), json, client.lastStart().queueDefaults);
    }

    QMap<QString, QueueConfig> queues()
    {
        QMap<QString, QueueConfig> byName;
        const QJsonObject document = *waitFor(client.exportDefinitions());
        for (const QJsonValue &queue : document.value("queues").toArray()) {
            byName.insert(queue["name"].toString(),
                          *QueueConfig::fromOptions(queue["name"].toString(), queue["options"].toObject(),
                                                    client.lastStart().queueDefaults));
        }
        return byName;
    }

    const User *user(const QString &id) const
    {
        for (const User &entry : directory.users) {
            if (entry.id == id)
                return &entry;
        }
        return nullptr;
    }

    // Triggers `action`, picks `path` in the file dialog and accepts it, as a person would.
    void chooseFile(QAction *action, const QString &path)
    {
        action->trigger();
        QFileDialog *dialog = nullptr;
        QTRY_VERIFY((dialog = window.findChild<QFileDialog *>("definitionsFile")) != nullptr);
        dialog->selectFile(path);
        static_cast<QDialog *>(dialog)->accept(); // QDialog::accept is public; it runs QFileDialog's checks
    }
};

QString storageSection(const QString &backend, quint16 redisPort, const QString &prefix)
{
    if (backend == u"memory")
        return {};
    return QStringLiteral("storage: {backend: redis, redis: {host: 127.0.0.1, port: %1, key_prefix: \"%2\"}}\n")
        .arg(redisPort)
        .arg(prefix);
}

} // namespace

class TestDefinitionsActions : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void exportedFileSetsUpAFreshBroker_data();
    void exportedFileSetsUpAFreshBroker();
    void badFileChangesNothingAndSaysWhy_data();
    void badFileChangesNothingAndSaysWhy();
    void summaryNamesDifferencesAndReasons();
};

void TestDefinitionsActions::exportedFileSetsUpAFreshBroker_data()
{
    QTest::addColumn<QString>("backend");
    QTest::addRow("memory-store") << "memory";
    QTest::addRow("redis-store") << "redis";
}

void TestDefinitionsActions::exportedFileSetsUpAFreshBroker()
{
    QFETCH(QString, backend);
    Testing::RedisServer redis;
    if (backend == u"redis" && !redis.start())
        QSKIP(qPrintable("no Redis server: " + redis.errorString()));
    QTemporaryDir files;
    const QString file = files.filePath("definitions.json");

    // The source: queues with options (one with a dead-letter queue), users, one disabled.
    QByteArray sourceRobotHash;
    QString sourceRobotKey;
    {
        Desk source;
        QVERIFY(source.start(storageSection(backend, redis.port(), "src:").toUtf8()));
        QVERIFY(waitFor(source.client.createQueue("orders.dlq", source.options({{"ttl", 3600}}))));
        QVERIFY(waitFor(source.client.createQueue(
            "orders", source.options({{"max_size", 50}, {"dead_letter_queue", "orders.dlq"}}))));
        QVERIFY(waitFor(source.client.createQueue("audit", source.options({{"type", "stream"}, {"ttl", 600}}))));
        QVERIFY(waitFor(source.client.createQueue("shared", source.options({{"max_size", 7}}))));
        const Result<IssuedKey> robot = waitFor(source.client.addUser("robot", "CI robot", {"publisher"}));
        QVERIFY(robot);
        sourceRobotKey = robot->apiKey;
        QVERIFY(waitFor(source.client.addUser("sleeper", {}, {"consumer"})));
        QVERIFY(waitFor(source.client.setDisabled("sleeper", true)));
        QTRY_VERIFY(source.user("sleeper") && source.user("sleeper")->disabled);
        sourceRobotHash = source.user("robot")->keyHash;

        bool exported = false;
        QObject::connect(source.actions, &DefinitionsActions::exported, &source.window, [&] { exported = true; });
        source.chooseFile(source.actions->exportAction(), file);
        QTRY_VERIFY_WITH_TIMEOUT(exported, 10000);
    }
    QFile written(file);
    QVERIFY(written.open(QIODevice::ReadOnly));
    const QByteArray text = written.readAll();
    QVERIFY(!text.contains("api_key"));
    QVERIFY(!text.contains(sourceRobotKey.toUtf8()));
    QVERIFY(!text.contains(sourceRobotHash.toHex()));
    QVERIFY(QJsonDocument::fromJson(text).object().value("queues").toArray().size() == 4);

    // A fresh broker (its own folder, or its own key prefix on the same Redis) with one queue of
    // the same name and other options.
    Desk target;
    QVERIFY(target.start(storageSection(backend, redis.port(), "dst:").toUtf8()));
    QVERIFY(waitFor(target.client.createQueue("shared", target.options({{"max_size", 9}}))));
    DefinitionsImport summary;
    QObject::connect(target.actions, &DefinitionsActions::imported, &target.window,
                     [&](const DefinitionsImport &done) { summary = done; });
    target.chooseFile(target.actions->importAction(), file);

    QDialog *shown = nullptr;
    QTRY_VERIFY_WITH_TIMEOUT((shown = target.window.findChild<QDialog *>("definitionsSummary")) != nullptr, 10000);
    const QString described = shown->findChild<QPlainTextEdit *>("summaryText")->toPlainText();
    QVERIFY2(described.contains("Queues created (3)"), qPrintable(described));
    QVERIFY2(described.contains("shared: exists with other options; not changed (max_size is 9 here, 7 in the file)"),
             qPrintable(described));
    QStringList created = summary.queuesCreated;
    QCOMPARE(created.indexOf("orders.dlq") < created.indexOf("orders"), true); // the target first
    created.sort();
    QCOMPARE(created, QStringList({"audit", "orders", "orders.dlq"}));

    // The queues arrived with their options; the one that differed was left alone.
    const QMap<QString, QueueConfig> queues = target.queues();
    QCOMPARE(queues.value("orders").maxSize, 50);
    QCOMPARE(queues.value("orders").deadLetterQueue, QString("orders.dlq"));
    QCOMPARE(queues.value("orders.dlq").ttlSeconds, 3600);
    QCOMPARE(queues.value("audit").type, QString("stream"));
    QCOMPARE(queues.value("audit").ttlSeconds, 600);
    QCOMPARE(queues.value("shared").maxSize, 9);

    // The users arrived without their keys: each has a new one, shown once in a key dialog.
    QTRY_VERIFY(target.user("robot") && target.user("sleeper"));
    QCOMPARE(target.user("robot")->name, QString("CI robot"));
    QCOMPARE(target.user("robot")->roles, QStringList({"publisher"}));
    QVERIFY(target.user("sleeper")->disabled);
    QVERIFY(target.user("robot")->keyHash != sourceRobotHash);
    QStringList keyed;
    for (KeyDialog *dialog : target.window.findChildren<KeyDialog *>()) {
        const QString key = dialog->findChild<QLineEdit *>("apiKey")->text();
        QVERIFY(key.startsWith("bd_"));
        QVERIFY(key != sourceRobotKey);
        keyed << dialog->windowTitle();
    }
    keyed.sort();
    QCOMPARE(keyed, QStringList({"API key for robot", "API key for sleeper"}));
}

void TestDefinitionsActions::badFileChangesNothingAndSaysWhy_data()
{
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("reason");
    QTest::addRow("not-json") << QByteArray(R"({"queues":[)") << "not JSON";
    QTest::addRow("not-an-object") << QByteArray("[]") << "not a definitions document";
    QTest::addRow("a-key-in-the-file") << QByteArray(
        R"({"queues":[{"name":"fresh"}],"users":[{"id":"x","roles":["admin"],"api_key":"k"}]})")
                                       << "users[0]: unknown member 'api_key'";
    QTest::addRow("unknown-queue-type") << QByteArray(
        R"({"queues":[{"name":"fresh"},{"name":"q3","options":{"type":"circular"}}],"users":[{"id":"fresh_user","roles":["publisher"]}]})")
                                        << "queue 'q3'";
    QTest::addRow("missing-file") << QByteArray() << "could not be read";
}

void TestDefinitionsActions::badFileChangesNothingAndSaysWhy()
{
    QFETCH(QByteArray, content);
    QFETCH(QString, reason);
    Desk desk;
    QVERIFY(desk.start({}));
    const QString path = desk.dir.filePath("bad.json");
    if (!content.isEmpty()) {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(content);
    }
    const QJsonObject before = *waitFor(desk.client.exportDefinitions());
    QString failure;
    QObject::connect(desk.actions, &DefinitionsActions::failed, &desk.window,
                     [&](const QString &message) { failure = message; });
    if (content.isEmpty())
        desk.actions->importFrom(path); // the dialog offers existing files only
    else
        desk.chooseFile(desk.actions->importAction(), path);

    QMessageBox *box = nullptr;
    QTRY_VERIFY_WITH_TIMEOUT((box = desk.window.findChild<QMessageBox *>("definitionsError")) != nullptr, 10000);
    QVERIFY2(box->text().contains(reason), qPrintable(box->text()));
    QVERIFY(box->text().contains("Nothing was changed."));
    QVERIFY(failure.contains(reason));
    QVERIFY(!desk.window.findChild<QDialog *>("definitionsSummary"));
    QCOMPARE(*waitFor(desk.client.exportDefinitions()), before);
}

void TestDefinitionsActions::summaryNamesDifferencesAndReasons()
{
    DefinitionsImport summary;
    summary.queueConflicts.append(
        DefinitionsImport::QueueConflict{"shared",
                                         "exists with other options; not changed",
                                         {{"dead_letter_queue", QJsonValue::Null, "shared.dlq"},
                                          {"type", "list", "priority"}}});
    summary.queuesFailed.append(DefinitionsImport::Refused{"broken", "Storage unavailable"});
    summary.rolesNotImported.append(
        DefinitionsImport::Refused{"auditor", "not defined here; roles come from message_broker.yaml"});
    summary.usersCreated.append(DefinitionsImport::NewUser{"sleeper", "bd_secret", true});
    summary.userConflicts.append(DefinitionsImport::Refused{"watcher",
                                                            "role 'auditor' is not defined here; not added"});
    const QString text = describeImport(summary);
    QVERIFY2(text.contains("shared: exists with other options; not changed (dead_letter_queue is none here, "
                           "shared.dlq in the file; type is list here, priority in the file)"),
             qPrintable(text));
    QVERIFY(text.contains("Queues not created (1):\n  broken: Storage unavailable"));
    QVERIFY(text.contains("Roles not imported (1):\n  auditor: not defined here; roles come from message_broker.yaml"));
    QVERIFY(text.contains("  sleeper (disabled)"));
    QVERIFY(text.contains("watcher: role 'auditor' is not defined here"));
    QVERIFY(!text.contains("bd_secret")); // keys are shown in their own dialogs, never in this text
    QCOMPARE(describeImport({}), QString("The file defines nothing."));
}

QTEST_MAIN(TestDefinitionsActions)
#include "tst_definitionsactions.moc"
