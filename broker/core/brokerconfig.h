// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "engineoptions.h"

#include <QString>
#include <QStringList>

#include <map>

namespace Broker {

// Every setting of message_broker.yaml, with the defaults a fresh install runs on. Units are in
// the names. config/message_broker.yaml documents each key.
struct BrokerConfig
{
    struct Core
    {
        QString name = QStringLiteral("brokerdesk");
        QString logLevel = QStringLiteral("info"); // debug | info | warning | error
    } core;

    struct Redis
    {
        QString host = QStringLiteral("127.0.0.1");
        int port = 6379;
        QString password;       // VALKEY_AUTH; never logged
        int database = 0;
        bool tls = false;
        QString keyPrefix = QStringLiteral("brokerdesk:");
        int poolSize = 4;
        int connectTimeoutMs = 2000;
        int commandTimeoutMs = 2000;
        int poolWaitTimeoutMs = 1000;  // how long a command waits for a connection while none is up
        int breakerFailures = 5;       // consecutive failures to reach Redis that open the breaker
        int breakerOpenSeconds = 30;   // the longest pause of the open breaker before a probe
        int breakerFirstProbeMs = 1000; // the first pause; doubles after each failed probe up to the above
        bool spool = true;             // take publishes into a local journal while Redis is out of reach
        QString spoolPath;             // empty: "redis-spool" next to the users file
        qint64 spoolMaxMessages = 100'000;       // beyond: publishes answered 503; 0: no bound
        qint64 spoolMaxBytes = 64 * 1024 * 1024; // stored size of the spooled messages; 0: no bound
    };
    struct Journal
    {
        bool enabled = false;
        QString path;           // empty: next to the users file
        QString fsync = QStringLiteral("everysec"); // always | everysec | no
    };
    struct Storage
    {
        QString backend = QStringLiteral("memory"); // memory | redis
        Redis redis;
        Journal journal;
    } storage;

    struct RateLimit
    {
        bool enabled = false;          // per API key
        int requestsPerMinute = 600;
        int burst = 100;               // requests allowed at once above the steady rate
        int authFailuresPerMinute = 30; // per client address, always on
        int authLogIntervalSeconds = 10; // failed authentications: one summary record per interval
    };
    struct Limits
    {
        qint64 maxBodyBytes = 1024 * 1024;
        qint64 maxMessageBytes = 256 * 1024;
        int maxBatch = 1000;
        int maxJsonDepth = 64;
        int maxHeaderBytes = 16 * 1024;
        int maxHeaderFields = 100;
        int idleTimeoutSeconds = 60;
        int requestTimeoutSeconds = 30;
        int headTimeoutSeconds = 10;          // a new connection's first head; any head from its first byte
        int maxConnections = 1000;
        int maxConnectionsPerAddress = 64;    // per client address (IPv6: per /64)
        int maxConnectionsPerLoopbackAddress = 256;
        qint64 maxPendingOutputBytes = 512 * 1024; // unsent responses beyond which a connection is not read
        int outputDrainTimeoutSeconds = 10;   // unsent output above the bound that long: the connection is cut
        int maxWaitSeconds = 20;
    };
    struct Api
    {
        QString bind = QStringLiteral("127.0.0.1");
        int port = 8080;
        QStringList corsOrigins;
        RateLimit rateLimit;
        Limits limits;
    } api;

    struct Queues
    {
        QString queuePrefix = QStringLiteral("queue:"); // key prefix of queues in Redis (gCore)
        qint64 maxQueueSize = 10000;
        qint64 messageTtlSeconds = 86400;
        qint64 visibilityTimeoutSeconds = 30;
        int maxDeliveries = 5;
        int eventLogSize = 1000;       // events kept per queue
    } queues;

    struct Security
    {
        QString usersFile = QStringLiteral("users.yaml"); // relative to the config file
        std::map<QString, QStringList> roles;              // custom roles: name -> permission patterns
    } security;

    struct Errors
    {
        int maxRecords = 1000;
        QString notifySeverity = QStringLiteral("error"); // info | warning | error | critical
        QString webhookUrl;
    } errors;

    // The engine's share of the settings.
    EngineOptions engineOptions() const;
};

} // namespace Broker
