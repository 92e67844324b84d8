// SPDX-License-Identifier: GPL-3.0-or-later
#include "hostoptions.h"

#include "engine/execprocessor.h"
#include "engine/webhookprocessor.h"
#include "errors/webhooksender.h"
#include "storage/journaledstore.h"
#include "storage/redisstore.h"

#include <QDir>
#include <QFileInfo>

namespace Broker::HostOptions {

QString configFolder(const QString &configFile)
{
    return configFile.isEmpty() ? QDir::currentPath() : QFileInfo(configFile).absolutePath();
}

EngineOptions engine(const BrokerConfig &config)
{
    EngineOptions options;
    options.queueDefaults.type = config.queues.defaultType;
    options.queueDefaults.maxSize = config.queues.maxQueueSize;
    options.queueDefaults.ttlSeconds = config.queues.messageTtlSeconds;
    options.queueDefaults.visibilityTimeoutSeconds = config.queues.visibilityTimeoutSeconds;
    options.queueDefaults.maxDeliveries = config.queues.maxDeliveries;
    options.maxMessageBytes = config.api.limits.maxMessageBytes;
    options.maxBatch = config.api.limits.maxBatch;
    options.maxWaitMs = qint64(config.api.limits.maxWaitSeconds) * 1000;
    options.eventLogPerQueue = config.queues.eventLogSize;
    options.recentEvents = config.queues.recentEvents;
    return options;
}

namespace {

// A file the configuration names, relative to its folder (empty `configDir`: the current one).
QString fromConfigDir(const QString &file, const QString &configDir)
{
    return file.isEmpty() ? file : QDir(configDir.isEmpty() ? QDir::currentPath() : configDir).absoluteFilePath(file);
}

} // namespace

Rest::TlsOptions tls(const BrokerConfig &config, const QString &configDir)
{
    Rest::TlsOptions options = config.api.tls;
    for (QString *file : {&options.certFile, &options.keyFile, &options.clientCaFile})
        *file = fromConfigDir(*file, configDir);
    return options;
}

Rest::RestOptions rest(const BrokerConfig &config, const QString &configDir)
{
    Rest::RestOptions options;
    options.tls = tls(config, configDir);
    options.plaintextBehindProxy = config.api.plaintextBehindProxy;
    options.events = config.api.events;
    const BrokerConfig::Limits &limits = config.api.limits;
    options.guard.limits.maxBodyBytes = limits.maxBodyBytes;
    options.guard.limits.maxHeaderBytes = limits.maxHeaderBytes;
    options.guard.limits.maxHeaderFields = limits.maxHeaderFields;
    options.guard.idleTimeoutMs = limits.idleTimeoutSeconds * 1000;
    options.guard.requestTimeoutMs = limits.requestTimeoutSeconds * 1000;
    options.guard.headTimeoutMs = limits.headTimeoutSeconds * 1000;
    options.guard.maxConnections = limits.maxConnections;
    options.guard.maxConnectionsPerAddress = limits.maxConnectionsPerAddress;
    options.guard.maxConnectionsPerLoopbackAddress = limits.maxConnectionsPerLoopbackAddress;
    options.guard.maxPendingOutputBytes = limits.maxPendingOutputBytes;
    options.guard.outputDrainTimeoutMs = limits.outputDrainTimeoutSeconds * 1000;
    options.maxJsonDepth = limits.maxJsonDepth;
    options.corsOrigins = config.api.corsOrigins;
    options.rateLimitEnabled = config.api.rateLimit.enabled;
    options.requestsPerMinute = config.api.rateLimit.requestsPerMinute;
    options.burst = config.api.rateLimit.burst;
    options.authFailuresPerMinute = config.api.rateLimit.authFailuresPerMinute;
    options.authLogIntervalMs = config.api.rateLimit.authLogIntervalSeconds * 1000;
    options.durability = durability(config);
    return options;
}

RedisStoreOptions redisStore(const BrokerConfig &config, const QString &configDir)
{
    const BrokerConfig::Redis &redis = config.storage.redis;
    RedisStoreOptions options;
    options.connection.host = redis.host;
    options.connection.port = redis.port;
    options.connection.username = redis.username;
    options.connection.password = redis.password;
    options.connection.tls = redis.tls;
    options.connection.tlsCaFile = fromConfigDir(redis.tlsCaFile, configDir);
    options.connection.tlsCertFile = fromConfigDir(redis.tlsCertFile, configDir);
    options.connection.tlsKeyFile = fromConfigDir(redis.tlsKeyFile, configDir);
    options.connection.tlsServerName = redis.tlsServerName;
    options.connection.database = redis.database;
    options.connection.connectTimeoutMs = redis.connectTimeoutMs;
    options.connection.commandTimeoutMs = redis.commandTimeoutMs;
    options.pool.size = redis.poolSize;
    options.pool.waitTimeoutMs = redis.poolWaitTimeoutMs;
    options.replicaWait = Redis::ReplicaWait{redis.waitReplicas, redis.waitTimeoutMs};
    if (redis.isCluster()) {
        options.cluster.emplace();
        for (const QString &node : redis.nodes)
            options.cluster->seeds.append(Redis::NodeAddress::parse(node.toUtf8()));
        if (redis.nodes.isEmpty())
            options.cluster->seeds.append(Redis::NodeAddress{redis.host, redis.port});
    }
    // gCore's queue_prefix follows the key prefix: with gCore's file, keys start "mb:queue:".
    options.keyPrefix = redis.keyPrefix + config.queues.queuePrefix;
    options.breaker.failureThreshold = redis.breakerFailures;
    options.breaker.openMs = qint64(redis.breakerOpenSeconds) * 1000;
    options.breaker.firstProbeMs = redis.breakerFirstProbeMs;
    return options;
}

WebhookOptions notificationWebhook(const BrokerConfig &config)
{
    WebhookOptions options;
    options.url = QUrl(config.errors.webhookUrl);
    options.secret = config.errors.webhookSecret.toUtf8();
    options.timeoutMs = config.errors.webhookTimeoutSeconds * 1000;
    options.maxAttempts = config.errors.webhookMaxAttempts;
    return options;
}

WebhookProcessorOptions webhookProcessor(const BrokerConfig::Processor &processor)
{
    WebhookProcessorOptions options;
    options.url = QUrl(processor.url);
    for (const auto &[name, value] : processor.headers)
        options.headers.append({name.toLatin1(), value.toUtf8()});
    options.secret = processor.secret.toUtf8();
    options.timeoutMs = processor.timeoutMs;
    return options;
}

ExecProcessorOptions execProcessor(const BrokerConfig::Processor &processor)
{
    ExecProcessorOptions options;
    options.command = processor.command;
    options.timeoutMs = processor.timeoutMs;
    return options;
}

SpoolLimits spoolLimits(const BrokerConfig &config)
{
    return SpoolLimits{config.storage.redis.spoolMaxMessages, config.storage.redis.spoolMaxBytes};
}

QString spoolPath(const BrokerConfig &config, const QString &usersPath)
{
    const QString &path = config.storage.redis.spoolPath;
    return QFileInfo(usersPath).absoluteDir().absoluteFilePath(path.isEmpty() ? QStringLiteral("redis-spool") : path);
}

JournaledStore::Options journal(const BrokerConfig &config, const QString &usersPath)
{
    const BrokerConfig::Journal &journal = config.storage.journal;
    JournaledStore::Options options;
    options.path = journal.path.isEmpty() ? QFileInfo(usersPath).absoluteDir().filePath(QStringLiteral("journal"))
                                          : QFileInfo(journal.path).absoluteFilePath();
    options.fsync = journal.fsync;
    return options;
}

Durability durability(const BrokerConfig &config)
{
    if (!config.storage.journal.enabled)
        return Durability::None;
    return journalDurability(config.storage.journal.fsync);
}

} // namespace Broker::HostOptions
