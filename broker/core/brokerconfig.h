// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "engineoptions.h"
#include "errorrecord.h"
#include "httpoptions.h"
#include "redisoptions.h"
#include "storageoptions.h"

#include <QString>
#include <QStringList>

#include <map>
#include <utility>

namespace Broker {

// Every setting of message_broker.yaml, with the defaults a fresh install runs on. Units are in
// the names. config/message_broker.yaml documents each key. A setting that a component's option
// struct also has takes its default from that struct: each default is written once. The mapping
// onto the component options is app/runtime/hostoptions.cpp.
struct BrokerConfig
{
    struct Core
    {
        QString name = QStringLiteral("brokerdesk");
        QString logLevel = QStringLiteral("info"); // debug | info | warning | error (gCore: core.debug, error.log_level)
        // gCore's core.environment (GCORE_ENV): production turns on the strict start-up checks.
        QString environment = QStringLiteral("development"); // development | testing | staging | production
        bool production() const { return environment == u"production"; }
    } core;

    struct Redis
    {
        QString host = Broker::Redis::ConnectionOptions{}.host;
        int port = Broker::Redis::ConnectionOptions{}.port;
        QString username;       // VALKEY_USERNAME; Redis 6+ ACL user (empty: "default"); never logged
        QString password;       // VALKEY_AUTH; never logged
        int database = Broker::Redis::ConnectionOptions{}.database;
        bool tls = Broker::Redis::ConnectionOptions{}.tls; // VALKEY_TLS
        QString tlsCaFile;      // PEM CAs for the server's certificate; empty: the system's store
        QString tlsCertFile;    // PEM client certificate (mutual TLS), with tlsKeyFile
        QString tlsKeyFile;     // its unencrypted PEM private key
        QString tlsServerName;  // SNI and the name the certificate must carry; empty: host
        QString keyPrefix = QString(Broker::Redis::DefaultKeyPrefix);
        // A Redis/Valkey Cluster: the slot map is read from `nodes` (seeds, "host:port"), or from
        // host:port when `nodes` is empty. `nodes` not empty implies a cluster.
        bool cluster = false;
        QStringList nodes;
        bool isCluster() const { return cluster || !nodes.isEmpty(); }
        // Changes are answered only once this many replicas have them (WAIT), else 503.
        int waitReplicas = Broker::Redis::ReplicaWait{}.replicas;
        int waitTimeoutMs = Broker::Redis::ReplicaWait{}.timeoutMs;
        int poolSize = Broker::Redis::PoolLimits{}.size;
        int connectTimeoutMs = Broker::Redis::ConnectionOptions{}.connectTimeoutMs;
        int commandTimeoutMs = Broker::Redis::ConnectionOptions{}.commandTimeoutMs;
        // how long a command waits for a connection while none is up
        int poolWaitTimeoutMs = Broker::Redis::PoolLimits{}.waitTimeoutMs;
        int breakerFailures = CircuitBreakerOptions{}.failureThreshold; // consecutive failures that open the breaker
        int breakerOpenSeconds = int(CircuitBreakerOptions{}.openMs / 1000); // the longest pause before a probe
        int breakerFirstProbeMs = int(CircuitBreakerOptions{}.firstProbeMs); // the first pause; doubles up to the above
        bool spool = true;             // take publishes into a local journal while Redis is out of reach
        QString spoolPath;             // empty: "redis-spool" next to the users file
        qint64 spoolMaxMessages = SpoolLimits{}.maxMessages; // beyond: publishes answered 503; 0: no bound
        qint64 spoolMaxBytes = SpoolLimits{}.maxBytes;       // stored size of the spooled messages; 0: no bound
    };
    struct Journal
    {
        bool enabled = false;
        QString path;           // empty: next to the users file
        FsyncPolicy fsync = DefaultFsyncPolicy; // always | everysec | no
    };
    struct Storage
    {
        StorageBackend backend = StorageBackend::Memory; // memory | redis
        Redis redis;
        Journal journal;
    } storage;

