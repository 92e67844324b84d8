// SPDX-License-Identifier: GPL-3.0-or-later
#include "config/configloader.h"

#include "../support/testdata.h"

#include <QTest>

using namespace Broker;
using Broker::Testing::testData;

class TestConfigLoader : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void shippedFileHoldsTheDefaults();
    void readsValues();
    void errorsPointAtTheLine_data();
    void errorsPointAtTheLine();
    void unknownKeysAreWarnings();
    void missingFile();
    void environmentOverrides();
    void badEnvironment_data();
    void badEnvironment();
    void connectionGuardKeys();
};

void TestConfigLoader::shippedFileHoldsTheDefaults()
{
    const Result<LoadedConfig> loaded = ConfigLoader::loadFile(BROKER_SOURCE_DIR "/config/message_broker.yaml");
    QVERIFY2(loaded.ok(), loaded.ok() ? "" : qPrintable(loaded.error().message));
    QVERIFY2(loaded->warnings.isEmpty(), qPrintable(loaded->warnings.join(u'\n')));
    const BrokerConfig &c = loaded->config;
    const BrokerConfig d;
    QCOMPARE(c.core.name, d.core.name);
    QCOMPARE(c.storage.backend, d.storage.backend);
    QCOMPARE(c.storage.redis.keyPrefix, d.storage.redis.keyPrefix);
    QCOMPARE(c.storage.redis.commandTimeoutMs, d.storage.redis.commandTimeoutMs);
    QCOMPARE(c.storage.journal.fsync, d.storage.journal.fsync);
    QCOMPARE(c.api.bind, d.api.bind);
    QCOMPARE(c.api.port, d.api.port);
    QCOMPARE(c.api.corsOrigins, d.api.corsOrigins);
    QCOMPARE(c.api.rateLimit.requestsPerMinute, d.api.rateLimit.requestsPerMinute);
    QCOMPARE(c.api.limits.maxBodyBytes, d.api.limits.maxBodyBytes);
    QCOMPARE(c.api.limits.maxMessageBytes, d.api.limits.maxMessageBytes);
    QCOMPARE(c.api.limits.maxHeaderFields, d.api.limits.maxHeaderFields);
    QCOMPARE(c.api.limits.maxWaitSeconds, d.api.limits.maxWaitSeconds);
    QCOMPARE(c.queues.queuePrefix, d.queues.queuePrefix);
    QCOMPARE(c.queues.maxQueueSize, d.queues.maxQueueSize);
    QCOMPARE(c.queues.messageTtlSeconds, d.queues.messageTtlSeconds);
    QCOMPARE(c.security.usersFile, d.security.usersFile);
    QVERIFY(c.security.roles.empty());
    QCOMPARE(c.errors.maxRecords, d.errors.maxRecords);
}

void TestConfigLoader::readsValues()
{
    const QByteArray text = testData(QStringLiteral("configloader/every-section.yaml"));
    const Result<LoadedConfig> loaded = ConfigLoader::loadText(text, "broker.yaml");
    QVERIFY2(loaded.ok(), loaded.ok() ? "" : qPrintable(loaded.error().message));
    QVERIFY(loaded->warnings.isEmpty());
    const BrokerConfig &c = loaded->config;
    QCOMPARE(c.core.logLevel, "debug");
    QCOMPARE(c.storage.backend, StorageBackend::Redis);
    QCOMPARE(c.storage.redis.host, "cache.internal");
    QCOMPARE(c.storage.redis.port, 6380);
    QCOMPARE(c.storage.redis.password, "s3cret");
    QVERIFY(c.storage.redis.tls);
    QCOMPARE(c.storage.redis.database, 2);
    QVERIFY(c.storage.journal.enabled);
    QCOMPARE(c.storage.journal.fsync, FsyncPolicy::Always);
    QCOMPARE(c.api.port, 9090);
    QCOMPARE(c.api.corsOrigins, (QStringList{"https://a.example", "https://b.example"}));
    QVERIFY(c.api.rateLimit.enabled);
    QCOMPARE(c.api.rateLimit.requestsPerMinute, 60);
    QCOMPARE(c.queues.maxQueueSize, 50);
    QCOMPARE(c.security.roles.at("auditor"), (QStringList{"list_queues", "peek:*"}));
    QCOMPARE(c.errors.notifySeverity, Severity::Warning);
    // How these reach the engine: tests/runtime/tst_hostoptions.cpp (configuredValuesReachTheEngine).
}

