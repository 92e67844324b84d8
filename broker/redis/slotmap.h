// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "hashslot.h"
#include "redisreply.h"

#include "core/result.h"

#include <QList>
#include <QString>

#include <vector>

namespace Broker::Redis {

// Where a cluster node listens: what a pool connects to.
struct NodeAddress
{
    QString host;
    int port = 0;

    QString text() const { return QStringLiteral("%1:%2").arg(host).arg(port); } // "host:port"
    bool operator==(const NodeAddress &other) const = default;
    // "host:port" (also "[v6]:port"); an invalid address (port 0) when it is not one.
    static NodeAddress parse(QByteArrayView text);
};

// One node as the cluster described it, for health and the desktop.
struct ClusterNode
{
    NodeAddress address;
    QByteArray id;
    bool primary = false;
    QString health; // "online", "failed", "loading"; empty when the server did not say (CLUSTER SLOTS)
    int slotCount = 0; // slots it serves as primary
};

// Which primary serves each of the 16384 slots. Made from a CLUSTER SHARDS reply (Redis 7.0+,
// Valkey) or a CLUSTER SLOTS reply (older servers); changed slot by slot by MOVED redirects
// between refreshes. A slot no primary claims is unassigned (the cluster is down for it).
class SlotMap
{
public:
    SlotMap();

    // `answeringHost` stands for a node whose endpoint the server left empty or unknown ("?"):
    // the host the reply came from. `tls`: take the nodes' tls-port where they have one.
    static Result<SlotMap> fromShards(const RedisReply &reply, const QString &answeringHost, bool tls);
    static Result<SlotMap> fromSlots(const RedisReply &reply, const QString &answeringHost);

    // The primary that serves `slot`, or nullptr while it is unassigned.
    const NodeAddress *primaryOf(int slot) const;
    // What a MOVED redirect says: `slot` is now served by `node`.
    void assign(int slot, const NodeAddress &node);

    // Every primary named so far (by the reply or a MOVED since), and those that serve a slot now.
    const QList<NodeAddress> &primaries() const { return m_primaries; }
    QList<NodeAddress> servingPrimaries() const;
    const QList<ClusterNode> &nodes() const { return m_nodes; }
    int assignedSlots() const;
    bool isEmpty() const { return m_primaries.isEmpty(); }

private:
    int addPrimary(const NodeAddress &node);
    bool assignRange(qint64 first, qint64 last, int primary);
    void countSlots(); // fills ClusterNode::slotCount

    std::vector<qint16> m_slotPrimary; // index into m_primaries, -1 while unassigned
    QList<NodeAddress> m_primaries;
    QList<ClusterNode> m_nodes;
};

} // namespace Broker::Redis
