// SPDX-License-Identifier: GPL-3.0-or-later
// The default configuration (BrokerConfig{} and config/message_broker.yaml as shipped) maps onto
// the components' own default options, field by field: a default written in one place only
// cannot drift, and a mapping that forgets or mangles a field shows here.
#include "runtime/hostoptions.h"
#include "engine/execprocessor.h"
#include "engine/webhookprocessor.h"
#include "storage/journaledstore.h"
#include "storage/redisstore.h"

#include "config/configloader.h"
#include "errors/errormanager.h"
#include "rest/auththrottle.h"

#include <QTest>

using namespace Broker;

namespace {

using Fields = QList<QPair<QString, QVariant>>;

Fields engineFields(const EngineOptions &o)
{
    return {{"queueDefaults.maxSize", o.queueDefaults.maxSize},
            {"queueDefaults.ttlSeconds", o.queueDefaults.ttlSeconds},
            {"queueDefaults.visibilityTimeoutSeconds", o.queueDefaults.visibilityTimeoutSeconds},
            {"queueDefaults.maxDeliveries", o.queueDefaults.maxDeliveries},
            {"maxMessageBytes", o.maxMessageBytes},
            {"maxBatch", o.maxBatch},
            {"maxConsumeCount", o.maxConsumeCount},
            {"maxBrowseLimit", o.maxBrowseLimit},
            {"maxWaitMs", o.maxWaitMs},
            {"maxDelayMs", o.maxDelayMs},
            {"eventLogPerQueue", o.eventLogPerQueue},
            {"recentEvents", o.recentEvents},
            {"maintenanceIntervalMs", o.maintenanceIntervalMs},
            {"processorBatch", o.processorBatch},
            {"processorRetryFirstMs", o.processorRetryFirstMs},
            {"processorRetryMaxMs", o.processorRetryMaxMs}};
}

Fields webhookProcessorFields(const WebhookProcessorOptions &o)
{
    return {{"timeoutMs", o.timeoutMs}, {"headers", qsizetype(o.headers.size())}, {"secret", o.secret}};
}

Fields execProcessorFields(const ExecProcessorOptions &o)
{
    return {{"timeoutMs", o.timeoutMs}, {"outputLimitBytes", o.outputLimitBytes}, {"command", o.command}};
}

Fields restFields(const Rest::RestOptions &o)
{
    return {{"guard.limits.maxBodyBytes", o.guard.limits.maxBodyBytes},
            {"guard.limits.maxHeaderBytes", o.guard.limits.maxHeaderBytes},
            {"guard.limits.maxHeaderFields", o.guard.limits.maxHeaderFields},
            {"guard.idleTimeoutMs", o.guard.idleTimeoutMs},
            {"guard.headTimeoutMs", o.guard.headTimeoutMs},
            {"guard.requestTimeoutMs", o.guard.requestTimeoutMs},
            {"guard.maxConnections", o.guard.maxConnections},
            {"guard.maxConnectionsPerAddress", o.guard.maxConnectionsPerAddress},
            {"guard.maxConnectionsPerLoopbackAddress", o.guard.maxConnectionsPerLoopbackAddress},
            {"guard.maxPendingOutputBytes", o.guard.maxPendingOutputBytes},
            {"guard.outputDrainTimeoutMs", o.guard.outputDrainTimeoutMs},
            {"guard.socketReadBufferBytes", o.guard.socketReadBufferBytes},
            {"events.heartbeatSeconds", o.events.heartbeatSeconds},
            {"events.updateIntervalMs", o.events.updateIntervalMs},
            {"events.maxStreamsPerUser", o.events.maxStreamsPerUser},
            {"events.maxStreamsPerAddress", o.events.maxStreamsPerAddress},
            {"events.maxBufferedBytes", o.events.maxBufferedBytes},
            {"events.stallTimeoutMs", o.events.stallTimeoutMs},
            {"maxJsonDepth", o.maxJsonDepth},
            {"corsOrigins", o.corsOrigins},
            {"rateLimitEnabled", o.rateLimitEnabled},
            {"requestsPerMinute", o.requestsPerMinute},
            {"burst", o.burst},
            {"authFailuresPerMinute", o.authFailuresPerMinute},
            {"authLogIntervalMs", o.authLogIntervalMs},
            {"durability", durabilityName(o.durability)}};
}

// The REST server builds its AuthThrottle from these two fields of RestOptions.
Fields authThrottleFields(const Rest::AuthThrottle::Options &o)
{
    return {{"failuresPerMinute", o.failuresPerMinute}, {"logIntervalMs", o.logIntervalMs}};
}

Fields redisStoreFields(const RedisStoreOptions &o)
{
    return {{"connection.host", o.connection.host},
            {"connection.port", o.connection.port},
            {"connection.username", o.connection.username},
            {"connection.password", o.connection.password},
            {"connection.tls", o.connection.tls},
            {"connection.tlsCaFile", o.connection.tlsCaFile},
            {"connection.tlsCertFile", o.connection.tlsCertFile},
            {"connection.tlsKeyFile", o.connection.tlsKeyFile},
            {"connection.tlsServerName", o.connection.tlsServerName},
            {"connection.database", o.connection.database},
            {"connection.connectTimeoutMs", o.connection.connectTimeoutMs},
            {"connection.commandTimeoutMs", o.connection.commandTimeoutMs},
            {"pool.size", o.pool.size},
            {"pool.waitTimeoutMs", o.pool.waitTimeoutMs},
            {"pool.maxWaitingCommands", o.pool.maxWaitingCommands},
            {"keyPrefix", o.keyPrefix},
            {"cluster", o.cluster.has_value()},
            {"replicaWait.replicas", o.replicaWait.replicas},
            {"replicaWait.timeoutMs", o.replicaWait.timeoutMs},
            {"breaker.failureThreshold", o.breaker.failureThreshold},
            {"breaker.openMs", o.breaker.openMs},
            {"breaker.firstProbeMs", o.breaker.firstProbeMs},
            {"maintenanceBatch", o.maintenanceBatch},
            {"spoolDrainIntervalMs", o.spoolDrainIntervalMs},
            {"spoolBlockedReminderMs", o.spoolBlockedReminderMs}};
}

Fields spoolFields(const SpoolLimits &o)
{
    return {{"maxMessages", o.maxMessages}, {"maxBytes", o.maxBytes}};
}

// The path is the configuration's own (next to the users file); the rest are the store's.
Fields journalFields(const JournaledStore::Options &o)
{
    return {{"fsync", fsyncPolicyName(o.fsync)},
            {"compactMinBytes", o.compactMinBytes},
            {"compactFactor", o.compactFactor},
            {"retryIntervalMs", o.retryIntervalMs}};
}

Fields errorFields(int maxRecords, const QList<Severity> &notified)
{
    QStringList names;
    for (const Severity severity : notified)
        names.append(QString::fromLatin1(severityName(severity)));
    return {{"maxRecords", maxRecords}, {"notifyOn", names.join(u',')}};
}

Fields queueConfigFields(const QueueConfig &o)
{
    return {{"type", o.type},
            {"maxSize", o.maxSize},
            {"ttlSeconds", o.ttlSeconds},
            {"visibilityTimeoutSeconds", o.visibilityTimeoutSeconds},
            {"maxDeliveries", o.maxDeliveries},
            {"deadLetterQueue", o.deadLetterQueue}};
}

} // namespace

