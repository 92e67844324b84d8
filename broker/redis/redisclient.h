// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "redisconnection.h"

#include <QByteArrayView>

namespace Broker::Redis {

// Where the Redis store's commands go: the connection pool of one server (ConnectionPool) or
// the router of a Redis/Valkey Cluster (ClusterRouter). Used from the thread that owns it;
// every callback is called exactly once there (destroying the client drops those still
// waiting, without calling them), as RedisConnection's are.
class RedisClient
{
public:
    virtual ~RedisClient() = default;

    virtual void start() = 0;
    // Closes every connection; waiting commands fail with Unavailable.
    virtual void stop() = 0;

    // Sends `args`. `key` is the command's first key: on a cluster it names the slot and so the
    // node; on one server, commands with the same key share a connection while it stays up, so
    // that they run in the order they were sent. Empty: any node, any connection.
    // `timeoutMs` <= 0: the connection's command timeout.
    virtual void command(const QByteArrayList &args, CommandCallback done, QByteArrayView key = {},
                         int timeoutMs = 0) = 0;

    virtual int size() const = 0;       // connections kept open, on all nodes
    virtual int readyCount() const = 0; // of those, ready now
    // Commands sent or waiting whose outcome is not known yet.
    virtual int commandsInFlight() const = 0;
    virtual qint64 reconnects() const = 0;
    virtual QString lastError() const = 0; // why a connection was last lost; safe to show
    virtual int commandTimeoutMs() const = 0; // a command's deadline when it names none
};

} // namespace Broker::Redis
