// SPDX-License-Identifier: GPL-3.0-or-later
#include "serializers.h"

#include "jsonwriter.h"

#include "core/messageid.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace Broker::Rest {

double unixSeconds(qint64 ms)
{
    return double(ms) / 1000.0;
}

QByteArray compactJson(const QJsonValue &value)
{
    if (value.isObject())
        return QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact);
    if (value.isArray())
        return QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact);
    QByteArray wrapped = QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact);
    return wrapped.mid(1, wrapped.size() - 2); // strip the brackets
}

QJsonObject queueJson(const QueueInfo &queue, bool detail)
{
    QJsonObject json;
    json.insert(QStringLiteral("name"), queue.name);
    json.insert(QStringLiteral("created"), queue.created);
    json.insert(QStringLiteral("message_count"), queue.depth);
    QJsonObject stats;
    stats.insert(QStringLiteral("publish_count"), queue.counters.published);
    stats.insert(QStringLiteral("consume_count"), queue.counters.delivered);
    json.insert(QStringLiteral("config"), queue.config.toJson());
    if (!detail) {
        json.insert(QStringLiteral("stats"), stats);
        return json;
    }
    stats.insert(QStringLiteral("ack_count"), queue.counters.acked);
    stats.insert(QStringLiteral("nack_count"), queue.counters.nacked);
    stats.insert(QStringLiteral("expired_count"), queue.counters.expired);
    stats.insert(QStringLiteral("dead_letter_count"), queue.counters.deadLettered);
    stats.insert(QStringLiteral("dropped_count"), queue.counters.dropped);
    stats.insert(QStringLiteral("redrive_count"), queue.counters.redriven);
    json.insert(QStringLiteral("stats"), stats);
    json.insert(QStringLiteral("type"), queue.config.type);
    json.insert(QStringLiteral("in_flight"), queue.inFlight);
    json.insert(QStringLiteral("delayed"), queue.delayed);
    json.insert(QStringLiteral("dead_lettered"), queue.counters.deadLettered);
    QJsonObject rates;
    rates.insert(QStringLiteral("publish_per_second"), queue.rates.publish1s);
    rates.insert(QStringLiteral("publish_per_second_1m"), queue.rates.publish1m);
    rates.insert(QStringLiteral("consume_per_second"), queue.rates.consume1s);
    rates.insert(QStringLiteral("consume_per_second_1m"), queue.rates.consume1m);
    json.insert(QStringLiteral("rates"), rates);
    if (!queue.groups.isEmpty()) {
        QJsonArray groups;
        for (const ConsumerGroupInfo &group : queue.groups) {
            QJsonObject g;
            g.insert(QStringLiteral("name"), group.name);
            g.insert(QStringLiteral("pending"), group.pending);
            g.insert(QStringLiteral("lag"), group.lag);
            g.insert(QStringLiteral("consumers"), QJsonArray::fromStringList(group.consumers));
            groups.append(g);
        }
        json.insert(QStringLiteral("groups"), groups);
    }
    return json;
}

void writeMessage(JsonWriter &out, const Message &message)
{
    out.beginObject();
    out.key("id").value(message.id);
    out.key("timestamp").value(message.timestamp);
    out.key("data").raw(message.data);
    out.key("publisher").value(message.publisher);
    out.key("delivery_count").value(message.deliveryCount);
    if (message.receipt.isEmpty())
        out.key("receipt").null();
    else
        out.key("receipt").value(message.receipt);
    out.key("priority").value(message.priority);
    if (!message.headers.isEmpty())
        out.key("headers").raw(compactJson(message.headers));
    if (message.leaseDeadlineMs > 0)
        out.key("visible_at").value(unixSeconds(message.leaseDeadlineMs));
    if (!message.group.isEmpty())
        out.key("group").value(message.group);
    if (!message.originQueue.isEmpty()) {
        out.key("origin_queue").value(message.originQueue);
        out.key("dead_letter_reason").value(message.deadLetterReason);
        out.key("dead_lettered_at").value(message.deadLetteredAt);
    }
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

} // namespace Broker::Rest
