// SPDX-License-Identifier: GPL-3.0-or-later
#include "configloader.h"

#include "yamlsection.h"

#include <QFile>

#include <limits>

namespace Broker {

namespace {

constexpr qint64 MaxI64 = std::numeric_limits<qint64>::max();
constexpr int MaxInt = std::numeric_limits<int>::max();

// A choice spelled in the file as `nameOf` spells it, read into its enum; another spelling is
// refused by YamlSection::choice, with its words.
template<typename Enum, typename NameOf>
void enumChoice(YamlSection &section, const char *key, Enum &value, std::initializer_list<Enum> values, NameOf nameOf)
{
    QStringList names;
    for (const Enum each : values)
        names.append(QString(nameOf(each)));
    QString text = nameOf(value);
    section.choice(key, text, names);
    for (const Enum each : values) {
        if (QString(nameOf(each)) == text)
            value = each;
    }
}

void readCore(YamlSection section, BrokerConfig::Core &core)
{
    section.string("name", core.name);
    section.choice("log_level", core.logLevel,
                   {QStringLiteral("debug"), QStringLiteral("info"), QStringLiteral("warning"), QStringLiteral("error")});
    section.finish();
}

void readStorage(YamlSection section, BrokerConfig::Storage &storage)
{
    enumChoice(section, "backend", storage.backend, {StorageBackend::Memory, StorageBackend::Redis}, storageBackendName);

    YamlSection redis = section.section("redis");
    redis.string("host", storage.redis.host);
    redis.integer("port", storage.redis.port, 1, 65535);
    redis.string("password", storage.redis.password);
    redis.integer("database", storage.redis.database, 0, 15);
    redis.boolean("tls", storage.redis.tls);
    redis.string("key_prefix", storage.redis.keyPrefix);
    redis.integer("pool_size", storage.redis.poolSize, 1, 256);
    redis.integer("connect_timeout_ms", storage.redis.connectTimeoutMs, 1, 600'000);
    redis.integer("command_timeout_ms", storage.redis.commandTimeoutMs, 1, 600'000);
    redis.integer("pool_wait_timeout_ms", storage.redis.poolWaitTimeoutMs, 0, 600'000);
    redis.integer("breaker_failures", storage.redis.breakerFailures, 1, 1000);
    redis.integer("breaker_open_seconds", storage.redis.breakerOpenSeconds, 1, 3600);
    redis.integer("breaker_first_probe_ms", storage.redis.breakerFirstProbeMs, 1, 3'600'000);
    redis.boolean("spool", storage.redis.spool);
    redis.string("spool_path", storage.redis.spoolPath);
    redis.integer("spool_max_messages", storage.redis.spoolMaxMessages, 0, 1'000'000'000);
    redis.integer("spool_max_bytes", storage.redis.spoolMaxBytes, 0, qint64(1) << 40);
    redis.finish();

    YamlSection memory = section.section("memory");
    YamlSection journal = memory.section("journal");
    journal.boolean("enabled", storage.journal.enabled);
    journal.string("path", storage.journal.path);
    enumChoice(journal, "fsync", storage.journal.fsync,
               {FsyncPolicy::Always, FsyncPolicy::EverySecond, FsyncPolicy::Never}, fsyncPolicyName);
    journal.finish();
    memory.finish();
    section.finish();
}

void readApi(YamlSection section, BrokerConfig::Api &api)
{
    section.string("bind", api.bind);
    section.integer("port", api.port, 0, 65535);
    section.stringList("cors_origins", api.corsOrigins);

    YamlSection rate = section.section("rate_limit");
    rate.boolean("enabled", api.rateLimit.enabled);
    rate.integer("requests_per_minute", api.rateLimit.requestsPerMinute, 1, 10'000'000);
    rate.integer("burst", api.rateLimit.burst, 1, 10'000'000);
    rate.integer("auth_failures_per_minute", api.rateLimit.authFailuresPerMinute, 1, 1'000'000);
    rate.integer("auth_log_interval_seconds", api.rateLimit.authLogIntervalSeconds, 1, 3600);
    rate.finish();

    YamlSection limits = section.section("limits");
    BrokerConfig::Limits &l = api.limits;
    limits.integer("max_body_bytes", l.maxBodyBytes, 1024, 1024LL * 1024 * 1024);
    limits.integer("max_message_bytes", l.maxMessageBytes, 16, 64LL * 1024 * 1024);
    limits.integer("max_batch", l.maxBatch, 1, 100'000);
    limits.integer("max_json_depth", l.maxJsonDepth, 2, 1000);
    limits.integer("max_header_bytes", l.maxHeaderBytes, 1024, 1024 * 1024);
    limits.integer("max_header_fields", l.maxHeaderFields, 8, 1000);
    limits.integer("idle_timeout_seconds", l.idleTimeoutSeconds, 1, 3600);
    limits.integer("request_timeout_seconds", l.requestTimeoutSeconds, 1, 3600);
    limits.integer("head_timeout_seconds", l.headTimeoutSeconds, 1, 3600);
    limits.integer("max_connections", l.maxConnections, 1, 1'000'000);
    limits.integer("max_connections_per_address", l.maxConnectionsPerAddress, 1, 1'000'000);
    limits.integer("max_connections_per_loopback_address", l.maxConnectionsPerLoopbackAddress, 1, 1'000'000);
    limits.integer("max_pending_output_bytes", l.maxPendingOutputBytes, 16 * 1024, 1024LL * 1024 * 1024);
    limits.integer("output_drain_timeout_seconds", l.outputDrainTimeoutSeconds, 1, 3600);
    limits.integer("max_wait_seconds", l.maxWaitSeconds, 0, 20);
    limits.finish();
    section.finish();
}

void readQueues(YamlSection section, BrokerConfig::Queues &queues)
{
    section.string("queue_prefix", queues.queuePrefix);
    section.integer("max_queue_size", queues.maxQueueSize, 1, QueueLimits::MaxSize);
    section.integer("message_ttl", queues.messageTtlSeconds, 1, QueueLimits::MaxTtlSeconds);
    section.integer("visibility_timeout", queues.visibilityTimeoutSeconds, 1, QueueLimits::MaxVisibilityTimeoutSeconds);
    section.integer("max_deliveries", queues.maxDeliveries, 1, QueueLimits::MaxDeliveries);
    section.integer("event_log_size", queues.eventLogSize, 0, 1'000'000);
    section.finish();
}

void readSecurity(YamlContext &context, YamlSection section, BrokerConfig::Security &security)
{
    section.string("users_file", security.usersFile);
    YamlSection roles = section.section("roles");
    for (const QString &name : roles.keys()) {
        YamlSection role = roles.section(name.toStdString());
        QStringList permissions;
        if (!role.has("permissions"))
            context.fail(role.mark(), QStringLiteral("role '%1' needs a 'permissions' list").arg(name));
        role.stringList("permissions", permissions);
        role.finish();
        security.roles[name] = permissions;
    }
    roles.finish();
    section.finish();
}

void readErrors(YamlSection section, BrokerConfig::Errors &errors)
{
    section.integer("max_records", errors.maxRecords, 1, 1'000'000);
    enumChoice(section, "notify_severity", errors.notifySeverity,
               {Severity::Info, Severity::Warning, Severity::Error, Severity::Critical},
               [](Severity severity) { return QString::fromLatin1(severityName(severity)); });
    section.string("webhook_url", errors.webhookUrl);
    section.finish();
}

} // namespace

Result<LoadedConfig> ConfigLoader::loadFile(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return Error{ErrorCode::InvalidArgument, QStringLiteral("%1: cannot read: %2").arg(path, file.errorString())};
    return loadText(file.readAll(), path);
}

Result<LoadedConfig> ConfigLoader::loadText(const QByteArray &text, const QString &fileName)
{
    YamlContext context(fileName);
    const YAML::Node root = context.parse(text);
    LoadedConfig loaded;
    if (!context.failed()) {
        YamlSection top(context, root, QString());
        BrokerConfig &c = loaded.config;
        readCore(top.section("core"), c.core);
        readStorage(top.section("storage"), c.storage);
        readApi(top.section("api"), c.api);
        readQueues(top.section("message_broker"), c.queues);
        readSecurity(context, top.section("security"), c.security);
        readErrors(top.section("error"), c.errors);
        top.finish();
    }
    if (context.failed())
        return Error{ErrorCode::InvalidArgument, context.error()};
    loaded.warnings = context.warnings();
    return loaded;
}

Result<void> ConfigLoader::applyEnvironment(BrokerConfig &config, const QProcessEnvironment &environment)
{
    const auto integer = [&](const char *name, qint64 min, qint64 max, auto &out) -> Result<void> {
        const QString variable = QString::fromLatin1(name);
        if (!environment.contains(variable))
            return {};
        bool ok = false;
        const qint64 value = environment.value(variable).trimmed().toLongLong(&ok);
        if (!ok || value < min || value > max) {
            return Error{ErrorCode::InvalidArgument, QStringLiteral("environment variable %1: expected a whole number from %2 to %3")
                                                         .arg(variable)
                                                         .arg(min)
                                                         .arg(max)};
        }
        out = static_cast<std::remove_reference_t<decltype(out)>>(value);
        return {};
    };

    for (const Result<void> &step :
         {integer("VALKEY_PORT", 1, 65535, config.storage.redis.port),
          integer("API_PORT", 0, 65535, config.api.port),
          integer("MAX_QUEUE_SIZE", 1, QueueLimits::MaxSize, config.queues.maxQueueSize),
          integer("MESSAGE_TTL", 1, QueueLimits::MaxTtlSeconds, config.queues.messageTtlSeconds)}) {
        if (!step)
            return step;
    }
    if (environment.contains(QStringLiteral("VALKEY_HOST")))
        config.storage.redis.host = environment.value(QStringLiteral("VALKEY_HOST")).trimmed();
    if (environment.contains(QStringLiteral("VALKEY_AUTH")))
        config.storage.redis.password = environment.value(QStringLiteral("VALKEY_AUTH"));
    if (environment.contains(QStringLiteral("VALKEY_TLS"))) {
        const QString value = environment.value(QStringLiteral("VALKEY_TLS")).trimmed().toLower();
        if (value == QLatin1StringView("true") || value == QLatin1StringView("1") || value == QLatin1StringView("yes"))
            config.storage.redis.tls = true;
        else if (value == QLatin1StringView("false") || value == QLatin1StringView("0") || value == QLatin1StringView("no"))
            config.storage.redis.tls = false;
        else
            return Error{ErrorCode::InvalidArgument, QStringLiteral("environment variable VALKEY_TLS: expected true or false")};
    }
    if (environment.contains(QStringLiteral("CORS_ORIGINS"))) {
        QStringList origins;
        for (const QString &origin : environment.value(QStringLiteral("CORS_ORIGINS")).split(QLatin1Char(','), Qt::SkipEmptyParts))
            origins.append(origin.trimmed());
        config.api.corsOrigins = origins;
    }
    return {};
}

} // namespace Broker
