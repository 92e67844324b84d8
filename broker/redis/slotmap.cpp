// SPDX-License-Identifier: GPL-3.0-or-later
#include "slotmap.h"

#include <algorithm>
#include <optional>

namespace Broker::Redis {

namespace {

Error malformed(const char *what)
{
    return Error{ErrorCode::Internal, QStringLiteral("unexpected cluster topology reply (%1)").arg(QLatin1String(what))};
}

// RESP2 sends CLUSTER SHARDS's maps as flat arrays: name, value, name, value, ...
const RedisReply *field(const RedisReply &map, QByteArrayView name)
{
    if (map.type != RedisReply::Type::Array)
        return nullptr;
    for (qsizetype i = 0; i + 1 < map.elements.size(); i += 2)
        if (map.elements[i].string == name)
            return &map.elements[i + 1];
    return nullptr;
}

QByteArray textOf(const RedisReply *reply)
{
    return reply && (reply->type == RedisReply::Type::String || reply->type == RedisReply::Type::Status)
        ? reply->string
        : QByteArray();
}

qint64 integerOf(const RedisReply *reply)
{
    if (!reply)
        return 0;
    if (reply->type == RedisReply::Type::Integer)
        return reply->integer;
    return reply->string.toLongLong();
}

// An empty endpoint, "?" (unknown) or NULL means "the node you asked".
QString hostOf(QByteArray endpoint, const QString &answeringHost)
{
    if (endpoint.isEmpty() || endpoint == "?")
        return answeringHost;
    return QString::fromUtf8(endpoint);
}

} // namespace

NodeAddress NodeAddress::parse(QByteArrayView text)
{
    const qsizetype colon = text.lastIndexOf(':');
    if (colon <= 0)
        return {};
    QByteArrayView host = text.first(colon);
    if (host.startsWith('[') && host.endsWith(']'))
        host = host.sliced(1, host.size() - 2);
    bool ok = false;
    const int port = text.sliced(colon + 1).toByteArray().toInt(&ok);
    if (!ok || port <= 0 || port > 65535 || host.isEmpty())
        return {};
    return NodeAddress{QString::fromUtf8(host), port};
}

SlotMap::SlotMap() : m_slotPrimary(SlotCount, qint16(-1)) {}

Result<SlotMap> SlotMap::fromShards(const RedisReply &reply, const QString &answeringHost, bool tls)
{
    if (reply.type != RedisReply::Type::Array)
        return malformed("not an array");
    SlotMap map;
    for (const RedisReply &shard : reply.elements) {
        const RedisReply *slots = field(shard, "slots");
        const RedisReply *nodes = field(shard, "nodes");
        if (!slots || !nodes || slots->type != RedisReply::Type::Array || nodes->type != RedisReply::Type::Array
            || slots->elements.size() % 2 != 0)
            return malformed("shard without slots or nodes");
        std::optional<NodeAddress> primary;
        bool primaryOnline = false;
        for (const RedisReply &node : nodes->elements) {
            const qint64 tlsPort = integerOf(field(node, "tls-port"));
            ClusterNode described;
            described.address = NodeAddress{hostOf(textOf(field(node, "endpoint")), answeringHost),
                                            int(tls && tlsPort > 0 ? tlsPort : integerOf(field(node, "port")))};
            described.id = textOf(field(node, "id"));
            described.primary = textOf(field(node, "role")) == "master";
            described.health = QString::fromUtf8(textOf(field(node, "health")));
            if (described.address.port <= 0)
                return malformed("node without a port");
            // A failed primary is still listed with its old slots until a replica takes over; a
            // shard then may name two: the one that is online serves.
            const bool online = described.health == QLatin1String("online");
            if (described.primary && (!primary || (online && !primaryOnline))) {
                primary = described.address;
                primaryOnline = online;
            }
            map.m_nodes.append(described);
        }
        if (!primary || slots->elements.isEmpty())
            continue; // slots without a primary stay unassigned; a failed primary may be a shard of its own
        const int index = map.addPrimary(*primary);
        for (qsizetype i = 0; i < slots->elements.size(); i += 2)
            if (!map.assignRange(integerOf(&slots->elements[i]), integerOf(&slots->elements[i + 1]), index))
                return malformed("slot out of range");
    }
    map.countSlots();
    return map;
}

Result<SlotMap> SlotMap::fromSlots(const RedisReply &reply, const QString &answeringHost)
{
    if (reply.type != RedisReply::Type::Array)
        return malformed("not an array");
    SlotMap map;
    for (const RedisReply &range : reply.elements) {
        // [first, last, [host, port, id, ...] primary, replicas ...]
        if (range.type != RedisReply::Type::Array || range.elements.size() < 3)
            return malformed("range without a primary");
        for (qsizetype n = 2; n < range.elements.size(); ++n) {
            const RedisReply &node = range.elements[n];
            if (node.type != RedisReply::Type::Array || node.elements.size() < 2)
                return malformed("node without an address");
            ClusterNode described;
            described.address = NodeAddress{hostOf(textOf(&node.elements[0]), answeringHost),
                                            int(integerOf(&node.elements[1]))};
            described.id = node.elements.size() > 2 ? textOf(&node.elements[2]) : QByteArray();
            described.primary = n == 2;
            if (described.address.port <= 0)
                return malformed("node without a port");
            const auto known = std::find_if(map.m_nodes.begin(), map.m_nodes.end(),
                                            [&](const ClusterNode &seen) { return seen.address == described.address; });
            if (known == map.m_nodes.end())
                map.m_nodes.append(described);
        }
        const RedisReply &first = range.elements[2];
        const int primary = map.addPrimary(
            NodeAddress{hostOf(textOf(&first.elements[0]), answeringHost), int(integerOf(&first.elements[1]))});
        if (!map.assignRange(integerOf(&range.elements[0]), integerOf(&range.elements[1]), primary))
            return malformed("slot out of range");
    }
    map.countSlots();
    return map;
}

const NodeAddress *SlotMap::primaryOf(int slot) const
{
    if (slot < 0 || slot >= SlotCount)
        return nullptr;
    const qint16 index = m_slotPrimary[std::size_t(slot)];
    return index < 0 ? nullptr : &m_primaries[index];
}

void SlotMap::assign(int slot, const NodeAddress &node)
{
    if (slot >= 0 && slot < SlotCount)
        m_slotPrimary[std::size_t(slot)] = qint16(addPrimary(node));
}

QList<NodeAddress> SlotMap::servingPrimaries() const
{
    std::vector<bool> serving(std::size_t(m_primaries.size()), false);
    for (const qint16 index : m_slotPrimary)
        if (index >= 0)
            serving[std::size_t(index)] = true;
    QList<NodeAddress> out;
    for (qsizetype i = 0; i < m_primaries.size(); ++i)
        if (serving[std::size_t(i)])
            out.append(m_primaries[i]);
    return out;
}

int SlotMap::assignedSlots() const
{
    return int(std::count_if(m_slotPrimary.begin(), m_slotPrimary.end(), [](qint16 index) { return index >= 0; }));
}

void SlotMap::countSlots()
{
    for (ClusterNode &node : m_nodes)
        if (node.primary)
            node.slotCount = int(std::count_if(m_slotPrimary.begin(), m_slotPrimary.end(), [&](qint16 index) {
                return index >= 0 && m_primaries[index] == node.address;
            }));
}

int SlotMap::addPrimary(const NodeAddress &node)
{
    const qsizetype known = m_primaries.indexOf(node);
    if (known >= 0)
        return int(known);
    m_primaries.append(node);
    return int(m_primaries.size() - 1);
}

bool SlotMap::assignRange(qint64 first, qint64 last, int primary)
{
    if (first < 0 || last >= SlotCount || first > last)
        return false;
    std::fill(m_slotPrimary.begin() + first, m_slotPrimary.begin() + last + 1, qint16(primary));
    return true;
}

} // namespace Broker::Redis
