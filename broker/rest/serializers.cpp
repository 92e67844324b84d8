// SPDX-License-Identifier: GPL-3.0-or-later
#include "serializers.h"

#include "core/jsonwriter.h"

#include "core/messageid.h"
#include "core/messagejson.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace Broker::Rest {

void writeQueueConfig(JsonWriter &out, const QueueConfig &config)
{
    out.beginObject();
    out.key("dead_letter_queue");
    if (config.deadLetterQueue.isEmpty())
        out.null();
    else
        out.value(config.deadLetterQueue);
    out.key("max_deliveries").value(config.maxDeliveries);
    out.key("max_size").value(config.maxSize);
    out.key("ttl").value(config.ttlSeconds);
    out.key("type").value(config.type);
    out.key("visibility_timeout").value(config.visibilityTimeoutSeconds);
    if (config.partitions > 1) // a plain queue's configuration reads as gCore's
        out.key("partitions").value(qint64(config.partitions));
    out.endObject();
}

void writeRates(JsonWriter &out, const QueueRates &rates)
{
    out.beginObject();
    out.key("publish_per_second").value(rates.publish1s);
    out.key("publish_per_second_1m").value(rates.publish1m);
    out.key("consume_per_second").value(rates.consume1s);
    out.key("consume_per_second_1m").value(rates.consume1m);
    out.endObject();
}

void writeQueue(JsonWriter &out, const QueueInfo &queue, bool detail, const QString &durability)
{
    out.beginObject();
    out.key("name").value(queue.name);
    out.key("created").value(queue.created);
    out.key("message_count").value(queue.depth);
    out.key("config");
    writeQueueConfig(out, queue.config);
    out.key("stats").beginObject();
    out.key("publish_count").value(queue.counters.published);
    out.key("consume_count").value(queue.counters.delivered);
    if (detail) {
        out.key("ack_count").value(queue.counters.acked);
        out.key("nack_count").value(queue.counters.nacked);
        out.key("expired_count").value(queue.counters.expired);
        out.key("dead_letter_count").value(queue.counters.deadLettered);
        out.key("dropped_count").value(queue.counters.dropped);
        out.key("redrive_count").value(queue.counters.redriven);
    }
    out.endObject();
    if (!detail) {
        out.endObject();
        return;
    }
    out.key("type").value(queue.config.type);
    out.key("in_flight").value(queue.inFlight);
    out.key("delayed").value(queue.delayed);
    out.key("dead_lettered").value(queue.counters.deadLettered);
    if (!durability.isEmpty())
        out.key("durability").value(durability);
    out.key("rates");
    writeRates(out, queue.rates);
    if (!queue.groups.isEmpty()) {
        out.key("groups").beginArray();
        for (const ConsumerGroupInfo &group : queue.groups) {
            out.beginObject();
            out.key("name").value(group.name);
            out.key("pending").value(group.pending);
            out.key("lag").value(group.lag);
            out.key("consumers").beginArray();
            for (const QString &consumer : group.consumers)
                out.value(consumer);
            out.endArray();
            out.endObject();
        }
        out.endArray();
    }
    if (!queue.partitions.isEmpty()) {
        out.key("partitions").beginArray();
        for (const PartitionInfo &partition : queue.partitions) {
            out.beginObject();
            out.key("index").value(qint64(partition.index));
            out.key("message_count").value(partition.depth);
            out.key("in_flight").value(partition.inFlight);
            out.key("delayed").value(partition.delayed);
            out.key("publish_count").value(partition.counters.published);
            out.key("consume_count").value(partition.counters.delivered);
            out.key("rates");
            writeRates(out, partition.rates);
            out.endObject();
        }
        out.endArray();
    }
    out.endObject();
}

void writeMessage(JsonWriter &out, const Message &message)
{
    out.beginObject();
    writeMessageFields(out, message);
    out.endObject();
}

void writeBrowsedMessage(JsonWriter &out, const Message &message, const char *state)
{
    out.beginObject();
    writeMessageFields(out, message);
    out.key("state").value(QString::fromLatin1(state));
    if (message.leaseDeadlineMs > 0)
        out.key("lease_expires").value(unixSeconds(message.leaseDeadlineMs));
    out.endObject();
}

QJsonObject userJson(const User &user)
{
    QJsonObject json;
    json.insert(QStringLiteral("id"), user.id);
    json.insert(QStringLiteral("name"), user.name);
    json.insert(QStringLiteral("roles"), QJsonArray::fromStringList(user.roles));
    json.insert(QStringLiteral("key_prefix"), user.keyPrefix);
    json.insert(QStringLiteral("created"), unixSeconds(user.createdMs));
    json.insert(QStringLiteral("last_used"), user.lastUsedMs > 0 ? QJsonValue(unixSeconds(user.lastUsedMs)) : QJsonValue());
    json.insert(QStringLiteral("disabled"), user.disabled);
    return json;
}

QJsonObject eventJson(const MessageEvent &event)
{
    QJsonObject json;
    json.insert(QStringLiteral("number"), qint64(event.number));
    json.insert(QStringLiteral("time"), unixSeconds(event.timeMs));
    json.insert(QStringLiteral("event"), QString::fromLatin1(messageEventKindName(event.kind)));
    json.insert(QStringLiteral("queue"), event.queue);
    if (event.sequence != 0)
        json.insert(QStringLiteral("message_id"), MessageId::format(event.sequence));
    json.insert(QStringLiteral("delivery_count"), event.deliveryCount);
    if (!event.user.isEmpty())
        json.insert(QStringLiteral("user"), event.user);
    if (!event.detail.isEmpty())
        json.insert(QStringLiteral("detail"), event.detail);
    return json;
}

QJsonObject eventJson(const MessageEvent &event, const std::function<bool(const QString &queue)> &mayPeek)
{
    if (event.kind != MessageEventKind::Redriven || mayPeek(event.detail))
        return eventJson(event);
    MessageEvent shown = event;
    shown.detail.clear();
    return eventJson(shown);
}

} // namespace Broker::Rest
