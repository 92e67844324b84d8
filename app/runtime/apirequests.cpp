// SPDX-License-Identifier: GPL-3.0-or-later
#include "apirequests.h"

#include "core/jsonwriter.h"
#include "core/messagejson.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QUrl>

namespace Broker::ApiRequests {

namespace {

QByteArray compact(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

QString encoded(const QString &text)
{
    return QString::fromLatin1(QUrl::toPercentEncoding(text));
}

// Whether two messages carry the same options, the part of a batch body they share.
bool sameOptions(const NewMessage &a, const NewMessage &b)
{
    return a.priority == b.priority && a.delayMs == b.delayMs && a.headers == b.headers && a.key == b.key;
}

// The options of `message` that differ from a publish's defaults.
void writeOptions(JsonWriter &out, const NewMessage &message)
{
    if (message.priority != 0)
        out.key("priority").value(qint64(message.priority));
    // The API takes seconds with a fraction; whole seconds go as integers.
    if (message.delayMs % 1000 == 0 && message.delayMs != 0)
        out.key("delay").value(message.delayMs / 1000);
    else if (message.delayMs != 0)
        out.key("delay").value(double(message.delayMs) / 1000.0);
    if (!message.headers.isEmpty())
        out.key("headers").raw(compact(message.headers));
    if (!message.key.isEmpty())
        out.key("key").value(message.key);
}

} // namespace

QString segment(const QString &text)
{
    return encoded(text);
}

QByteArray createQueue(const QString &name, const QueueConfig &config)
{
    return compact(QJsonObject{{QStringLiteral("name"), name}, {QStringLiteral("options"), config.toJson()}});
}

QByteArray updateQueue(const QueueConfigChange &change)
{
    QJsonObject options;
    if (change.maxSize)
        options.insert(u"max_size", *change.maxSize);
    if (change.ttlSeconds)
        options.insert(u"ttl", *change.ttlSeconds);
    if (change.visibilityTimeoutSeconds)
        options.insert(u"visibility_timeout", *change.visibilityTimeoutSeconds);
    if (change.maxDeliveries)
        options.insert(u"max_deliveries", *change.maxDeliveries);
    if (change.deadLetterQueue)
        options.insert(u"dead_letter_queue", change.deadLetterQueue->isEmpty() ? QJsonValue(false) : QJsonValue(*change.deadLetterQueue));
    if (change.partitions)
        options.insert(u"partitions", *change.partitions);
    return compact(QJsonObject{{QStringLiteral("options"), options}});
}

Result<Publish> publish(const QString &queue, const QList<NewMessage> &messages)
{
    if (messages.isEmpty())
        return Error{ErrorCode::InvalidArgument, QStringLiteral("Messages are required")};
    for (const NewMessage &message : messages) {
        // Sent as it is, an empty payload would make the body invalid JSON.
        if (message.data.trimmed().isEmpty())
            return Error{ErrorCode::InvalidArgument, QStringLiteral("Message is required")};
        if (!sameOptions(message, messages.first()))
            return Error{ErrorCode::InvalidArgument,
                         QStringLiteral("The messages of one batch must share priority, delay, headers and key"),
                         QStringLiteral("The API publishes a batch with one set of options; publish messages that differ "
                                        "in them one by one")};
    }
    JsonWriter out;
    out.beginObject();
    if (messages.size() == 1) {
        out.key("message").raw(messages.first().data);
    } else {
        out.key("messages").beginArray();
        for (const NewMessage &message : messages)
            out.raw(message.data);
        out.endArray();
    }
    writeOptions(out, messages.first());
    out.endObject();
    const QString path = QStringLiteral("/messages/") + segment(queue);
    return Publish{messages.size() == 1 ? path : path + QStringLiteral("/batch"), out.text()};
}

QString browseQuery(const BrowseQuery &query)
{
    QString out = QStringLiteral("state=%1&offset=%2&limit=%3")
                      .arg(QString::fromLatin1(messageStateName(query.state)))
                      .arg(query.offset)
                      .arg(query.limit);
    if (!query.text.isEmpty())
        out += QStringLiteral("&q=") + encoded(query.text);
    if (!query.headerKey.isEmpty()) {
        // key:value matches that value; a key alone, any message with the header.
        const QString header = query.headerValue ? query.headerKey + u':' + *query.headerValue : query.headerKey;
        out += QStringLiteral("&header=") + encoded(header);
    }
    if (!query.id.isEmpty())
        out += QStringLiteral("&id=") + encoded(query.id);
    return out;
}

QByteArray redrive(const RedriveRequest &request)
{
    JsonWriter out;
    out.beginObject();
    if (request.limit > 0)
        out.key("limit").value(request.limit);
    if (!request.ids.isEmpty()) {
        out.key("ids").beginArray();
        for (const QString &id : request.ids)
            out.value(id);
        out.endArray();
    }
    if (!request.edits.isEmpty()) {
        out.key("edits").beginObject();
        for (auto it = request.edits.cbegin(); it != request.edits.cend(); ++it) {
            // JsonWriter::key takes plain ASCII names; an id is written as a string, then a colon.
            out.raw(compactJson(it.key()) + ':' + it.value());
        }
        out.endObject();
    }
    if (request.dryRun)
        out.key("dry_run").value(true);
    out.endObject();
    return out.text();
}

QByteArray messageAction(const MessageAction &action)
{
    QJsonObject json{{QStringLiteral("action"), QString::fromLatin1(messageActionName(action.kind))},
                     {QStringLiteral("ids"), QJsonArray::fromStringList(action.ids)}};
    if (action.kind == MessageAction::Kind::Move)
        json.insert(u"target", action.target);
    return compact(json);
}

QByteArray addUser(const QString &id, const QString &name, const QStringList &roles)
{
    return compact(QJsonObject{{QStringLiteral("id"), id},
                               {QStringLiteral("name"), name},
                               {QStringLiteral("roles"), QJsonArray::fromStringList(roles)}});
}

QByteArray setRoles(const QStringList &roles)
{
    return compact(QJsonObject{{QStringLiteral("roles"), QJsonArray::fromStringList(roles)}});
}

QByteArray setDisabled(bool disabled)
{
    return compact(QJsonObject{{QStringLiteral("disabled"), disabled}});
}

} // namespace Broker::ApiRequests