class TestHostOptions : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void defaultsMapOntoComponentDefaults_data();
    void defaultsMapOntoComponentDefaults();
    void configuredValuesReachTheEngine();
    void durabilityFollowsTheJournal();
    void tlsFilesStartAtTheConfigFolder();
    void configuredProcessorsReachTheirOptions();
    void clusterSeeds();
};

void TestHostOptions::defaultsMapOntoComponentDefaults_data()
{
    QTest::addColumn<QVariant>("mapped");
    QTest::addColumn<QVariant>("componentDefault");

    const Result<LoadedConfig> shipped = ConfigLoader::loadFile(BROKER_SOURCE_DIR "/config/message_broker.yaml");
    QVERIFY2(shipped.ok(), shipped.ok() ? "" : qPrintable(shipped.error().message));
    const QString usersPath = QStringLiteral("/srv/broker/users.yaml");
    const SystemClock clock;
    const ErrorManager errors(clock);
    for (const auto &[source, config] :
         {std::pair<const char *, BrokerConfig>{"BrokerConfig{}", BrokerConfig{}}, {"shipped-yaml", shipped->config}}) {
        const Rest::RestOptions rest = HostOptions::rest(config);
        const QList<std::tuple<const char *, Fields, Fields>> components{
            {"engine", engineFields(HostOptions::engine(config)), engineFields(EngineOptions{})},
            {"rest", restFields(rest), restFields(Rest::RestOptions{})},
            {"auth-throttle", authThrottleFields({rest.authFailuresPerMinute, rest.authLogIntervalMs}),
             authThrottleFields(Rest::AuthThrottle::Options{})},
            {"redis-store", redisStoreFields(HostOptions::redisStore(config)), redisStoreFields(RedisStoreOptions{})},
            {"publish-spool", spoolFields(HostOptions::spoolLimits(config)), spoolFields(PublishSpool::Limits{})},
            {"journal", journalFields(HostOptions::journal(config, usersPath)), journalFields(JournaledStore::Options{})},
            {"errors", errorFields(config.errors.maxRecords, config.errors.notifyOn),
             errorFields(errors.capacity(), errors.notifiedSeverities())},
            {"webhook-processor", webhookProcessorFields(HostOptions::webhookProcessor(BrokerConfig::Processor{})),
             webhookProcessorFields(WebhookProcessorOptions{})},
            {"exec-processor", execProcessorFields(HostOptions::execProcessor(BrokerConfig::Processor{})),
             execProcessorFields(ExecProcessorOptions{})},
            {"queue", queueConfigFields(QueueConfig::withDefaults(HostOptions::engine(config).queueDefaults)),
             queueConfigFields(QueueConfig{})},
        };
        for (const auto &[component, mapped, fresh] : components) {
            QCOMPARE(mapped.size(), fresh.size());
            for (qsizetype i = 0; i < mapped.size(); ++i) {
                QTest::addRow("%s/%s.%s", source, component, qPrintable(mapped[i].first))
                    << mapped[i].second << fresh[i].second;
            }
        }
    }
}

