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
    void readsClusterNodes();
    void errorsPointAtTheLine_data();
    void errorsPointAtTheLine();
    void unknownKeysAreWarnings();
    void missingFile();
    void environmentOverrides();
    void badEnvironment_data();
    void badEnvironment();
    void connectionGuardKeys();
    void gcoresShippedFileRunsOnItsStore();
    void gcoresSchemaKeys();
    void oneSettingInBothLayouts_data();
    void oneSettingInBothLayouts();
    void gcoreEnvironment();
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
    QCOMPARE(c.storage.redis.username, d.storage.redis.username);
    QCOMPARE(c.storage.redis.tls, d.storage.redis.tls);
    QCOMPARE(c.storage.redis.tlsCaFile, d.storage.redis.tlsCaFile);
    QCOMPARE(c.storage.redis.tlsCertFile, d.storage.redis.tlsCertFile);
    QCOMPARE(c.storage.redis.tlsKeyFile, d.storage.redis.tlsKeyFile);
    QCOMPARE(c.storage.redis.tlsServerName, d.storage.redis.tlsServerName);
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
    QCOMPARE(c.errors.notifyOn, d.errors.notifyOn);
    QCOMPARE(c.errors.logFile, d.errors.logFile);
    QCOMPARE(c.errors.maxLogBytes, d.errors.maxLogBytes);
    QCOMPARE(c.core.environment, d.core.environment);
    QCOMPARE(c.queues.defaultType, d.queues.defaultType);
}

void TestConfigLoader::readsClusterNodes()
{
    const Result<LoadedConfig> loaded =
        ConfigLoader::loadText("storage:\n  redis:\n    nodes: [\"10.0.0.1:7000\", \"10.0.0.2:7000\"]\n", "c.yaml");
    QVERIFY2(loaded.ok(), loaded.ok() ? "" : qPrintable(loaded.error().message));
    QVERIFY(loaded->warnings.isEmpty());
    QCOMPARE(loaded->config.storage.redis.nodes, (QStringList{"10.0.0.1:7000", "10.0.0.2:7000"}));
    QVERIFY(loaded->config.storage.redis.isCluster()); // nodes imply a cluster
    QVERIFY(!BrokerConfig{}.storage.redis.isCluster());
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
    QCOMPARE(c.storage.redis.username, "broker-acl");
    QCOMPARE(c.storage.redis.tlsCaFile, "/etc/brokerd/redis-ca.pem");
    QCOMPARE(c.storage.redis.tlsCertFile, "/etc/brokerd/client.pem");
    QCOMPARE(c.storage.redis.tlsKeyFile, "/etc/brokerd/client.key");
    QCOMPARE(c.storage.redis.tlsServerName, "redis.internal");
    QCOMPARE(c.storage.redis.database, 2);
    QCOMPARE(c.storage.redis.waitReplicas, 1);
    QCOMPARE(c.storage.redis.waitTimeoutMs, 250);
    QVERIFY(c.storage.journal.enabled);
    QCOMPARE(c.storage.journal.fsync, FsyncPolicy::Always);
    QCOMPARE(c.api.port, 9090);
    QCOMPARE(c.api.corsOrigins, (QStringList{"https://a.example", "https://b.example"}));
    QVERIFY(c.api.rateLimit.enabled);
    QCOMPARE(c.api.rateLimit.requestsPerMinute, 60);
    QCOMPARE(c.queues.maxQueueSize, 50);
    QCOMPARE(c.security.roles.at("auditor"), (QStringList{"list_queues", "peek:*"}));
    QCOMPARE(c.errors.notifyOn, (QList<Severity>{Severity::Warning, Severity::Error, Severity::Critical}));
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
    QTest::addRow("certificate-without-key")
        << QByteArray("storage:\n  redis:\n    tls: true\n    tls_cert_file: /etc/c.pem\n")
        << "b.yaml:4:20: 'storage.redis.tls_cert_file' and 'storage.redis.tls_key_file' go together (mutual TLS): "
           "give both or neither";
    QTest::addRow("key-without-certificate-gcore-layout")
        << QByteArray("storage:\n  host: redis\n  tls_key_file: /etc/c.key\n")
        << "b.yaml:3:17: 'storage.redis.tls_cert_file' and 'storage.redis.tls_key_file' go together (mutual TLS): "
           "give both or neither";
    QTest::addRow("section-not-map") << QByteArray("api: 8080\n") << "b.yaml:1:6: 'api' must be a mapping of keys to values";
    QTest::addRow("scalar-is-map") << QByteArray("message_broker:\n  message_ttl: {a: 1}\n")
                                   << "b.yaml:2:16: 'message_broker.message_ttl' must be a whole number";
    QTest::addRow("role-without-permissions") << QByteArray("security:\n  roles:\n    ops: {}\n")
                                              << "b.yaml:3:10: role 'ops' needs a 'permissions' list";
    QTest::addRow("list-of-maps") << QByteArray("api:\n  cors_origins: [{a: b}]\n")
                                  << "b.yaml:2:18: 'api.cors_origins' must be a list of strings";
    QTest::addRow("cluster-node-without-port")
        << QByteArray("storage:\n  redis:\n    nodes: [\"r1:7000\", \"r2\"]\n")
        << "b.yaml:3:12: 'storage.redis.nodes' must list host:port addresses, not 'r2'";
    QTest::addRow("cluster-database")
        << QByteArray("storage:\n  redis:\n    cluster: true\n    database: 3\n")
        << "b.yaml:4:15: a Redis Cluster has database 0 only";
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
    env.insert("VALKEY_USERNAME", "acl-user");
    env.insert("API_PORT", "8181");
    env.insert("CORS_ORIGINS", "https://x.example, https://y.example");
    env.insert("MAX_QUEUE_SIZE", "77");
    env.insert("MESSAGE_TTL", "600");
    QVERIFY(ConfigLoader::applyEnvironment(config, env).ok());
    QCOMPARE(config.storage.redis.host, "valkey");
    QCOMPARE(config.storage.redis.port, 6390);
    QCOMPARE(config.storage.redis.password, "pw");
    QVERIFY(config.storage.redis.tls);
    QCOMPARE(config.storage.redis.username, "acl-user");
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

    // The event stream's keys and the history it resumes from.
    QCOMPARE(shipped->config.api.events, d.api.events);
    QCOMPARE(shipped->config.queues.recentEvents, d.queues.recentEvents);
    const Result<LoadedConfig> events = ConfigLoader::loadText(
        "api: {events: {heartbeat_seconds: 5, update_interval_ms: 100, max_streams_per_user: 2, "
        "max_streams_per_address: 3, max_buffered_kib: 64, stall_timeout_seconds: 7}}\n"
        "message_broker: {recent_events: 20000}\n",
        "broker.yaml");
    QVERIFY2(events.ok(), events.ok() ? "" : qPrintable(events.error().message));
    QVERIFY(events->warnings.isEmpty());
    const Rest::EventStreamOptions &e = events->config.api.events;
    QCOMPARE(e.heartbeatSeconds, 5);
    QCOMPARE(e.updateIntervalMs, 100);
    QCOMPARE(e.maxStreamsPerUser, 2);
    QCOMPARE(e.maxStreamsPerAddress, 3);
    QCOMPARE(e.maxBufferedBytes, 64 * 1024);
    QCOMPARE(e.stallTimeoutMs, 7000);
    QCOMPARE(events->config.queues.recentEvents, 20000);
    QVERIFY(!ConfigLoader::loadText("api: {events: {max_buffered_kib: 1}}", "broker.yaml").ok());
}

