// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QLatin1StringView>
#include <QString>

// The Redis store's option structs (and those of the parts it is made of) as plain values, in
// core so that BrokerConfig can take its defaults from them: each default is written here, once.

namespace Broker::Redis {

// Where a Redis server is and how long to wait for it. Times in milliseconds, all > 0.
struct ConnectionOptions
{
    QString host = QStringLiteral("127.0.0.1"); // a name is resolved (blocking) when connecting
    int port = 6379;
    QString password;         // sent with AUTH when not empty; never logged or put in errors
    int database = 0;         // SELECTed when not 0
    int connectTimeoutMs = 2000; // TCP connect, AUTH and SELECT together
    int commandTimeoutMs = 2000; // from sending a command to its reply
};

// How many connections a pool keeps and how long a command waits for one (PoolOptions adds the
// reconnect policy).
struct PoolLimits
{
    int size = 4;              // connections kept open (1..256)
    int waitTimeoutMs = 1000;  // how long a command waits for a connection when none is ready; 0: fail at once
    int maxWaitingCommands = 10'000; // commands allowed to wait for a connection; more fail at once
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