void TestHostOptions::defaultsMapOntoComponentDefaults()
{
    QFETCH(QVariant, mapped);
    QFETCH(QVariant, componentDefault);
    QCOMPARE(mapped, componentDefault);
}

void TestHostOptions::configuredValuesReachTheEngine()
{
    const QByteArray text = R"(
api:
  limits: {max_batch: 10, max_wait_seconds: 5}
message_broker: {max_queue_size: 50, message_ttl: 120, max_deliveries: 9}
)";
    const Result<LoadedConfig> loaded = ConfigLoader::loadText(text, "broker.yaml");
    QVERIFY2(loaded.ok(), loaded.ok() ? "" : qPrintable(loaded.error().message));
    const EngineOptions engine = HostOptions::engine(loaded->config);
    QCOMPARE(engine.queueDefaults.maxSize, 50);
    QCOMPARE(engine.queueDefaults.ttlSeconds, 120);
    QCOMPARE(engine.queueDefaults.maxDeliveries, 9);
    QCOMPARE(engine.maxBatch, 10);
    QCOMPARE(engine.maxWaitMs, 5000);
}

void TestHostOptions::tlsFilesStartAtTheConfigFolder()
{
    BrokerConfig config;
    config.api.tls.certFile = QStringLiteral("tls/server.crt");
    config.api.tls.keyFile = QStringLiteral("/srv/keys/server.key");
    config.storage.redis.tlsCaFile = QStringLiteral("redis/ca.pem");
    const Rest::TlsOptions api = HostOptions::tls(config, QStringLiteral("/etc/brokerd"));
    QCOMPARE(api.certFile, QStringLiteral("/etc/brokerd/tls/server.crt"));
    QCOMPARE(api.keyFile, QStringLiteral("/srv/keys/server.key")); // absolute: as written
    QCOMPARE(api.clientCaFile, QString());                        // not set: stays unset
    const Redis::ConnectionOptions redis = HostOptions::redisStore(config, QStringLiteral("/etc/brokerd")).connection;
    QCOMPARE(redis.tlsCaFile, QStringLiteral("/etc/brokerd/redis/ca.pem"));
    QCOMPARE(redis.tlsCertFile, QString());
}

