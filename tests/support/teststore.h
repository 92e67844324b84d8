// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The store a test suite runs against: the memory store, or — when BROKER_TEST_STORE=redis — a
// Redis store on a redis-server this process starts once on a free loopback port and empties
// for every new store (over TLS too with BROKER_TEST_REDIS_TLS=1, see redistls.h), or — with
// BROKER_TEST_STORE=redis-cluster — a Redis store on a 6-node cluster started the same way.
// Suites registered more than once in CMake prove the backends keep one contract.

#include "storage/memorystore.h"
#include "storage/redisstore.h"

#include "eventloop.h"
#include "rediscluster.h"
#include "redisserver.h"
#include "redistls.h"

#include <QCoreApplication>
#include <QElapsedTimer>

#include <memory>

namespace Broker::Testing {

inline bool testingRedisCluster()
{
    return qEnvironmentVariable("BROKER_TEST_STORE") == QLatin1StringView("redis-cluster");
}

inline bool testingRedis()
{
    return qEnvironmentVariable("BROKER_TEST_STORE") == QLatin1StringView("redis") || testingRedisCluster();
}

inline std::unique_ptr<QueueStore> makeClusterTestStore(const QueueTypeCatalog &types, const Clock &clock)
{
    static RedisCluster cluster;
    if (cluster.size() == 0 && !cluster.start())
        qFatal("cannot start a Redis cluster: %s", qPrintable(cluster.errorString()));
    cluster.flushPrimaries();
    RedisStoreOptions options;
    options.cluster.emplace();
    for (int i = 0; i < cluster.size(); ++i)
        options.cluster->seeds.append(Redis::NodeAddress{QStringLiteral("127.0.0.1"), cluster.node(i).port()});
    options.pool.size = 2;
    auto store = std::make_unique<RedisStore>(options, types, clock);
    store->start();
    // Every slot served and every pool full: the router may also hold a pool to a seed that is a
    // replica (the node its first CLUSTER SHARDS went to), so the count is not 3 × pool.size.
    const bool ready = waitUntil([&] {
        return store->cluster()->refreshes() > 0 && store->cluster()->allSlotsServed()
               && store->client().readyCount() == store->client().size()
               && store->wakeups().subscriber().isSubscribed();
    });
    if (!ready)
        qFatal("the cluster store is not ready after 5 s: %d of %d connections ready, slots %s, %s",
               store->client().readyCount(), store->client().size(),
               store->cluster()->allSlotsServed() ? "served" : "not all served",
               store->wakeups().subscriber().isSubscribed() ? "subscribed" : "not subscribed");
    return store;
}

inline std::unique_ptr<QueueStore> makeTestStore(const QueueTypeCatalog &types, const Clock &clock)
{
    if (testingRedisCluster())
        return makeClusterTestStore(types, clock);
    if (!testingRedis())
        return std::make_unique<MemoryStore>(types, clock);
    static RedisServer server;
    if (server.port() == 0)
        useTestTls(server);
    if (server.port() == 0 && !server.start())
        qFatal("cannot start the test server: %s", qPrintable(server.errorString()));
    server.cli({QStringLiteral("FLUSHALL")});
    RedisStoreOptions options;
    options.connection.port = server.port();
    useTestTls(options.connection);
    options.pool.size = 2;
    auto store = std::make_unique<RedisStore>(options, types, clock);
    store->start();
    if (!waitUntil([&] { return store->client().readyCount() == options.pool.size && store->wakeups().subscriber().isSubscribed(); }))
        qFatal("the Redis store is not ready after 5 s: %d of %d connections ready", store->client().readyCount(),
               options.pool.size);
    return store;
}

// Runs the event loop until `store` has no command in flight (at most `timeoutMs`). Stores that
// complete at once are always idle.
inline void waitForStore(const QueueStore &store, int timeoutMs = 5000)
{
    const auto *redis = dynamic_cast<const RedisStore *>(&store);
    if (!redis)
        return;
    QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
    waitUntil([redis] { return redis->client().commandsInFlight() == 0; }, timeoutMs);
}

} // namespace Broker::Testing
