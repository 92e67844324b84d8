// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "connectionpool.h"
#include "slotmap.h"

#include "resilience/retrypolicy.h"

#include <QObject>
#include <QTimer>

#include <map>
#include <memory>
#include <random>

namespace Broker::Redis {

struct ClusterOptions
{
    QList<NodeAddress> seeds;      // nodes asked for the slot map first; any one that answers will do
    int refreshIntervalMs = 10'000; // the slot map is read again this often even when nothing failed
    int minRefreshGapMs = 200;      // a redirect asks for the map again at most this often
    int maxRedirects = 5;           // MOVED/ASK hops for one command before it fails
    // TRYAGAIN, CLUSTERDOWN, READONLY, MASTERDOWN, LOADING, UNBLOCKED and commands that never left
    // this process (a node out of reach) are tried again this way, after a refresh, for as long
    // as retryForMs allows: a failover or a slot's migration takes its time, however many
    // attempts fit in it.
    RetryPolicy retry{50, 2.0, 1'000, 0};
    int retryForMs = 5'000; // since the command was first sent; the last reply is its answer then
};

// What the router knows of one node (health, /metrics, the desktop).
struct ClusterNodeStatus
{
    ClusterNode node;
    int connections = 0;      // primaries only: a pool of connections to it
    int connectionsReady = 0;
    qint64 movedRedirects = 0; // replies from it that sent a command elsewhere
    qint64 askRedirects = 0;
};

// The client of a Redis/Valkey Cluster: one ConnectionPool per primary, each command routed by
// the slot of its key (hashSlot). The slot map comes from CLUSTER SHARDS (CLUSTER SLOTS on
// servers before 7.0), read at start, every refreshIntervalMs, and soon after anything suggests
// it changed. Redirects are followed without the caller seeing them:
//   MOVED slot host:port  the slot's new primary is recorded at once, the command goes there, and
//                         a full refresh follows (throttled to one per minRefreshGapMs);
//   ASK slot host:port    ASKING and the command go to that node on one connection; the map stays;
//   TRYAGAIN, CLUSTERDOWN, READONLY, MASTERDOWN, LOADING, UNBLOCKED (a blocked read moved away):
//                         tried again with backoff after a refresh;
//   no connection         a command that never left this process is tried again the same way (a
//                         failover in progress); one that was sent and got no reply fails (it may
//                         have run: only the caller can know whether a retry is safe).
// Scripts are per node: EVALSHA's NOSCRIPT fallback (ScriptRunner) loads them where they run.
class ClusterRouter final : public QObject, public RedisClient
{
    Q_OBJECT

public:
    ClusterRouter(ConnectionOptions connection, PoolOptions pool, ClusterOptions cluster, QObject *parent = nullptr);
    ~ClusterRouter() override;

    void start() override;
    void stop() override;
    void command(const QByteArrayList &args, CommandCallback done, QByteArrayView key = {},
                 int timeoutMs = 0) override;

    int size() const override;
    int readyCount() const override;
    int commandsInFlight() const override;
    qint64 reconnects() const override;
    QString lastError() const override;
    int commandTimeoutMs() const override { return m_connection.commandTimeoutMs; }

    const SlotMap &slotMap() const { return m_map; }
    // Every slot has a primary and every primary a ready connection: false while a node is out
    // of reach or the cluster is failing over (the store's health is then degraded).
    bool allSlotsServed() const;
    QList<ClusterNodeStatus> nodes() const;
    qint64 movedRedirects() const { return m_moved; }
    qint64 askRedirects() const { return m_asked; }
    qint64 retries() const { return m_retries; }
    qint64 refreshes() const { return m_refreshes; } // slot maps read successfully

Q_SIGNALS:
    // A new slot map was read (after start, a refresh, a failover, a reshard).
    void topologyChanged();

private:
    struct Request;
    struct Node
    {
        std::unique_ptr<ConnectionPool> pool;
        qint64 moved = 0;
        qint64 asked = 0;
    };

    void dispatch(std::shared_ptr<Request> request);
    void answered(std::shared_ptr<Request> request, const NodeAddress &from, CommandResult result);
    // Sends `request` again after the retry policy's delay, or completes it with `last` when it
    // has had all its attempts.
    void retryLater(std::shared_ptr<Request> request, CommandResult last);
    // Sends every request waiting in retryLater now.
    void retryDelayedNow();
    void redirect(std::shared_ptr<Request> request, const QByteArray &reply, bool ask, const NodeAddress &from);
    ConnectionPool &poolFor(const NodeAddress &address);
    // The pool a command without a known slot goes to: any primary, a seed before the map is read.
    NodeAddress anyNode();
    // Reads the slot map from a node other than `avoid` (when there is one), unless a read is
    // under way or the last one began less than minRefreshGapMs ago (then one follows the gap).
    void refreshSoon(const NodeAddress &avoid = {});
    void refresh(const NodeAddress &avoid);
    void topologyRead(const NodeAddress &from, const RedisReply &reply, bool shards);
    template<typename Count>
    auto sumOverPools(Count count) const;
    // Stops and forgets the pools of nodes that are no longer primaries, once they are idle.
    void retireStalePools();

    const ConnectionOptions m_connection;
    const PoolOptions m_poolOptions;
    const ClusterOptions m_options;
    std::map<QString, Node> m_nodes; // by NodeAddress::text()
    SlotMap m_map;
    QTimer m_refreshTimer;  // periodic
    QTimer m_followUpTimer; // a refresh asked for within the gap
    qint64 m_lastRefreshStartMs = -1'000'000;
    bool m_refreshing = false;
    bool m_running = false;
    std::size_t m_cursor = 0; // round-robin over the nodes for refreshes and keyless commands
    std::mt19937_64 m_random;
    qint64 m_moved = 0;
    qint64 m_asked = 0;
    qint64 m_retries = 0;
    qint64 m_refreshes = 0;
    QString m_lastError;
    struct Delayed
    {
        std::unique_ptr<QTimer> timer;
        std::shared_ptr<Request> request;
    };
    std::map<quint64, Delayed> m_delayed; // retries waiting for their time, by a running number
    quint64 m_nextDelayed = 0;
};

} // namespace Broker::Redis
