// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QLatin1StringView>
#include <QString>

// The Redis store's option structs (and those of the parts it is made of) as plain values, in
// core so that BrokerConfig can take its defaults from them: each default is written here, once.

namespace Broker::Redis {

// Where a Redis server is, how to reach it and how long to wait for it. Times in milliseconds,
// all > 0.
struct ConnectionOptions
{
    QString host = QStringLiteral("127.0.0.1"); // a name is resolved (asynchronously) when connecting
    int port = 6379;
    // Redis 6+ ACL user: with a username the handshake sends AUTH <username> <password>, without
    // one AUTH <password> (the "default" user). Neither is ever logged or put in errors.
    QString username;
    QString password;         // sent with AUTH when not empty (or when a username is given)
    int database = 0;         // SELECTed when not 0
    int connectTimeoutMs = 2000; // TCP connect, TLS handshake, AUTH, SELECT, firstCommand and PING together
    int commandTimeoutMs = 2000; // from sending a command to its reply

    // TLS (Redis 6+ tls-port). The files are PEM and are read each time a connection opens, so
    // renewed certificates are picked up by the next reconnect. The server's certificate is always
    // verified (chain and name); there is no switch to turn verification off.
    bool tls = false;
    QString tlsCaFile;     // CA certificates that may sign the server's; empty: the system's store
    QString tlsCertFile;   // client certificate for mutual TLS (with tlsKeyFile); empty: none sent
    QString tlsKeyFile;    // its private key, unencrypted PEM (RSA or EC); empty: none
    QString tlsServerName; // SNI and the name the certificate must carry; empty: host

    // Bounds that keep a runaway server or caller from taking the broker's memory:
    qint64 maxReplyBytes = 512LL * 1024 * 1024;  // bytes received and not yet parsed into replies
                                                 // (one reply larger than this drops the connection;
                                                 // Redis's own proto-max-bulk-len is 512 MiB)
    qint64 maxOutputBytes = 256LL * 1024 * 1024; // commands not yet taken by the socket; beyond,
                                                 // new commands fail at once (Unavailable, not sent)

    // Not configuration: set by the store. Sent in the handshake of every connection, before its
    // PING, so on every (re)connect to every node (the script library's FUNCTION LOAD: a node
    // restarted empty has it again before the first call). What it answers is ignored: a refusal
    // (the library there already, FUNCTION unknown or not permitted, OOM) leaves the calls to find
    // their way as they would without it (ScriptRunner).
    QByteArrayList firstCommand;
};

// How many connections a pool keeps and how long a command waits for one (PoolOptions adds the
// reconnect policy).
struct PoolLimits
{
    int size = 4;              // connections kept open (1..256)
    int waitTimeoutMs = 1000;  // how long a command waits for a connection when none is ready; 0: fail at once
    int maxWaitingCommands = 10'000; // commands allowed to wait for a connection; more fail at once
};

// How many replicas must have a write before it counts (Redis WAIT). Redis replicates
// asynchronously: without this, a write acknowledged by a primary that dies before its replicas
// have it is lost in the failover.
struct ReplicaWait
{
    int replicas = 0;     // 0: writes are not waited for
    int timeoutMs = 1000; // WAIT's own timeout; the command's deadline is this plus the command timeout
};

// Every key of a store starts with it.
inline constexpr QLatin1StringView DefaultKeyPrefix{"brokerdesk:"};

} // namespace Broker::Redis

namespace Broker {

// See CircuitBreaker.
struct CircuitBreakerOptions
{
    int failureThreshold = 5; // consecutive failures that open the breaker (>= 1)
    qint64 openMs = 30'000;   // the longest pause before a probe is let through
    qint64 firstProbeMs = 1000; // the first pause after opening (capped by openMs); <= 0: openMs
};

// See PublishSpool: how much it takes while Redis is out of reach.
struct SpoolLimits
{
    qint64 maxMessages = 100'000;
    qint64 maxBytes = 64 * 1024 * 1024; // the messages as stored, so memory is bounded as well
};

} // namespace Broker
