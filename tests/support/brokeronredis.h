// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Several brokers in one process, each with a Redis store of its own on a shared redis-server or
// cluster: what several brokerd processes on one backend are, without the HTTP layer.

#include "storage/redisstore.h"

#include "engine/messagebroker.h"
#include "engine/queuetyperegistry.h"

#include "rediscluster.h"

namespace Broker::Testing {

struct BrokerOnRedis
{
    BrokerOnRedis(const RedisStoreOptions &options, QueueTypeRegistry &types, const Clock &clock,
                  EngineOptions engine = {})
        : store(options, types, clock), broker(store, types, clock, engine)
    {
        store.start();
    }
    RedisStore store;
    MessageBroker broker;
};

// Engine options with the reaper out of the way (a minute between runs): what answers a long
// poll in time is then a wake-up, never a reaper run.
inline EngineOptions withoutReaper()
{
    EngineOptions options;
    options.maintenanceIntervalMs = 60'000;
    return options;
}

// A store on `cluster` (its nodes as seeds) for tests that kill nodes: short deadlines, quick
// reconnects, and a breaker that stays closed (the failure is the subject, not the breaker).
inline RedisStoreOptions clusterStoreOptions(const RedisCluster &cluster, int poolSize)
{
    RedisStoreOptions options;
    options.cluster.emplace();
    for (const quint16 port : cluster.ports())
        options.cluster->seeds.append(Redis::NodeAddress{QStringLiteral("127.0.0.1"), port});
    options.connection.commandTimeoutMs = 1'000;
    options.connection.connectTimeoutMs = 500;
    options.pool.size = poolSize;
    options.pool.reconnect = RetryPolicy{20, 2.0, 200, 0};
    options.breaker.failureThreshold = 1000;
    return options;
}

} // namespace Broker::Testing