void TestConfigLoader::errorsPointAtTheLine_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("error");

    QTest::addRow("syntax") << QByteArray("api:\n  port: [1, 2\n")
                            << "b.yaml:3:1: end of sequence flow not found";
    QTest::addRow("port-not-number") << QByteArray("api:\n  port: eighty\n")
                                     << "b.yaml:2:9: 'api.port' must be a whole number from 0 to 65535, not 'eighty'";
    QTest::addRow("port-too-big") << QByteArray("api:\n  port: 70000\n")
                                  << "b.yaml:2:9: 'api.port' must be a whole number from 0 to 65535, not '70000'";
    QTest::addRow("backend-choice") << QByteArray("storage:\n  backend: mongo\n")
                                    << "b.yaml:2:12: 'storage.backend' must be one of memory, redis, not 'mongo'";
    QTest::addRow("bool") << QByteArray("storage:\n  redis:\n    tls: maybe\n")
                          << "b.yaml:3:10: 'storage.redis.tls' must be true or false, not 'maybe'";
    QTest::addRow("section-not-map") << QByteArray("api: 8080\n") << "b.yaml:1:6: 'api' must be a mapping of keys to values";
    QTest::addRow("scalar-is-map") << QByteArray("message_broker:\n  message_ttl: {a: 1}\n")
                                   << "b.yaml:2:16: 'message_broker.message_ttl' must be a whole number";
    QTest::addRow("role-without-permissions") << QByteArray("security:\n  roles:\n    ops: {}\n")
                                              << "b.yaml:3:10: role 'ops' needs a 'permissions' list";
    QTest::addRow("list-of-maps") << QByteArray("api:\n  cors_origins: [{a: b}]\n")
                                  << "b.yaml:2:18: 'api.cors_origins' must be a list of strings";
}

void TestConfigLoader::errorsPointAtTheLine()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, error);
    const Result<LoadedConfig> loaded = ConfigLoader::loadText(text, "b.yaml");
    QVERIFY(!loaded.ok());
    QCOMPARE(loaded.error().message, error);
}

void TestConfigLoader::unknownKeysAreWarnings()
{
    const Result<LoadedConfig> loaded =
        ConfigLoader::loadText("api:\n  prot: 1\n  port: 81\ncolour: red\n", "w.yaml");
    QVERIFY(loaded.ok());
    QCOMPARE(loaded->config.api.port, 81);
    QCOMPARE(loaded->warnings,
             (QStringList{"w.yaml:2:3: unknown key 'api.prot' (ignored)", "w.yaml:4:1: unknown key 'colour' (ignored)"}));
}

void TestConfigLoader::missingFile()
{
    const Result<LoadedConfig> loaded = ConfigLoader::loadFile("/nonexistent/broker.yaml");
    QVERIFY(!loaded.ok());
    QVERIFY(loaded.error().message.startsWith("/nonexistent/broker.yaml: cannot read"));
}

void TestConfigLoader::environmentOverrides()
{
    BrokerConfig config;
    QProcessEnvironment env;
    env.insert("VALKEY_HOST", "valkey");
    env.insert("VALKEY_PORT", "6390");
    env.insert("VALKEY_AUTH", "pw");
    env.insert("VALKEY_TLS", "true");
    env.insert("API_PORT", "8181");
    env.insert("CORS_ORIGINS", "https://x.example, https://y.example");
    env.insert("MAX_QUEUE_SIZE", "77");
    env.insert("MESSAGE_TTL", "600");
    QVERIFY(ConfigLoader::applyEnvironment(config, env).ok());
    QCOMPARE(config.storage.redis.host, "valkey");
    QCOMPARE(config.storage.redis.port, 6390);
    QCOMPARE(config.storage.redis.password, "pw");
    QVERIFY(config.storage.redis.tls);
    QCOMPARE(config.api.port, 8181);
    QCOMPARE(config.api.corsOrigins, (QStringList{"https://x.example", "https://y.example"}));
    QCOMPARE(config.queues.maxQueueSize, 77);
    QCOMPARE(config.queues.messageTtlSeconds, 600);
}

