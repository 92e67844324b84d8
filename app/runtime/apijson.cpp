// SPDX-License-Identifier: GPL-3.0-or-later
#include "apijson.h"

#include "core/messageid.h"

#include <QJsonArray>

#include <cmath>

namespace Broker::ApiJson {

namespace {

qint64 integer(const QJsonObject &json, QStringView key)
{
    return json.value(key).toInteger();
}

QueueRates rates(const QJsonObject &json)
{
    QueueRates rates;
    rates.publish1s = json.value(u"publish_per_second").toDouble();
    rates.publish1m = json.value(u"publish_per_second_1m").toDouble();
    rates.consume1s = json.value(u"consume_per_second").toDouble();
    rates.consume1m = json.value(u"consume_per_second_1m").toDouble();
    return rates;
}

QueueConfig config(const QJsonObject &json)
{
    QueueConfig config;
    config.type = json.value(u"type").toString(config.type);
    config.maxSize = json.value(u"max_size").toInteger(config.maxSize);
    config.ttlSeconds = json.value(u"ttl").toInteger(config.ttlSeconds);
    config.visibilityTimeoutSeconds = json.value(u"visibility_timeout").toInteger(config.visibilityTimeoutSeconds);
    config.maxDeliveries = int(json.value(u"max_deliveries").toInteger(config.maxDeliveries));
    config.deadLetterQueue = json.value(u"dead_letter_queue").toString();
    config.partitions = int(json.value(u"partitions").toInteger(1));
    return config;
}

} // namespace

std::optional<QueueInfo> queueInfo(const QJsonObject &json)
{
    QueueInfo info;
    info.name = json.value(u"name").toString();
    if (info.name.isEmpty())
        return std::nullopt;
    info.config = config(json.value(u"config").toObject());
    info.created = json.value(u"created").toDouble();
    info.depth = integer(json, u"message_count");
    info.inFlight = integer(json, u"in_flight");
    info.delayed = integer(json, u"delayed");
    const QJsonObject stats = json.value(u"stats").toObject();
    info.counters.published = integer(stats, u"publish_count");
    info.counters.delivered = integer(stats, u"consume_count");
    info.counters.acked = integer(stats, u"ack_count");
    info.counters.nacked = integer(stats, u"nack_count");
    info.counters.expired = integer(stats, u"expired_count");
    info.counters.deadLettered = integer(stats, u"dead_letter_count");
    info.counters.dropped = integer(stats, u"dropped_count");
    info.counters.redriven = integer(stats, u"redrive_count");
    info.rates = rates(json.value(u"rates").toObject());
    for (const QJsonValue &value : json.value(u"groups").toArray()) {
        const QJsonObject group = value.toObject();
        ConsumerGroupInfo g;
        g.name = group.value(u"name").toString();
        g.pending = integer(group, u"pending");
        g.lag = integer(group, u"lag");
        for (const QJsonValue &consumer : group.value(u"consumers").toArray())
            g.consumers.append(consumer.toString());
        info.groups.append(g);
    }
    for (const QJsonValue &value : json.value(u"partitions").toArray()) {
        const QJsonObject partition = value.toObject();
        PartitionInfo p;
        p.index = int(integer(partition, u"index"));
        p.depth = integer(partition, u"message_count");
        p.inFlight = integer(partition, u"in_flight");
        p.delayed = integer(partition, u"delayed");
        p.counters.published = integer(partition, u"publish_count");
        p.counters.delivered = integer(partition, u"consume_count");
        p.rates = rates(partition.value(u"rates").toObject());
        info.partitions.append(p);
    }
    return info;
}

std::optional<QueueInfo> createdQueue(const QJsonObject &json)
{
    QueueInfo info;
    info.name = json.value(u"queue").toString();
    if (info.name.isEmpty())
        return std::nullopt;
    info.config = config(json.value(u"config").toObject());
    info.created = json.value(u"created").toDouble();
    return info;
}

std::optional<MessageEvent> messageEvent(const QJsonObject &json)
{
    const std::optional<MessageEventKind> kind = messageEventKindFromName(json.value(u"event").toString());
    if (!kind)
        return std::nullopt;
    MessageEvent event;
    event.kind = *kind;
    event.number = quint64(integer(json, u"number"));
    event.timeMs = qint64(std::llround(json.value(u"time").toDouble() * 1000));
    event.deliveryCount = int(integer(json, u"delivery_count"));
    event.sequence = MessageId::parse(json.value(u"message_id").toString()).value_or(0);
    event.queue = json.value(u"queue").toString();
    event.user = json.value(u"user").toString();
    event.detail = json.value(u"detail").toString();
    return event;
}

void applyBrokerCounters(const QJsonObject &json, BrokerSnapshot &snapshot)
{
    const QString status = json.value(u"status").toString();
    snapshot.health = status == u"healthy"    ? HealthStatus::Healthy
                    : status == u"degraded" ? HealthStatus::Degraded
                                            : HealthStatus::Unhealthy;
    snapshot.storage = json.value(u"storage").toString();
    snapshot.messagesTotal = integer(json, u"messages_total");
    snapshot.messagesProcessed = integer(json, u"messages_processed");
    snapshot.rates = rates(json.value(u"rates").toObject());
    snapshot.storeStatus.writable = json.value(u"writable").toBool(true);
    snapshot.storeStatus.breaker = json.value(u"breaker").toString();
}

} // namespace Broker::ApiJson
