// SPDX-License-Identifier: GPL-3.0-or-later
#include "queueconfig.h"

#include "jsonfields.h"
#include "queuename.h"

#include <QJsonValue>


namespace Broker {

namespace {

Result<void> readInteger(const QJsonObject &options, const char *key, qint64 min, qint64 max, qint64 &out)
{
    const QJsonValue value = options.value(QLatin1StringView(key));
    if (value.isUndefined())
        return {};
    const Result<qint64> number =
        JsonFields::wholeNumber(value, QStringLiteral("option '%1'").arg(QLatin1StringView(key)), min, max);
    if (!number)
        return number.error();
    out = *number;
    return {};
}

} // namespace

QueueConfig QueueConfig::withDefaults(const QueueDefaults &defaults)
{
    QueueConfig config;
    config.type = defaults.type;
    config.maxSize = defaults.maxSize;
    config.ttlSeconds = defaults.ttlSeconds;
    config.visibilityTimeoutSeconds = defaults.visibilityTimeoutSeconds;
    config.maxDeliveries = defaults.maxDeliveries;
    return config;
}

Result<QueueConfig> QueueConfig::fromOptions(const QString &queueName, const QJsonObject &options,
                                             const QueueDefaults &defaults)
{
    static const QStringList Known{QStringLiteral("type"),          QStringLiteral("max_size"),
                                   QStringLiteral("ttl"),           QStringLiteral("visibility_timeout"),
                                   QStringLiteral("max_deliveries"), QStringLiteral("dead_letter_queue"),
                                   QStringLiteral("partitions")};
    for (auto it = options.begin(); it != options.end(); ++it) {
        if (!Known.contains(it.key()))
            return Error{ErrorCode::InvalidArgument,
                         QStringLiteral("Unknown queue option '%1' (known: %2)").arg(it.key(), Known.join(u", "))};
    }

    QueueConfig config = withDefaults(defaults);

    if (options.contains(u"type")) {
        const QJsonValue type = options.value(u"type");
        if (!type.isString() || type.toString().isEmpty())
            return Error{ErrorCode::InvalidArgument, QStringLiteral("Invalid option 'type': expected a queue type name")};
        config.type = type.toString();
    }

    qint64 maxDeliveries = config.maxDeliveries;
    qint64 partitions = config.partitions;
    for (const Result<void> &step :
         {readInteger(options, "max_size", 1, QueueLimits::MaxSize, config.maxSize),
          readInteger(options, "ttl", 1, QueueLimits::MaxTtlSeconds, config.ttlSeconds),
          readInteger(options, "visibility_timeout", 1, QueueLimits::MaxVisibilityTimeoutSeconds,
                      config.visibilityTimeoutSeconds),
          readInteger(options, "max_deliveries", 1, QueueLimits::MaxDeliveries, maxDeliveries),
          readInteger(options, "partitions", 1, QueueLimits::MaxPartitions, partitions)}) {
        if (!step.ok())
            return step.error();
    }
    config.maxDeliveries = int(maxDeliveries);
    config.partitions = int(partitions);

    const QJsonValue dlq = options.value(u"dead_letter_queue");
    if (dlq.isBool()) {
        if (dlq.toBool())
            config.deadLetterQueue = queueName + QStringLiteral(".dlq");
    } else if (dlq.isString()) {
        config.deadLetterQueue = dlq.toString();
    } else if (!dlq.isUndefined() && !dlq.isNull()) {
        return Error{ErrorCode::InvalidArgument,
                     QStringLiteral("Invalid option 'dead_letter_queue': expected a queue name, true or false")};
    }
    if (!config.deadLetterQueue.isEmpty()) {
        if (!QueueName::isValid(config.deadLetterQueue))
            return Error{ErrorCode::InvalidArgument,
                         QStringLiteral("Invalid option 'dead_letter_queue': not a valid queue name")};
        if (config.deadLetterQueue == queueName)
            return Error{ErrorCode::InvalidArgument,
                         QStringLiteral("Invalid option 'dead_letter_queue': a queue cannot be its own dead-letter queue")};
    }
    return config;
}

QJsonObject QueueConfig::toJson() const
{
    QJsonObject json;
    json.insert(u"type", type);
    json.insert(u"max_size", maxSize);
    json.insert(u"ttl", ttlSeconds);
    json.insert(u"visibility_timeout", visibilityTimeoutSeconds);
    json.insert(u"max_deliveries", maxDeliveries);
    json.insert(u"dead_letter_queue", deadLetterQueue.isEmpty() ? QJsonValue() : QJsonValue(deadLetterQueue));
    if (partitions > 1) // a plain queue's configuration reads as gCore's
        json.insert(u"partitions", partitions);
    return json;
}

QDataStream &operator<<(QDataStream &out, const QueueConfig &config)
{
    return out << config.type << qint64(config.maxSize) << qint64(config.ttlSeconds)
               << qint64(config.visibilityTimeoutSeconds) << qint32(config.maxDeliveries) << config.deadLetterQueue;
}

QDataStream &operator>>(QDataStream &in, QueueConfig &config)
{
    qint64 maxSize = 0, ttl = 0, visibility = 0;
    qint32 maxDeliveries = 0;
    in >> config.type >> maxSize >> ttl >> visibility >> maxDeliveries >> config.deadLetterQueue;
    config.maxSize = maxSize;
    config.ttlSeconds = ttl;
    config.visibilityTimeoutSeconds = visibility;
    config.maxDeliveries = maxDeliveries;
    return in;
}

} // namespace Broker
