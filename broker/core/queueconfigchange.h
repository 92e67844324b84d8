// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "queueconfig.h"

#include <QDataStream>
#include <QJsonObject>
#include <QStringList>

#include <optional>

namespace Broker {

// The options of an existing queue that PATCH /queues/{q} may change, each only when given.
// The type never changes (a queue's messages are kept in the structure of its type), nor does
// anything else that is not listed here.
struct QueueConfigChange
{
    std::optional<qint64> maxSize;
    std::optional<qint64> ttlSeconds;
    std::optional<qint64> visibilityTimeoutSeconds;
    std::optional<int> maxDeliveries;
    std::optional<QString> deadLetterQueue; // "" removes the dead-letter queue
    std::optional<int> partitions;          // more than the queue has (PartitionedStore refuses fewer)

    static QStringList changeableOptions();
    // Reads the "options" object of PATCH /queues/{q} with the rules and texts of
    // QueueConfig::fromOptions; refuses `type`, unknown keys and an empty object.
    static Result<QueueConfigChange> fromOptions(const QString &queueName, const QJsonObject &options);

    bool isEmpty() const;
    QueueConfig appliedTo(QueueConfig config) const;

    friend bool operator==(const QueueConfigChange &, const QueueConfigChange &) = default;
};

// For the journal: which options are set, then their values.
QDataStream &operator<<(QDataStream &out, const QueueConfigChange &change);
QDataStream &operator>>(QDataStream &in, QueueConfigChange &change);

} // namespace Broker
