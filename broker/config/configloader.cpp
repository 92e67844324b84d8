// SPDX-License-Identifier: GPL-3.0-or-later
#include "configloader.h"

#include "gcorenames.h"
#include "processorsconfig.h"
#include "yamlsection.h"

#include <QFile>
#include <QUrl>

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

const QStringList LogLevels{QStringLiteral("debug"), QStringLiteral("info"), QStringLiteral("warning"),
                            QStringLiteral("error")};
// gCore's core.environment (GCORE_ENV).
const QStringList Environments{QStringLiteral("development"), QStringLiteral("testing"), QStringLiteral("staging"),
                               QStringLiteral("production")};

// A setting named both in gCore's layout and in ours is refused: which one was meant?
void refuseSettingsNamedTwice(YamlContext &context, const YAML::Node &root)
{
    for (const GcoreName &name : GcoreNames) {
        const YAML::Node gcore = nodeAt(root, QString::fromLatin1(name.gcore).split(u'.'));
        if (gcore.IsDefined() && nodeAt(root, QString::fromLatin1(name.ours).split(u'.')).IsDefined()) {
            context.fail(gcore.Mark(), QStringLiteral("'%1' and '%2' are the same setting (gCore's name and "
                                                      "BrokerDesk's): give one of them")
                                           .arg(QLatin1StringView(name.gcore), QLatin1StringView(name.ours)));
            return;
        }
    }
}

void readCore(YamlSection section, BrokerConfig::Core &core)
{
    section.string("name", core.name);
    section.choice("log_level", core.logLevel, LogLevels);
    // gCore: core.debug turns on debug logging; core.environment picks the start-up checks.
    bool debug = false;
    section.boolean("debug", debug);
    if (debug && !section.has("log_level"))
        core.logLevel = QStringLiteral("debug");
    section.choice("environment", core.environment, Environments);
    section.finish();
}

// "host:port" with a port in 1..65535 (a bracketed IPv6 host too), as the cluster reports nodes.
bool validNodeAddress(const QString &text)
{
    const qsizetype colon = text.lastIndexOf(QLatin1Char(':'));
    bool ok = false;
    const int port = colon > 0 ? text.mid(colon + 1).toInt(&ok) : 0;
    return ok && port >= 1 && port <= 65535;
}

// The TLS and ACL keys, spelt the same in both layouts (storage.redis.* and gCore's storage.*).
void readTlsAndUser(YamlSection &section, BrokerConfig::Redis &out)
{
    section.string("username", out.username);
    section.boolean("tls", out.tls);
    section.string("tls_ca_file", out.tlsCaFile);
    section.string("tls_cert_file", out.tlsCertFile);
    section.string("tls_key_file", out.tlsKeyFile);
    section.string("tls_server_name", out.tlsServerName);
}

// gCore's layout names the Redis/Valkey connection directly under storage: host, port, auth, tls,
// prefix, database, timeout (seconds, for connecting and for each command); the TLS files and the
// ACL username sit beside them there too.
void readGcoreStorage(YamlSection &section, const YamlSection &redis, BrokerConfig::Redis &out)
{
    section.string("host", out.host);
    section.integer("port", out.port, 1, 65535);
    section.string("auth", out.password); // null: no password, as in gCore's file
    readTlsAndUser(section, out);
    section.integer("database", out.database, 0, 15);
    // gCore's keys start with its prefix (none by default), then message_broker.queue_prefix.
    if (section.has("host") && !redis.has("key_prefix"))
        out.keyPrefix.clear();
    section.string("prefix", out.keyPrefix);
    double seconds = 0;
    section.number("timeout", seconds, 0.001, 600);
    if (seconds > 0)
        out.connectTimeoutMs = out.commandTimeoutMs = int(seconds * 1000.0);
}