// gCore's file as it ships: its "full mode" on Redis/Valkey, said in a note, nothing unknown.
void TestConfigLoader::gcoresShippedFileRunsOnItsStore()
{
    const Result<LoadedConfig> loaded = ConfigLoader::loadText(testData("gcore/message_broker.yaml"), "gcore.yaml");
    QVERIFY2(loaded.ok(), loaded.ok() ? "" : qPrintable(loaded.error().message));
    QCOMPARE(loaded->warnings, QStringList());
    QCOMPARE(loaded->notes.size(), 1);
    QVERIFY2(loaded->notes.first().contains("running on Redis/Valkey, as gCore's full mode does"),
             qPrintable(loaded->notes.first()));
    const BrokerConfig &c = loaded->config;
    QCOMPARE(c.storage.backend, StorageBackend::Redis);
    QCOMPARE(c.storage.redis.host, "127.0.0.1");
    QCOMPARE(c.storage.redis.port, 6379);
    QCOMPARE(c.storage.redis.password, QString());
    QVERIFY(!c.storage.redis.tls);
    QCOMPARE(c.storage.redis.keyPrefix, QString()); // keys start with the queue prefix, as gCore's do
    QCOMPARE(c.queues.queuePrefix, "mb:queue:");
    QCOMPARE(c.queues.maxQueueSize, 10000);
    QCOMPARE(c.queues.messageTtlSeconds, 86400);
    QCOMPARE(c.api.port, 8080);
    QCOMPARE(c.api.corsOrigins, QStringList{"*"});
    QCOMPARE(c.core.logLevel, "debug");
    QCOMPARE(c.core.environment, "development");
    QVERIFY(!c.core.production());
}

