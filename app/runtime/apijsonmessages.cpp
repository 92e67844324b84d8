// SPDX-License-Identifier: GPL-3.0-or-later
// ApiJson's readers of message answers: browse pages, publishes, redrives, message actions. Payloads
// are taken out of the answer's text, not out of a QJsonDocument, which would sort an object's
// keys and round integers beyond 2^53: an admin sees, edits and redrives the bytes the broker holds.
#include "apijson.h"
#include "apijsonfields.h"

#include "core/messageid.h"
#include "rest/jsonscanner.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <cmath>

namespace Broker::ApiJson {

namespace {

// Answers nest payloads a few levels below the broker's own request limit (64).
constexpr int MaxAnswerDepth = 128;

using RawFields = QHash<QString, QByteArray>;

// For each element of the top-level array `arrayKey` of `body`: the compact JSON text of its
// members named in `fields` (absent ones are left out). Nothing when `body` is not an object.
std::optional<QList<RawFields>> rawFieldsOfElements(const QByteArray &body, QStringView arrayKey, const QStringList &fields)
{
    using Rest::JsonScanner;
    const Result<QList<JsonScanner::Member>> members = JsonScanner::objectMembers(body, MaxAnswerDepth);
    if (!members)
        return std::nullopt;
    QList<RawFields> out;
    for (const JsonScanner::Member &member : *members) {
        if (member.key != arrayKey)
            continue;
        for (const Rest::JsonSpan &element : member.elements) {
            const QByteArrayView text = QByteArrayView(body).sliced(element.begin, element.size());
            RawFields raw;
            if (const Result<QList<JsonScanner::Member>> inner = JsonScanner::objectMembers(text, MaxAnswerDepth)) {
                for (const JsonScanner::Member &field : *inner) {
                    if (fields.contains(field.key))
                        raw.insert(field.key, JsonScanner::compact(text, field.value));
                }
            }
            out.append(raw);
        }
    }
    return out;
}

using Fields::millis;
using Fields::strings;

// A message as writeBrowsedMessage writes it; `data` is its payload's text.
Message browsedMessage(const QJsonObject &json, const QByteArray &data, const QString &queue)
{
    Message message;
    message.id = json.value(u"id").toString();
    message.data = data;
    message.timestamp = json.value(u"timestamp").toDouble();
    message.publisher = json.value(u"publisher").toString();
    message.deliveryCount = int(json.value(u"delivery_count").toInteger());
    message.receipt = json.value(u"receipt").toString(); // browsing never shows one; kept if it does
    message.priority = int(json.value(u"priority").toInteger());
    message.headers = json.value(u"headers").toObject();
    // visible_at is a lease's end when the message is leased (lease_expires says so), else a
    // delayed message's due time.
    if (json.contains(u"lease_expires"))
        message.leaseDeadlineMs = millis(json.value(u"lease_expires"));
    else if (json.contains(u"visible_at"))
        message.dueMs = millis(json.value(u"visible_at"));
    message.group = json.value(u"group").toString();
    message.originQueue = json.value(u"origin_queue").toString();
    message.deadLetterReason = json.value(u"dead_letter_reason").toString();
    message.deadLetteredAt = json.value(u"dead_lettered_at").toDouble();
    message.queue = json.value(u"state").toString() == u"dead" ? QString() : queue;
    return message;
}

} // namespace

std::optional<BrowsePage> browsePage(const QByteArray &body, const QString &queue)
{
    const QJsonObject json = QJsonDocument::fromJson(body).object();
    const QJsonValue messages = json.value(u"messages");
    const std::optional<QList<RawFields>> raw = rawFieldsOfElements(body, u"messages", {QStringLiteral("data")});
    if (!messages.isArray() || !raw || raw->size() != messages.toArray().size())
        return std::nullopt;
    BrowsePage page;
    const QJsonArray array = messages.toArray();
    for (qsizetype i = 0; i < array.size(); ++i)
        page.messages.append(browsedMessage(array.at(i).toObject(), raw->at(i).value(QStringLiteral("data")), queue));
    page.total = json.value(u"total").toInteger();
    page.nextOffset = json.value(u"next_offset").toInteger(-1); // null: nothing after this page
    page.scanned = json.value(u"scanned").toInteger();
    page.truncated = json.value(u"truncated").toBool();
    return page;
}

std::optional<PublishResult> publishResult(const QJsonObject &json)
{
    QList<QString> ids;
    if (json.contains(u"message_ids"))
        ids = strings(json.value(u"message_ids"));
    else if (json.value(u"message_id").isString())
        ids.append(json.value(u"message_id").toString());
    if (ids.isEmpty())
        return std::nullopt;
    PublishResult result;
    for (const QString &id : ids) {
        // A broker that gives ids of another form (not "msg-" + 16 hex digits) cannot be
        // represented by their numbers: such an answer is refused rather than shown wrong.
        const std::optional<quint64> sequence = MessageId::parse(id);
        if (!sequence)
            return std::nullopt;
        result.messageSequences.append(*sequence);
    }
    result.queueSize = json.value(u"queue_size").toInteger();
    return result;
}

std::optional<RedriveResult> redriveResult(const QByteArray &body)
{
    const QJsonObject json = QJsonDocument::fromJson(body).object();
    if (!json.contains(u"moved"))
        return std::nullopt;
    RedriveResult result;
    result.moved = json.value(u"moved").toInteger();
    result.missing = strings(json.value(u"missing"));
    const QJsonArray messages = json.value(u"messages").toArray();
    const std::optional<QList<RawFields>> raw =
        rawFieldsOfElements(body, u"messages", {QStringLiteral("before"), QStringLiteral("after")});
    if (!raw || raw->size() != messages.size())
        return std::nullopt;
    for (qsizetype i = 0; i < messages.size(); ++i) {
        const QJsonObject message = messages.at(i).toObject();
        RedriveItem item;
        item.id = message.value(u"id").toString();
        item.origin = message.value(u"origin_queue").toString();
        item.before = raw->at(i).value(QStringLiteral("before"));
        item.after = raw->at(i).value(QStringLiteral("after"));
        result.messages.append(item);
    }
    return result;
}

std::optional<MessageActionResult> messageActionResult(const QJsonObject &json)
{
    if (!json.contains(u"affected"))
        return std::nullopt;
    MessageActionResult result;
    result.affected = json.value(u"affected").toInteger();
    result.missing = strings(json.value(u"missing"));
    return result;
}

QList<MessageEvent> messageEvents(const QJsonObject &json)
{
    return Fields::listOf<MessageEvent>(json, u"events", messageEvent);
}

} // namespace Broker::ApiJson
