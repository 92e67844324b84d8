// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "queueconfig.h"

#include <QList>
#include <QString>

namespace Broker {

// Lifetime counters of one queue. Stores keep them (Redis: a hash per queue).
struct QueueCounters
{
    qint64 published = 0;
    qint64 delivered = 0;    // gCore's consume_count
    qint64 acked = 0;        // explicit acks plus deliveries with acknowledge=true
    qint64 nacked = 0;
    qint64 expired = 0;      // TTL ran out before delivery
    qint64 deadLettered = 0; // moved to the dead-letter queue
    qint64 dropped = 0;      // gave up on with no dead-letter queue to take them
    qint64 redriven = 0;     // moved back here from a dead-letter queue

    friend bool operator==(const QueueCounters &, const QueueCounters &) = default;
};

// Messages per second, measured by this broker over sliding windows.
struct QueueRates
{
    double publish1s = 0;
    double publish1m = 0;
    double consume1s = 0;
    double consume1m = 0;
};

struct ConsumerGroupInfo
{
    QString name;
    qint64 pending = 0;   // delivered to a consumer of the group, not yet acknowledged
    qint64 lag = 0;       // entries the group has not been given yet
    QList<QString> consumers;
};

// One partition of a partitioned queue (QueueConfig::partitions > 1), as GET /queues/{q} shows it.
struct PartitionInfo
{
    int index = 0;
    qint64 depth = 0;
    qint64 inFlight = 0;
    qint64 delayed = 0;
    QueueCounters counters;
    QueueRates rates; // filled in by the engine
};

struct QueueInfo
{
    QString name;
    QueueConfig config;
    double created = 0;   // unix seconds
    qint64 depth = 0;     // ready to deliver now (gCore's message_count)
    qint64 inFlight = 0;  // leased, not yet acknowledged
    qint64 delayed = 0;   // published with a delay or nacked with one, not yet due
    QueueCounters counters;
    QueueRates rates;     // filled in by the engine, not by stores
    QList<ConsumerGroupInfo> groups; // stream queues only
    QList<PartitionInfo> partitions; // partitioned queues: each one; the fields above are their sums

    qint64 size() const { return depth + inFlight + delayed; }
};

} // namespace Broker