    struct RateLimit
    {
        bool enabled = Rest::RestOptions{}.rateLimitEnabled; // per API key
        int requestsPerMinute = Rest::RestOptions{}.requestsPerMinute;
        int burst = Rest::RestOptions{}.burst; // requests allowed at once above the steady rate
        int authFailuresPerMinute = Rest::AuthThrottleOptions{}.failuresPerMinute; // per client address, always on
        // failed authentications: one summary record per interval
        int authLogIntervalSeconds = Rest::AuthThrottleOptions{}.logIntervalMs / 1000;
    };
    struct Limits
    {
        qint64 maxBodyBytes = Rest::HttpLimits{}.maxBodyBytes;
        qint64 maxMessageBytes = EngineOptions{}.maxMessageBytes;
        int maxBatch = EngineOptions{}.maxBatch;
        int maxJsonDepth = Rest::RestOptions{}.maxJsonDepth;
        int maxHeaderBytes = Rest::HttpLimits{}.maxHeaderBytes;
        int maxHeaderFields = Rest::HttpLimits{}.maxHeaderFields;
        int idleTimeoutSeconds = Rest::GuardOptions{}.idleTimeoutMs / 1000;
        int requestTimeoutSeconds = Rest::GuardOptions{}.requestTimeoutMs / 1000;
        // a new connection's first head; any head from its first byte
        int headTimeoutSeconds = Rest::GuardOptions{}.headTimeoutMs / 1000;
        int maxConnections = Rest::GuardOptions{}.maxConnections;
        int maxConnectionsPerAddress = Rest::GuardOptions{}.maxConnectionsPerAddress; // per client address (IPv6: per /64)
        int maxConnectionsPerLoopbackAddress = Rest::GuardOptions{}.maxConnectionsPerLoopbackAddress;
        // unsent responses beyond which a connection is not read
        qint64 maxPendingOutputBytes = Rest::GuardOptions{}.maxPendingOutputBytes;
        // unsent output above the bound that long: the connection is cut
        int outputDrainTimeoutSeconds = Rest::GuardOptions{}.outputDrainTimeoutMs / 1000;
        int maxWaitSeconds = int(EngineOptions{}.maxWaitMs / 1000);
    };
    struct Api
    {
        QString bind = QStringLiteral("127.0.0.1");
        int port = 8080;
        // Production refuses a plain-HTTP listener on another address than loopback unless this
        // says that only a TLS-terminating proxy can reach it.
        bool plaintextBehindProxy = false;
        Rest::TlsOptions tls;   // api.tls; relative file names start at the config file's folder
        QStringList corsOrigins;
        RateLimit rateLimit;
        Limits limits;
        Rest::EventStreamOptions events; // api.events
    } api;

    struct Queues
    {
        QString queuePrefix; // after the Redis key prefix in every key (gCore's file: "mb:queue:")
        qint64 maxQueueSize = QueueDefaults{}.maxSize;
        qint64 messageTtlSeconds = QueueDefaults{}.ttlSeconds;
        qint64 visibilityTimeoutSeconds = QueueDefaults{}.visibilityTimeoutSeconds;
        int maxDeliveries = QueueDefaults{}.maxDeliveries;
        QString defaultType = QueueDefaults{}.type; // of queues created without one (gCore: use_streams)
        int eventLogSize = EngineOptions{}.eventLogPerQueue; // events kept per queue
        int recentEvents = EngineOptions{}.recentEvents;     // events kept over all queues (GET /events' history)
    } queues;

    struct Security
    {
        QString usersFile = QStringLiteral("users.yaml"); // relative to the config file
        std::map<QString, QStringList> roles;              // custom roles: name -> permission patterns
    } security;

    struct Errors
    {
        int maxRecords = DefaultErrorRecords;
        QList<Severity> notifyOn = severitiesFrom(DefaultNotifySeverity); // notify_severity (and above) or gCore's notify_on
        QString webhookUrl;      // each notification POSTed there as JSON (http or https)
        QString webhookSecret;   // set: an X-BrokerDesk-Signature header (HMAC-SHA256 of the body); never logged
        int webhookTimeoutSeconds = 5;
        int webhookMaxAttempts = 5; // then the notification is given up (counted)
        bool logToFile = false;  // gCore: the log also goes to logFile, rotated at maxLogBytes
        QString logFile = QStringLiteral("message_broker.log"); // relative to the config file
        qint64 maxLogBytes = 10 * 1024 * 1024;
    } errors;

    // The processors: list: in-process consumers that hand each message of a queue to a webhook
    // or a command (docs/engine.md, "Processors from the configuration").
    struct Processor
    {
        QString name;           // optional, shown in its status and the log
        QString queue;
        QString type;           // webhook | exec
        QString url;            // webhook: http or https
        QStringList command;    // exec: argv, no shell
        int concurrency = ProcessorDefaults{}.concurrency;
        int timeoutMs = ProcessorDefaults{}.timeoutMs;
        QList<std::pair<QString, QString>> headers; // webhook, in file order; values never logged
        QString secret;         // webhook: HMAC-SHA256 signature header; never logged
    };
    QList<Processor> processors;
};

} // namespace Broker
