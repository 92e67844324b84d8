// SPDX-License-Identifier: GPL-3.0-or-later
#include "clusterrouter.h"

#include <QRandomGenerator>

#include <algorithm>
#include <tuple>
#include <utility>

namespace Broker::Redis {

struct ClusterRouter::Request
{
    QByteArrayList args;
    CommandCallback done;
    int slot = -1;      // -1: the command has no key, any primary will do
    int timeoutMs = 0;
    int redirects = 0;  // of this attempt
    int attempts = 1;
    qint64 firstSentMs = steadyMs();
    NodeAddress askTo;  // set for the one attempt that follows an ASK redirect
};

namespace {

bool isRetryableClusterError(const QByteArray &code)
{
    return code == "TRYAGAIN" || code == "CLUSTERDOWN" || code == "READONLY" || code == "MASTERDOWN"
        || code == "LOADING" || code == "UNBLOCKED";
}

} // namespace

ClusterRouter::ClusterRouter(ConnectionOptions connection, PoolOptions pool, ClusterOptions cluster, QObject *parent)
    : QObject(parent), m_connection(std::move(connection)), m_poolOptions(pool), m_options(std::move(cluster)),
      m_random(QRandomGenerator::global()->generate64())
{
    m_refreshTimer.setInterval(std::max(100, m_options.refreshIntervalMs));
    connect(&m_refreshTimer, &QTimer::timeout, this, [this] { refreshSoon(); });
    m_followUpTimer.setSingleShot(true);
    connect(&m_followUpTimer, &QTimer::timeout, this, [this] { refreshSoon(); });
}

ClusterRouter::~ClusterRouter() = default;

void ClusterRouter::start()
{
    if (m_running)
        return;
    m_running = true;
    for (const NodeAddress &seed : m_options.seeds)
        poolFor(seed);
    for (auto &[address, node] : m_nodes)
        node.pool->start();
    m_refreshTimer.start();
    refresh({});
}

void ClusterRouter::stop()
{
    m_running = false;
    m_refreshTimer.stop();
    m_followUpTimer.stop();
    // Delayed retries fail now, as the pools' waiting commands do.
    std::map<quint64, Delayed> delayed;
    delayed.swap(m_delayed);
    for (auto &[number, entry] : delayed)
        entry.request->done(Error{ErrorCode::Unavailable, QStringLiteral("Redis cluster client stopped"), NotSent});
    for (auto &[address, node] : m_nodes)
        node.pool->stop();
}

void ClusterRouter::command(const QByteArrayList &args, CommandCallback done, QByteArrayView key, int timeoutMs)
{
    auto request = std::make_shared<Request>();
    request->args = args;
    request->done = std::move(done);
    request->slot = key.isEmpty() ? -1 : hashSlot(key);
    request->timeoutMs = timeoutMs;
    dispatch(std::move(request));
}

void ClusterRouter::dispatch(std::shared_ptr<Request> request)
{
    if (!m_running)
        return request->done(Error{ErrorCode::Unavailable, QStringLiteral("Redis cluster client stopped"), NotSent});
    const bool ask = request->askTo.port != 0;
    NodeAddress target;
    if (ask)
        target = std::exchange(request->askTo, NodeAddress{});
    else if (const NodeAddress *primary = request->slot >= 0 ? m_map.primaryOf(request->slot) : nullptr)
        target = *primary;
    else
        target = anyNode();
    ConnectionPool &pool = poolFor(target);
    // One slot's commands share a connection on their node: ASKING applies to the command that
    // follows it on the same connection, and one queue's commands keep their order.
    const QByteArray connectionKey = QByteArray::number(request->slot);
    if (ask)
        pool.command({QByteArrayLiteral("ASKING")}, [](CommandResult) {}, connectionKey);
    const QByteArrayList args = request->args;
    pool.command(
        args, [this, request, target](CommandResult result) { answered(request, target, std::move(result)); },
        connectionKey, request->timeoutMs);
}

void ClusterRouter::answered(std::shared_ptr<Request> request, const NodeAddress &from, CommandResult result)
{
    if (!result) {
        m_lastError = QStringLiteral("%1: %2").arg(from.text(), result.error().message);
        refreshSoon(from);
        if (result.error().detail == NotSent)
            return retryLater(std::move(request), std::move(result));
        return request->done(std::move(result)); // it may have run: not ours to repeat
    }
    if (result->isError()) {
        const QByteArray code = result->errorCode();
        if (code == "MOVED" || code == "ASK")
            return redirect(std::move(request), result->string, code == "ASK", from);
        if (isRetryableClusterError(code)) {
            if (code != "TRYAGAIN") // a multi-key command during a reshard: the map is right
                refreshSoon(from);
            return retryLater(std::move(request), std::move(result));
        }
    }
    request->done(std::move(result));
}

void ClusterRouter::retryLater(std::shared_ptr<Request> request, CommandResult last)
{
    if (!m_running || !m_options.retry.allowsAnotherAttempt(request->attempts))
        return request->done(std::move(last));
    // The last attempt goes when the time is up, however long the back-off would have been.
    const qint64 remainingMs = m_options.retryForMs - (steadyMs() - request->firstSentMs);
    if (remainingMs <= 0)
        return request->done(std::move(last));
    const qint64 delay = std::min(m_options.retry.delayMs(request->attempts, m_random), remainingMs);
    ++request->attempts;
    request->redirects = 0; // a fresh attempt: ASK, TRYAGAIN, ASK ... while a slot migrates is not a loop
    ++m_retries;
    const quint64 number = m_nextDelayed++;
    Delayed &entry = m_delayed[number];
    entry.timer = std::make_unique<QTimer>();
    entry.timer->setSingleShot(true);
    entry.request = std::move(request);
    connect(entry.timer.get(), &QTimer::timeout, this, [this, number] {
        const auto it = m_delayed.find(number);
        if (it == m_delayed.end())
            return;
        it->second.timer.release()->deleteLater(); // this is its signal
        std::shared_ptr<Request> due = std::move(it->second.request);
        m_delayed.erase(it);
        dispatch(std::move(due));
    });
    entry.timer->start(int(delay));
}

void ClusterRouter::redirect(std::shared_ptr<Request> request, const QByteArray &reply, bool ask, const NodeAddress &from)
{
    // "MOVED 3999 127.0.0.1:6381"; an empty host (":6381") means the host of the node that answered.
    const QList<QByteArray> words = reply.split(' ');
    const int slot = words.size() >= 3 ? words[1].toInt() : -1;
    NodeAddress target = words.size() >= 3 ? NodeAddress::parse(words[2]) : NodeAddress{};
    if (target.port == 0 && words.size() >= 3 && words[2].startsWith(':'))
        target = NodeAddress::parse(from.host.toUtf8() + words[2]);
    auto known = m_nodes.find(from.text());
    if (known != m_nodes.end())
        ++(ask ? known->second.asked : known->second.moved);
    ++(ask ? m_asked : m_moved);
    if (target.port == 0 || slot < 0 || slot >= SlotCount)
        return request->done(Error{ErrorCode::Internal, QStringLiteral("malformed cluster redirect from %1").arg(from.text())});
    if (++request->redirects > m_options.maxRedirects)
        return request->done(Error{ErrorCode::Unavailable,
                                   QStringLiteral("Redis cluster: more than %1 redirects for slot %2 (a reshard in progress?)")
                                       .arg(m_options.maxRedirects)
                                       .arg(slot),
                                   NotSent});
    if (ask) {
        request->askTo = target; // this once: the slot is being migrated, the map stays as it is
    } else {
        m_map.assign(slot, target);
        refreshSoon();
    }
    dispatch(std::move(request));
}

ConnectionPool &ClusterRouter::poolFor(const NodeAddress &address)
{
    auto [it, inserted] = m_nodes.try_emplace(address.text());
    if (inserted) {
        ConnectionOptions options = m_connection;
        options.host = address.host;
        options.port = address.port;
        it->second.pool = std::make_unique<ConnectionPool>(options, m_poolOptions);
        if (m_running)
            it->second.pool->start();
    }
    return *it->second.pool;
}

NodeAddress ClusterRouter::anyNode()
{
    const QList<NodeAddress> candidates = m_map.isEmpty() ? m_options.seeds : m_map.servingPrimaries();
    if (candidates.isEmpty())
        return m_nodes.empty() ? NodeAddress{m_connection.host, m_connection.port}
                               : NodeAddress::parse(m_nodes.begin()->first.toUtf8());
    return candidates[qsizetype(m_cursor++ % std::size_t(candidates.size()))];
}

void ClusterRouter::refreshSoon(const NodeAddress &avoid)
{
    if (!m_running || m_refreshing)
        return;
    const qint64 sinceLast = steadyMs() - m_lastRefreshStartMs;
    if (sinceLast >= m_options.minRefreshGapMs)
        return refresh(avoid);
    if (!m_followUpTimer.isActive())
        m_followUpTimer.start(int(m_options.minRefreshGapMs - sinceLast));
}

void ClusterRouter::refresh(const NodeAddress &avoid)
{
    // Ask a node that is ready and, when there is a choice, not the one that just failed.
    NodeAddress from;
    std::vector<NodeAddress> ready;
    for (const auto &[address, node] : m_nodes)
        if (node.pool->readyCount() > 0 && address != avoid.text())
            ready.push_back(NodeAddress::parse(address.toUtf8()));
    if (!ready.empty())
        from = ready[m_cursor++ % ready.size()];
    else if (!m_options.seeds.isEmpty())
        from = m_options.seeds[qsizetype(m_cursor++ % std::size_t(m_options.seeds.size()))];
    else
        from = anyNode();
    m_refreshing = true;
    m_lastRefreshStartMs = steadyMs();
    poolFor(from).command({QByteArrayLiteral("CLUSTER"), QByteArrayLiteral("SHARDS")}, [this, from](CommandResult result) {
        if (result && result->isError() && !result->string.contains("MOVED")) {
            // Before Redis 7.0: CLUSTER SLOTS.
            poolFor(from).command({QByteArrayLiteral("CLUSTER"), QByteArrayLiteral("SLOTS")},
                                  [this, from](CommandResult slots) {
                                      if (slots && !slots->isError())
                                          return topologyRead(from, *slots, false);
                                      m_refreshing = false;
                                      m_lastError = QStringLiteral("%1: cannot read the slot map").arg(from.text());
                                  });
            return;
        }
        if (result)
            return topologyRead(from, *result, true);
        m_refreshing = false;
        m_lastError = QStringLiteral("%1: %2").arg(from.text(), result.error().message);
    });
}

void ClusterRouter::topologyRead(const NodeAddress &from, const RedisReply &reply, bool shards)
{
    m_refreshing = false;
    Result<SlotMap> map = shards ? SlotMap::fromShards(reply, from.host, m_connection.tls)
                                 : SlotMap::fromSlots(reply, from.host);
    if (!map || map->isEmpty()) {
        m_lastError = QStringLiteral("%1: %2").arg(from.text(), map ? QStringLiteral("no slots assigned")
                                                                    : map.error().message);
        return;
    }
    const auto sortedPrimaries = [this] {
        QList<NodeAddress> primaries = m_map.servingPrimaries();
        std::sort(primaries.begin(), primaries.end(), [](const NodeAddress &a, const NodeAddress &b) {
            return std::tie(a.host, a.port) < std::tie(b.host, b.port);
        });
        return primaries;
    };
    const QList<NodeAddress> before = sortedPrimaries();
    m_map = std::move(map.value());
    ++m_refreshes;
    const QList<NodeAddress> primaries = sortedPrimaries();
    for (const NodeAddress &primary : primaries)
        poolFor(primary);
    retireStalePools();
    // A failover just became known (another set of primaries): the retries waiting for it go
    // now, to the new primaries, rather than at the end of their back-off. (Nodes answer the map
    // in orders of their own, hence the sorting.)
    if (primaries != before)
        retryDelayedNow();
    Q_EMIT topologyChanged();
}

void ClusterRouter::retryDelayedNow()
{
    std::map<quint64, Delayed> due = std::exchange(m_delayed, {});
    for (auto &[number, entry] : due)
        dispatch(std::move(entry.request)); // in the order they failed; the timers go with `due`
}

void ClusterRouter::retireStalePools()
{
    const QList<NodeAddress> serving = m_map.servingPrimaries();
    for (auto it = m_nodes.begin(); it != m_nodes.end();) {
        const bool primary = serving.contains(NodeAddress::parse(it->first.toUtf8()));
        if (primary || it->second.pool->commandsInFlight() > 0) {
            ++it;
            continue;
        }
        // Possibly inside one of this pool's callbacks: it goes once the event loop is back.
        it->second.pool->stop();
        it->second.pool.release()->deleteLater();
        it = m_nodes.erase(it);
    }
}

bool ClusterRouter::allSlotsServed() const
{
    if (m_map.assignedSlots() != SlotCount)
        return false;
    for (const NodeAddress &primary : m_map.servingPrimaries()) {
        const auto it = m_nodes.find(primary.text());
        if (it == m_nodes.end() || it->second.pool->readyCount() == 0)
            return false;
    }
    return true;
}

QList<ClusterNodeStatus> ClusterRouter::nodes() const
{
    QList<ClusterNodeStatus> out;
    for (const ClusterNode &node : m_map.nodes()) {
        ClusterNodeStatus status;
        status.node = node;
        if (const auto it = m_nodes.find(node.address.text()); it != m_nodes.end() && node.primary) {
            status.connections = it->second.pool->size();
            status.connectionsReady = it->second.pool->readyCount();
            status.movedRedirects = it->second.moved;
            status.askRedirects = it->second.asked;
        }
        out.append(status);
    }
    return out;
}

template<typename Count>
auto ClusterRouter::sumOverPools(Count count) const
{
    decltype(count(std::declval<const ConnectionPool &>())) total = 0;
    for (const auto &[address, node] : m_nodes)
        total += count(*node.pool);
    return total;
}

int ClusterRouter::size() const
{
    return sumOverPools([](const ConnectionPool &pool) { return pool.size(); });
}

int ClusterRouter::readyCount() const
{
    return sumOverPools([](const ConnectionPool &pool) { return pool.readyCount(); });
}

int ClusterRouter::commandsInFlight() const
{
    return int(m_delayed.size()) + sumOverPools([](const ConnectionPool &pool) { return pool.commandsInFlight(); });
}

qint64 ClusterRouter::reconnects() const
{
    return sumOverPools([](const ConnectionPool &pool) { return pool.reconnects(); });
}

QString ClusterRouter::lastError() const
{
    return m_lastError;
}

} // namespace Broker::Redis
