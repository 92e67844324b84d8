// SPDX-License-Identifier: GPL-3.0-or-later
#include "queueconfigchange.h"

namespace Broker {

QStringList QueueConfigChange::changeableOptions()
{
    return {QStringLiteral("max_size"), QStringLiteral("ttl"), QStringLiteral("visibility_timeout"),
            QStringLiteral("max_deliveries"), QStringLiteral("dead_letter_queue"), QStringLiteral("partitions")};
}

Result<QueueConfigChange> QueueConfigChange::fromOptions(const QString &queueName, const QJsonObject &options)
{
    const QStringList changeable = changeableOptions();
    for (auto it = options.begin(); it != options.end(); ++it) {
        if (it.key() == u"type")
            return Error{ErrorCode::InvalidArgument,
                         QStringLiteral("Option 'type' cannot be changed: a queue keeps the type it was created with")};
        if (!changeable.contains(it.key()))
            return Error{ErrorCode::InvalidArgument, QStringLiteral("Unknown queue option '%1' (changeable: %2)")
                                                         .arg(it.key(), changeable.join(u", "))};
    }
    if (options.isEmpty())
        return Error{ErrorCode::InvalidArgument,
                     QStringLiteral("Nothing to change: options names none of %1").arg(changeable.join(u", "))};

    // The same rules and words as creating a queue: read as a full configuration, then keep
    // only what was given.
    const Result<QueueConfig> read = QueueConfig::fromOptions(queueName, options, QueueDefaults{});
    if (!read)
        return read.error();
    QueueConfigChange change;
    if (options.contains(u"max_size"))
        change.maxSize = read->maxSize;
    if (options.contains(u"ttl"))
        change.ttlSeconds = read->ttlSeconds;
    if (options.contains(u"visibility_timeout"))
        change.visibilityTimeoutSeconds = read->visibilityTimeoutSeconds;
    if (options.contains(u"max_deliveries"))
        change.maxDeliveries = read->maxDeliveries;
    if (options.contains(u"dead_letter_queue"))
        change.deadLetterQueue = read->deadLetterQueue;
    if (options.contains(u"partitions"))
        change.partitions = read->partitions;
    return change;
}

bool QueueConfigChange::isEmpty() const
{
    return !maxSize && !ttlSeconds && !visibilityTimeoutSeconds && !maxDeliveries && !deadLetterQueue && !partitions;
}

QueueConfig QueueConfigChange::appliedTo(QueueConfig config) const
{
    config.maxSize = maxSize.value_or(config.maxSize);
    config.ttlSeconds = ttlSeconds.value_or(config.ttlSeconds);
    config.visibilityTimeoutSeconds = visibilityTimeoutSeconds.value_or(config.visibilityTimeoutSeconds);
    config.maxDeliveries = maxDeliveries.value_or(config.maxDeliveries);
    config.deadLetterQueue = deadLetterQueue.value_or(config.deadLetterQueue);
    config.partitions = partitions.value_or(config.partitions);
    return config;
}

namespace {

enum Field : quint8 { MaxSize = 1, Ttl = 2, Visibility = 4, MaxDeliveries = 8, DeadLetterQueue = 16, Partitions = 32 };

} // namespace

QDataStream &operator<<(QDataStream &out, const QueueConfigChange &change)
{
    const quint8 fields = (change.maxSize ? MaxSize : 0) | (change.ttlSeconds ? Ttl : 0)
                          | (change.visibilityTimeoutSeconds ? Visibility : 0)
                          | (change.maxDeliveries ? MaxDeliveries : 0) | (change.deadLetterQueue ? DeadLetterQueue : 0)
                          | (change.partitions ? Partitions : 0);
    out << fields;
    if (change.maxSize)
        out << qint64(*change.maxSize);
    if (change.ttlSeconds)
        out << qint64(*change.ttlSeconds);
    if (change.visibilityTimeoutSeconds)
        out << qint64(*change.visibilityTimeoutSeconds);
    if (change.maxDeliveries)
        out << qint32(*change.maxDeliveries);
    if (change.deadLetterQueue)
        out << *change.deadLetterQueue;
    if (change.partitions)
        out << qint32(*change.partitions);
    return out;
}

QDataStream &operator>>(QDataStream &in, QueueConfigChange &change)
{
    quint8 fields = 0;
    in >> fields;
    change = {};
    const auto readInteger = [&in](std::optional<qint64> &target) {
        qint64 value = 0;
        in >> value;
        target = value;
    };
    if (fields & MaxSize)
        readInteger(change.maxSize);
    if (fields & Ttl)
        readInteger(change.ttlSeconds);
    if (fields & Visibility)
        readInteger(change.visibilityTimeoutSeconds);
    if (fields & MaxDeliveries) {
        qint32 value = 0;
        in >> value;
        change.maxDeliveries = value;
    }
    if (fields & DeadLetterQueue) {
        QString name;
        in >> name;
        change.deadLetterQueue = name;
    }
    if (fields & Partitions) {
        qint32 value = 0;
        in >> value;
        change.partitions = value;
    }
    if (fields & ~quint8(MaxSize | Ttl | Visibility | MaxDeliveries | DeadLetterQueue | Partitions))
        in.setStatus(QDataStream::ReadCorruptData);
    return in;
}

} // namespace Broker