void readStorage(YamlContext &context, YamlSection section, BrokerConfig::Storage &storage, QStringList &notes)
{
    enumChoice(section, "backend", storage.backend, {StorageBackend::Memory, StorageBackend::Redis}, storageBackendName);

    YamlSection redis = section.section("redis");
    redis.string("host", storage.redis.host);
    redis.integer("port", storage.redis.port, 1, 65535);
    redis.string("password", storage.redis.password);
    redis.integer("database", storage.redis.database, 0, 15);
    readTlsAndUser(redis, storage.redis);
    redis.string("key_prefix", storage.redis.keyPrefix);
    redis.boolean("cluster", storage.redis.cluster);
    redis.stringList("nodes", storage.redis.nodes);
    for (const QString &node : std::as_const(storage.redis.nodes))
        if (!validNodeAddress(node))
            context.fail(redis.markOf("nodes"),
                         QStringLiteral("'storage.redis.nodes' must list host:port addresses, not '%1'").arg(node));
    redis.integer("wait_replicas", storage.redis.waitReplicas, 0, 16);
    redis.integer("wait_timeout_ms", storage.redis.waitTimeoutMs, 1, 60'000);
    if (storage.redis.isCluster() && storage.redis.database != 0)
        context.fail(redis.markOf("database"), QStringLiteral("a Redis Cluster has database 0 only"));
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
    readGcoreStorage(section, redis, storage.redis);
    // The files themselves are read when brokerd starts (after the environment's VALKEY_TLS).
    if (storage.redis.tlsCertFile.isEmpty() != storage.redis.tlsKeyFile.isEmpty()) {
        const char *given = storage.redis.tlsCertFile.isEmpty() ? "tls_key_file" : "tls_cert_file";
        const YamlSection &where = redis.has(given) ? redis : section;
        context.fail(where.markOf(given), QStringLiteral("'storage.redis.tls_cert_file' and 'storage.redis.tls_key_file' "
                                                         "go together (mutual TLS): give both or neither"));
    }
    redis.finish();
    // gCore runs on its shared store when its file names one ("full mode"); so do we, and say so.
    if (section.has("host") && !section.has("backend")) {
        storage.backend = StorageBackend::Redis;
        notes.append(QStringLiteral("storage: gCore's layout names a store (storage.host) and no storage.backend: "
                                    "running on Redis/Valkey, as gCore's full mode does"));
    }

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

void readTls(YamlContext &context, YamlSection section, Rest::TlsOptions &tls)
{
    section.boolean("enabled", tls.enabled);
    section.string("cert_file", tls.certFile);
    section.string("key_file", tls.keyFile);
    section.string("client_ca_file", tls.clientCaFile);
    section.choice("min_version", tls.minVersion, {QStringLiteral("1.2"), QStringLiteral("1.3")});
    int handshakeSeconds = tls.handshakeTimeoutMs / 1000;
    section.integer("handshake_timeout_seconds", handshakeSeconds, 1, 300);
    tls.handshakeTimeoutMs = handshakeSeconds * 1000;
    if (tls.enabled && (tls.certFile.isEmpty() || tls.keyFile.isEmpty()))
        context.fail(section.mark(), QStringLiteral("'api.tls' is enabled: it needs 'cert_file' and 'key_file' "
                                                    "(brokerd --make-cert DIR makes a pair)"));
    section.finish();
}

void readEvents(YamlSection section, Rest::EventStreamOptions &events)
{
    section.integer("heartbeat_seconds", events.heartbeatSeconds, 1, 300);
    section.integer("update_interval_ms", events.updateIntervalMs, 50, 60'000);
    section.integer("max_streams_per_user", events.maxStreamsPerUser, 1, 10'000);
    section.integer("max_streams_per_address", events.maxStreamsPerAddress, 1, 10'000);
    qint64 bufferedKiB = events.maxBufferedBytes / 1024;
    section.integer("max_buffered_kib", bufferedKiB, 16, 64 * 1024);
    events.maxBufferedBytes = bufferedKiB * 1024;
    int stallSeconds = events.stallTimeoutMs / 1000;
    section.integer("stall_timeout_seconds", stallSeconds, 1, 3600);
    events.stallTimeoutMs = stallSeconds * 1000;
    section.finish();
}

void readApi(YamlContext &context, YamlSection section, BrokerConfig::Api &api)
{
    section.string("bind", api.bind);
    section.integer("port", api.port, 0, 65535);
    section.boolean("plaintext_behind_proxy", api.plaintextBehindProxy);
    readTls(context, section.section("tls"), api.tls);
    readEvents(section.section("events"), api.events);
    section.stringList("cors_origins", api.corsOrigins);
    // gCore: api.cors {enabled, origins}; disabled means no origin is allowed.
    YamlSection cors = section.section("cors");
    cors.stringList("origins", api.corsOrigins);
    bool corsEnabled = true;
    cors.boolean("enabled", corsEnabled);
    if (!corsEnabled)
        api.corsOrigins.clear();
    cors.finish();

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
    // gCore: api.timeout, in seconds, for a request to arrive.
    double seconds = 0;
    section.number("timeout", seconds, 1, 3600);
    if (seconds > 0)
        l.requestTimeoutSeconds = int(seconds);
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
    section.integer("recent_events", queues.recentEvents, 100, 1'000'000);
    bool streams = false; // gCore: new queues are streams
    section.boolean("use_streams", streams);
    if (streams)
        queues.defaultType = QStringLiteral("stream");
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

void readErrors(YamlContext &context, YamlSection section, BrokerConfig::Errors &errors, BrokerConfig::Core &core)
{
    const QStringList severities{QStringLiteral("info"), QStringLiteral("warning"), QStringLiteral("error"),
                                 QStringLiteral("critical")};
    section.integer("max_records", errors.maxRecords, 1, 1'000'000);
    QString lowest;
    section.choice("notify_severity", lowest, severities);
    if (!lowest.isEmpty())
        errors.notifyOn = severitiesFrom(*severityFromName(lowest));
    // gCore: exactly the severities that notify.
    QStringList named;
    section.stringList("notify_on", named);
    if (section.has("notify_on")) {
        errors.notifyOn.clear();
        for (const QString &name : std::as_const(named)) {
            const std::optional<Severity> severity = severityFromName(name.trimmed().toLower());
            if (!severity) {
                context.fail(section.markOf("notify_on"), QStringLiteral("'error.notify_on' must list severities of %1, not '%2'")
                                                              .arg(severities.join(u", "), name));
                break;
            }
            if (!errors.notifyOn.contains(*severity))
                errors.notifyOn.append(*severity);
        }
    }
    section.string("webhook_url", errors.webhookUrl);
    if (!errors.webhookUrl.isEmpty()) {
        const QUrl url(errors.webhookUrl, QUrl::StrictMode);
        if (!url.isValid() || url.host().isEmpty() || (url.scheme() != u"http" && url.scheme() != u"https"))
            context.fail(section.markOf("webhook_url"), QStringLiteral("'error.webhook_url' must be an http:// or https:// URL"));
    }
    section.string("webhook_secret", errors.webhookSecret);
    section.integer("webhook_timeout_seconds", errors.webhookTimeoutSeconds, 1, 300);
    section.integer("webhook_max_attempts", errors.webhookMaxAttempts, 1, 100);
    // gCore: error.log_level is the log's level (core.log_level in our layout).
    QString level;
    section.choice("log_level", level, LogLevels + QStringList{QStringLiteral("critical")});
    if (!level.isEmpty())
        core.logLevel = level == u"critical" ? QStringLiteral("error") : level;
    section.boolean("log_to_file", errors.logToFile);
    section.string("log_file", errors.logFile);
    section.byteSize("max_log_size", errors.maxLogBytes, 4096, qint64(1) << 40);
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
        refuseSettingsNamedTwice(context, root);
        YamlSection top(context, root, QString());
        BrokerConfig &c = loaded.config;
        readCore(top.section("core"), c.core);
        readStorage(context, top.section("storage"), c.storage, loaded.notes);
        readApi(context, top.section("api"), c.api);
        readQueues(top.section("message_broker"), c.queues);
        readSecurity(context, top.section("security"), c.security);
        readErrors(context, top.section("error"), c.errors, c.core);
        readProcessors(context, top.node("processors"), c.processors);
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

    const auto boolean = [&](const char *name, bool &out) -> Result<void> {
        const QString variable = QString::fromLatin1(name);
        if (!environment.contains(variable))
            return {};
        const QString value = environment.value(variable).trimmed().toLower();
        if (value == u"true" || value == u"1" || value == u"yes")
            out = true;
        else if (value == u"false" || value == u"0" || value == u"no")
            out = false;
        else
            return Error{ErrorCode::InvalidArgument, QStringLiteral("environment variable %1: expected true or false").arg(variable)};
        return {};
    };
    bool streams = config.queues.defaultType == u"stream";
    for (const Result<void> &step :
         {integer("VALKEY_PORT", 1, 65535, config.storage.redis.port),
          integer("API_PORT", 0, 65535, config.api.port),
          integer("MAX_QUEUE_SIZE", 1, QueueLimits::MaxSize, config.queues.maxQueueSize),
          integer("MESSAGE_TTL", 1, QueueLimits::MaxTtlSeconds, config.queues.messageTtlSeconds),
          integer("CONNECTION_POOL_SIZE", 1, 256, config.storage.redis.poolSize),
          boolean("VALKEY_TLS", config.storage.redis.tls), boolean("USE_STREAMS", streams)}) {
        if (!step)
            return step;
    }
    if (environment.contains(QStringLiteral("USE_STREAMS")))
        config.queues.defaultType = streams ? QStringLiteral("stream") : QueueDefaults{}.type;
    if (environment.contains(QStringLiteral("GCORE_ENV"))) {
        const QString name = environment.value(QStringLiteral("GCORE_ENV")).trimmed().toLower();
        if (!Environments.contains(name))
            return Error{ErrorCode::InvalidArgument,
                         QStringLiteral("environment variable GCORE_ENV: expected one of %1").arg(Environments.join(u", "))};
        config.core.environment = name;
    }
    if (environment.contains(QStringLiteral("VALKEY_HOST")))
        config.storage.redis.host = environment.value(QStringLiteral("VALKEY_HOST")).trimmed();
    if (environment.contains(QStringLiteral("VALKEY_AUTH")))
        config.storage.redis.password = environment.value(QStringLiteral("VALKEY_AUTH"));
    if (environment.contains(QStringLiteral("VALKEY_USERNAME")))
        config.storage.redis.username = environment.value(QStringLiteral("VALKEY_USERNAME")).trimmed();
    if (environment.contains(QStringLiteral("CORS_ORIGINS"))) {
        QStringList origins;
        for (const QString &origin : environment.value(QStringLiteral("CORS_ORIGINS")).split(QLatin1Char(','), Qt::SkipEmptyParts))
            origins.append(origin.trimmed());
        config.api.corsOrigins = origins;
    }
    return {};
}

} // namespace Broker
