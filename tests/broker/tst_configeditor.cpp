// SPDX-License-Identifier: GPL-3.0-or-later
#include "config/configeditor.h"
#include "config/configloader.h"

#include "../support/testdata.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace Broker;
using Broker::Testing::testData;

class TestConfigEditor : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void changesKeepOtherKeys();
    void createsAMissingFile();
    void refusesWhatItCannotWrite();
    void ourNameReplacesGcoresName();
};

void TestConfigEditor::changesKeepOtherKeys()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("broker.yaml");
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(testData(QStringLiteral("configeditor/desk.yaml")));
    file.close();

    const Result<void> applied = ConfigEditor::apply(
        path,
        {{"api.port", 9090}, {"api.bind", QString("127.0.0.1")}, {"api.rate_limit.enabled", true},
         {"storage.memory.journal.fsync", QString("always")}},
        "Written by the test");
    QVERIFY2(applied.ok(), applied.ok() ? "" : qPrintable(applied.error().message));

    QVERIFY(file.open(QIODevice::ReadOnly));
    QVERIFY(file.readAll().startsWith("# Written by the test\n"));
    const Result<LoadedConfig> loaded = ConfigLoader::loadFile(path);
    QVERIFY2(loaded.ok(), loaded.ok() ? "" : qPrintable(loaded.error().message));
    QCOMPARE(loaded->config.api.port, 9090);
    QCOMPARE(loaded->config.api.bind, "127.0.0.1");
    QCOMPARE(loaded->config.api.rateLimit.enabled, true);
    QCOMPARE(loaded->config.storage.journal.fsync, FsyncPolicy::Always);
    QCOMPARE(loaded->config.api.limits.maxBatch, 7); // untouched keys stay
    QCOMPARE(loaded->config.core.name, "desk");
    QVERIFY(loaded->warnings.isEmpty());
}

void TestConfigEditor::createsAMissingFile()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("new.yaml");
    QVERIFY(ConfigEditor::apply(path, {{"api.port", 0}}).ok());
    QCOMPARE(ConfigLoader::loadFile(path)->config.api.port, 0);
}

void TestConfigEditor::refusesWhatItCannotWrite()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("broker.yaml");
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    const QByteArray original = "api: 5\n";
    file.write(original);
    file.close();
    const Result<void> applied = ConfigEditor::apply(path, {{"api.port", 1}});
    QVERIFY(!applied.ok());
    QVERIFY2(applied.error().message.endsWith("'api' is not a mapping"), qPrintable(applied.error().message));
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), original); // nothing written

    QVERIFY(ConfigEditor::apply(dir.filePath("broken.yaml"), {}).ok());
    QFile broken(dir.filePath("broken.yaml"));
    QVERIFY(broken.open(QIODevice::WriteOnly));
    broken.write("api: [\n");
    broken.close();
    QVERIFY(ConfigEditor::apply(dir.filePath("broken.yaml"), {{"api.port", 1}}).error().message.contains("broken.yaml:"));
}

// The Settings page writes BrokerDesk's names; on gCore's file the result still loads, with the
// new values and the rest of gCore's settings as they were.
void TestConfigEditor::ourNameReplacesGcoresName()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("message_broker.yaml");
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(testData(QStringLiteral("gcore/message_broker.yaml")));
    file.close();
    const Result<void> applied = ConfigEditor::apply(
        path, {{"storage.redis.host", QString("valkey.lan")}, {"storage.redis.port", 6390},
               {"api.cors_origins", QString("https://a.example")}});
    QVERIFY2(applied.ok(), applied.ok() ? "" : qPrintable(applied.error().message));
    const Result<LoadedConfig> loaded = ConfigLoader::loadFile(path);
    QVERIFY2(loaded.ok(), loaded.ok() ? "" : qPrintable(loaded.error().message));
    QCOMPARE(loaded->config.storage.redis.host, "valkey.lan");
    QCOMPARE(loaded->config.storage.redis.port, 6390);
    QCOMPARE(loaded->config.api.corsOrigins, QStringList{"https://a.example"});
    QCOMPARE(loaded->config.queues.queuePrefix, "mb:queue:");
    QVERIFY(!loaded->config.storage.redis.tls);
    // What gCore's storage.host meant stays: Redis, and the queues' keys where they were.
    QCOMPARE(loaded->config.storage.backend, StorageBackend::Redis);
    QCOMPARE(loaded->config.storage.redis.keyPrefix, QString());
}

QTEST_APPLESS_MAIN(TestConfigEditor)
#include "tst_configeditor.moc"
