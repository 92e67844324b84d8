// SPDX-License-Identifier: GPL-3.0-or-later
#include "messagejson.h"

#include "jsonwriter.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace Broker {

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

void writeMessageFields(JsonWriter &out, const Message &message)
{
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
    // When it can be delivered (again): a lease's end, or a delayed message's due time.
    if (message.leaseDeadlineMs > 0)
        out.key("visible_at").value(unixSeconds(message.leaseDeadlineMs));
    else if (message.dueMs > 0)
        out.key("visible_at").value(unixSeconds(message.dueMs));
    if (!message.group.isEmpty())
        out.key("group").value(message.group);
    if (!message.originQueue.isEmpty()) {
        out.key("origin_queue").value(message.originQueue);
        out.key("dead_letter_reason").value(message.deadLetterReason);
        out.key("dead_lettered_at").value(message.deadLetteredAt);
    }
}

QByteArray messageJson(const Message &message)
{
    JsonWriter out;
    out.beginObject();
    writeMessageFields(out, message);
    out.endObject();
    return out.text();
}

} // namespace Broker
