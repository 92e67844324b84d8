// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "result.h"

#include <QDataStream>
#include <QJsonObject>
#include <QString>

namespace Broker {

// Defaults for options a queue creator leaves out; they come from message_broker.yaml.
struct QueueDefaults
{
    QString type = QStringLiteral("list");
    qint64 maxSize = 10000;
    qint64 ttlSeconds = 86400;
    qint64 visibilityTimeoutSeconds = 30;
    int maxDeliveries = 5;
};

// Bounds on what a creator may ask for, so one request cannot ask for absurd resources.
namespace QueueLimits {
constexpr qint64 MaxSize = 100'000'000;
constexpr qint64 MaxTtlSeconds = 10LL * 365 * 86400;
constexpr qint64 MaxVisibilityTimeoutSeconds = 12 * 3600;
constexpr int MaxDeliveries = 1000;
constexpr qint64 MaxDelaySeconds = 15 * 60 * 96; // one day
constexpr int MaxPartitions = 64;
constexpr qsizetype MaxPartitionKeyLength = 256; // characters of a publish's `key`
} // namespace QueueLimits

struct QueueConfig
{
    QString type = QueueDefaults{}.type;
    // ready + delayed + in flight; a publish beyond -> QueueFull
    qint64 maxSize = QueueDefaults{}.maxSize;
    // message lifetime from publish; expired messages are never delivered
    qint64 ttlSeconds = QueueDefaults{}.ttlSeconds;
    qint64 visibilityTimeoutSeconds = QueueDefaults{}.visibilityTimeoutSeconds; // default lease length for acknowledge=false
    int maxDeliveries = QueueDefaults{}.maxDeliveries; // deliveries before a message is dead-lettered
    QString deadLetterQueue;               // empty: no dead-letter queue (such messages are dropped and counted)
    // Sub-queues one logical queue is stored as (PartitionedStore): 1 is a plain queue. Only grows.
    int partitions = 1;

    // A configuration of the given type with every option at its configured default.
    static QueueConfig withDefaults(const QueueDefaults &defaults);
    // Parses the gCore "options" object of POST /queues. Unknown keys and out-of-range or
    // mistyped values are refused with a message naming the option. `dead_letter_queue` may be a
    // queue name, true (meaning "<name>.dlq") or false/null (none). The type is only checked for
    // shape here; whether it is registered is the engine's business.
    static Result<QueueConfig> fromOptions(const QString &queueName, const QJsonObject &options,
                                           const QueueDefaults &defaults);
    QJsonObject toJson() const;

    friend bool operator==(const QueueConfig &, const QueueConfig &) = default;
};

// For the journal and snapshots of the memory store: every field but `partitions`, in a fixed
// order. Partitions came later; the journal and the snapshot write them where they are read
// (a record kind and a snapshot version of their own), so that older files still read.
QDataStream &operator<<(QDataStream &out, const QueueConfig &config);
QDataStream &operator>>(QDataStream &in, QueueConfig &config);

} // namespace Broker