void TestHostOptions::clusterSeeds()
{
    BrokerConfig config;
    QVERIFY(!HostOptions::redisStore(config).cluster.has_value());
    config.storage.redis.cluster = true;
    config.storage.redis.host = QStringLiteral("redis-0");
    config.storage.redis.port = 7000;
    const RedisStoreOptions fromHost = HostOptions::redisStore(config);
    QVERIFY(fromHost.cluster.has_value());
    QCOMPARE(fromHost.cluster->seeds, (QList<Redis::NodeAddress>{{QStringLiteral("redis-0"), 7000}}));
    config.storage.redis.cluster = false;
    config.storage.redis.nodes = QStringList{QStringLiteral("10.0.0.1:7000"), QStringLiteral("[::1]:7001")};
    const RedisStoreOptions fromNodes = HostOptions::redisStore(config);
    QVERIFY(fromNodes.cluster.has_value());
    QCOMPARE(fromNodes.cluster->seeds, (QList<Redis::NodeAddress>{{QStringLiteral("10.0.0.1"), 7000},
                                                                   {QStringLiteral("::1"), 7001}}));
    config.storage.redis.waitReplicas = 1;
    config.storage.redis.waitTimeoutMs = 300;
    QCOMPARE(HostOptions::redisStore(config).replicaWait.replicas, 1);
    QCOMPARE(HostOptions::redisStore(config).replicaWait.timeoutMs, 300);
}

void TestHostOptions::durabilityFollowsTheJournal()
{
    BrokerConfig config;
    QCOMPARE(durabilityName(HostOptions::durability(config)), "none");
    config.storage.journal.enabled = true;
    QCOMPARE(durabilityName(HostOptions::durability(config)), "everysec");
    config.storage.journal.fsync = FsyncPolicy::Always;
    QCOMPARE(durabilityName(HostOptions::rest(config).durability), "always");
    config.storage.journal.fsync = FsyncPolicy::Never;
    QCOMPARE(durabilityName(HostOptions::durability(config)), "no");
}

void TestHostOptions::configuredProcessorsReachTheirOptions()
{
    const QByteArray text = R"(processors:
  - {queue: a, type: webhook, url: "https://h.example/x?t=1", timeout_ms: 700, secret: k, headers: {X-A: "1", X-B: "2"}}
  - {queue: b, type: exec, command: [/bin/echo, hi], timeout_ms: 900}
)";
    const Result<LoadedConfig> loaded = ConfigLoader::loadText(text, "broker.yaml");
    QVERIFY2(loaded.ok(), loaded.ok() ? "" : qPrintable(loaded.error().message));
    const WebhookProcessorOptions webhook = HostOptions::webhookProcessor(loaded->config.processors[0]);
    QCOMPARE(webhook.url, QUrl(QStringLiteral("https://h.example/x?t=1")));
    QCOMPARE(webhook.timeoutMs, 700);
    QCOMPARE(webhook.secret, QByteArray("k"));
    const QList<std::pair<QByteArray, QByteArray>> headers{{"X-A", "1"}, {"X-B", "2"}};
    QCOMPARE(webhook.headers, headers);
    const ExecProcessorOptions exec = HostOptions::execProcessor(loaded->config.processors[1]);
    QCOMPARE(exec.command, (QStringList{"/bin/echo", "hi"}));
    QCOMPARE(exec.timeoutMs, 900);
}

QTEST_GUILESS_MAIN(TestHostOptions)
#include "tst_hostoptions.moc"