void TestConfigLoader::gcoresSchemaKeys()
{
    const Result<LoadedConfig> loaded = ConfigLoader::loadText(testData("configloader/gcore-schema.yaml"), "s.yaml");
    QVERIFY2(loaded.ok(), loaded.ok() ? "" : qPrintable(loaded.error().message));
    QCOMPARE(loaded->warnings, QStringList());
    const BrokerConfig &c = loaded->config;
    QVERIFY(c.core.production());
    QCOMPARE(c.storage.backend, StorageBackend::Redis);
    QCOMPARE(c.storage.redis.host, "valkey.internal");
    QCOMPARE(c.storage.redis.port, 6380);
    QCOMPARE(c.storage.redis.password, "s3cret");
    QCOMPARE(c.storage.redis.keyPrefix, "app:");
    QCOMPARE(c.storage.redis.database, 3);
    QCOMPARE(c.storage.redis.connectTimeoutMs, 2500);
    QCOMPARE(c.storage.redis.commandTimeoutMs, 2500);
    QCOMPARE(c.api.port, 9000);
    QCOMPARE(c.api.limits.requestTimeoutSeconds, 15);
    QCOMPARE(c.api.corsOrigins, QStringList()); // cors.enabled: false
    QVERIFY(c.api.rateLimit.enabled);
    QCOMPARE(c.api.rateLimit.requestsPerMinute, 120);
    QCOMPARE(c.core.logLevel, "warning");
    QVERIFY(c.errors.logToFile);
    QCOMPARE(c.errors.logFile, "logs/broker.log");
    QCOMPARE(c.errors.maxLogBytes, 5 * 1024 * 1024);
    QCOMPARE(c.errors.notifyOn, (QList<Severity>{Severity::Warning, Severity::Critical}));
    QCOMPARE(c.queues.queuePrefix, "jobs:");
    QCOMPARE(c.queues.defaultType, "stream");
}

void TestConfigLoader::oneSettingInBothLayouts_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("error");
    QTest::addRow("host") << QByteArray("storage:\n  host: a\n  redis:\n    host: b\n")
                          << "b.yaml:2:9: 'storage.host' and 'storage.redis.host' are the same setting (gCore's name and "
                             "BrokerDesk's): give one of them";
    QTest::addRow("cors") << QByteArray("api:\n  cors_origins: [a]\n  cors: {origins: [b]}\n")
                          << "b.yaml:3:19: 'api.cors.origins' and 'api.cors_origins' are the same setting (gCore's name "
                             "and BrokerDesk's): give one of them";
    QTest::addRow("notify") << QByteArray("error:\n  notify_severity: error\n  notify_on: [error]\n")
                            << "b.yaml:3:14: 'error.notify_on' and 'error.notify_severity' are the same setting "
                               "(gCore's name and BrokerDesk's): give one of them";
    QTest::addRow("bad-severity") << QByteArray("error:\n  notify_on: [error, loud]\n")
                                  << "b.yaml:2:14: 'error.notify_on' must list severities of info, warning, error, "
                                     "critical, not 'loud'";
    QTest::addRow("log-size") << QByteArray("error:\n  max_log_size: 10X\n")
                              << "b.yaml:2:17: 'error.max_log_size' must be a size from 4096 to 1099511627776 bytes "
                                 "(K, M and G allowed), not '10X'";
    QTest::addRow("environment") << QByteArray("core:\n  environment: live\n")
                                 << "b.yaml:2:16: 'core.environment' must be one of development, testing, staging, "
                                    "production, not 'live'";
}

void TestConfigLoader::oneSettingInBothLayouts()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, error);
    const Result<LoadedConfig> loaded = ConfigLoader::loadText(text, "b.yaml");
    QVERIFY(!loaded.ok());
    QCOMPARE(loaded.error().message, error);
}

void TestConfigLoader::gcoreEnvironment()
{
    BrokerConfig config;
    QProcessEnvironment env;
    env.insert("CONNECTION_POOL_SIZE", "12");
    env.insert("USE_STREAMS", "true");
    env.insert("GCORE_ENV", "Production");
    QVERIFY(ConfigLoader::applyEnvironment(config, env).ok());
    QCOMPARE(config.storage.redis.poolSize, 12);
    QCOMPARE(config.queues.defaultType, "stream");
    QVERIFY(config.core.production());
    env.insert("GCORE_ENV", "live");
    const Result<void> bad = ConfigLoader::applyEnvironment(config, env);
    QVERIFY(!bad.ok());
    QCOMPARE(bad.error().message,
             "environment variable GCORE_ENV: expected one of development, testing, staging, production");
}

QTEST_APPLESS_MAIN(TestConfigLoader)
#include "tst_configloader.moc"