void TestConfigLoader::badEnvironment_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("error");
    QTest::addRow("port") << "API_PORT" << "http" << "environment variable API_PORT: expected a whole number from 0 to 65535";
    QTest::addRow("valkey-port") << "VALKEY_PORT" << "0" << "environment variable VALKEY_PORT: expected a whole number from 1 to 65535";
    QTest::addRow("tls") << "VALKEY_TLS" << "sometimes" << "environment variable VALKEY_TLS: expected true or false";
    QTest::addRow("ttl") << "MESSAGE_TTL" << "-5" << "environment variable MESSAGE_TTL: expected a whole number from 1 to 315360000";
}

void TestConfigLoader::badEnvironment()
{
    QFETCH(QString, name);
    QFETCH(QString, value);
    QFETCH(QString, error);
    BrokerConfig config;
    QProcessEnvironment env;
    env.insert(name, value);
    const Result<void> result = ConfigLoader::applyEnvironment(config, env);
    QVERIFY(!result.ok());
    QCOMPARE(result.error().message, error);
}

void TestConfigLoader::connectionGuardKeys()
{
    // The shipped file documents the defaults ...
    const Result<LoadedConfig> shipped = ConfigLoader::loadFile(BROKER_SOURCE_DIR "/config/message_broker.yaml");
    QVERIFY(shipped.ok());
    const BrokerConfig::Limits &l = shipped->config.api.limits;
    const BrokerConfig d;
    QCOMPARE(l.headTimeoutSeconds, d.api.limits.headTimeoutSeconds);
    QCOMPARE(l.maxConnectionsPerAddress, d.api.limits.maxConnectionsPerAddress);
    QCOMPARE(l.maxConnectionsPerLoopbackAddress, d.api.limits.maxConnectionsPerLoopbackAddress);
    QCOMPARE(l.maxPendingOutputBytes, d.api.limits.maxPendingOutputBytes);
    QCOMPARE(l.outputDrainTimeoutSeconds, d.api.limits.outputDrainTimeoutSeconds);
    QCOMPARE(shipped->config.api.rateLimit.authLogIntervalSeconds, d.api.rateLimit.authLogIntervalSeconds);

    // ... and each key is read.
    const QByteArray text = testData(QStringLiteral("configloader/connection-limits.yaml"));
    const Result<LoadedConfig> loaded = ConfigLoader::loadText(text, "broker.yaml");
    QVERIFY2(loaded.ok(), loaded.ok() ? "" : qPrintable(loaded.error().message));
    QVERIFY(loaded->warnings.isEmpty());
    const BrokerConfig &c = loaded->config;
    QCOMPARE(c.api.rateLimit.authFailuresPerMinute, 10);
    QCOMPARE(c.api.rateLimit.authLogIntervalSeconds, 30);
    QCOMPARE(c.api.limits.headTimeoutSeconds, 3);
    QCOMPARE(c.api.limits.maxConnectionsPerAddress, 8);
    QCOMPARE(c.api.limits.maxConnectionsPerLoopbackAddress, 500);
    QCOMPARE(c.api.limits.maxPendingOutputBytes, 65536);
    QCOMPARE(c.api.limits.outputDrainTimeoutSeconds, 4);
    // Below the smallest sensible bound is an error, not a silent clamp.
    QVERIFY(!ConfigLoader::loadText("api: {limits: {max_pending_output_bytes: 100}}", "broker.yaml").ok());
}

QTEST_APPLESS_MAIN(TestConfigLoader)
#include "tst_configloader.moc"
