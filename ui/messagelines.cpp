// SPDX-License-Identifier: GPL-3.0-or-later
#include "messagelines.h"

#include "jsontext.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cmath>

namespace Broker::Ui::MessageLines {

namespace {

QByteArray jsonScalar(const QJsonValue &value)
{
    const QByteArray wrapped = QJsonDocument(QJsonArray{value}).toJson(QJsonDocument::Compact);
    return wrapped.mid(1, wrapped.size() - 2);
}

bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

qsizetype skipSpace(const QByteArray &text, qsizetype at)
{
    while (at < text.size() && isSpace(text.at(at)))
        ++at;
    return at;
}

// The end (one past) of the JSON value starting at `at` in valid JSON text.
qsizetype valueEnd(const QByteArray &text, qsizetype at)
{
    int depth = 0;
    for (qsizetype i = at; i < text.size(); ++i) {
        const char c = text.at(i);
        if (c == '"') {
            ++i;
            while (i < text.size() && text.at(i) != '"')
                i += text.at(i) == '\\' ? 2 : 1;
            if (depth == 0)
                return i + 1;
        } else if (c == '{' || c == '[') {
            ++depth;
        } else if (c == '}' || c == ']') {
            if (depth == 0)
                return i; // the end of the enclosing object
            if (--depth == 0)
                return i + 1;
        } else if (depth == 0 && (c == ',' || isSpace(c))) {
            return i;
        }
    }
    return text.size();
}

// The text of the top-level member `key` of a valid JSON object, exactly as written.
QByteArray rawMember(const QByteArray &object, QByteArrayView key)
{
    qsizetype at = skipSpace(object, 0) + 1; // past '{'
    while (at < object.size()) {
        at = skipSpace(object, at);
        if (at >= object.size() || object.at(at) != '"')
            return {};
        const qsizetype keyEnd = valueEnd(object, at);
        const QByteArrayView name(object.constData() + at + 1, keyEnd - at - 2);
        at = skipSpace(object, keyEnd) + 1; // past ':'
        at = skipSpace(object, at);
        const qsizetype end = valueEnd(object, at);
        if (name == key)
            return object.mid(at, end - at);
        at = skipSpace(object, end) + 1; // past ',' (or '}', which ends the loop)
    }
    return {};
}

} // namespace

QByteArray toLine(const Message &message)
{
    QByteArray line;
    line.reserve(message.data.size() + 160);
    line += "{\"id\":" + jsonScalar(message.id);
    line += ",\"timestamp\":" + jsonScalar(message.timestamp);
    line += ",\"data\":" + message.data;
    line += ",\"publisher\":" + jsonScalar(message.publisher);
    line += ",\"delivery_count\":" + QByteArray::number(message.deliveryCount);
    line += ",\"priority\":" + QByteArray::number(message.priority);
    if (!message.headers.isEmpty())
        line += ",\"headers\":" + QJsonDocument(message.headers).toJson(QJsonDocument::Compact);
    if (!message.originQueue.isEmpty()) {
        line += ",\"origin_queue\":" + jsonScalar(message.originQueue);
        line += ",\"dead_letter_reason\":" + jsonScalar(message.deadLetterReason);
        line += ",\"dead_lettered_at\":" + jsonScalar(message.deadLetteredAt);
    }
    if (message.dueMs > 0 && message.leaseDeadlineMs == 0)
        line += ",\"state\":\"delayed\",\"visible_at\":" + jsonScalar(double(message.dueMs) / 1000.0);
    line += "}\n";
    return line;
}

Result<NewMessage> fromLine(const QByteArray &line, qint64 nowMs)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(line, &error);
    if (error.error != QJsonParseError::NoError)
        return Error{ErrorCode::InvalidArgument, QStringLiteral("not JSON: %1").arg(error.errorString())};
    if (!document.isObject())
        return Error{ErrorCode::InvalidArgument, QStringLiteral("expected an object")};
    const QJsonObject object = document.object();
    if (!object.contains(u"data") || object.value(u"data").isNull())
        return Error{ErrorCode::InvalidArgument, QStringLiteral("\"data\" is missing or null")};
    const QJsonValue headers = object.value(u"headers");
    if (!headers.isUndefined() && !headers.isNull() && !headers.isObject())
        return Error{ErrorCode::InvalidArgument, QStringLiteral("\"headers\" must be an object")};
    const QJsonValue priority = object.value(u"priority");
    if (!priority.isUndefined() && !priority.isDouble())
        return Error{ErrorCode::InvalidArgument, QStringLiteral("\"priority\" must be a number")};
    NewMessage message;
    // The payload's own bytes: parsing it into a QJsonValue would sort an object's keys.
    message.data = compactJsonText(rawMember(line.trimmed(), "data"));
    message.headers = headers.toObject();
    message.priority = priority.toInt();
    if (object.value(u"state").toString() == u"delayed") {
        const QJsonValue due = object.value(u"visible_at");
        if (!due.isDouble())
            return Error{ErrorCode::InvalidArgument, QStringLiteral("a delayed message needs \"visible_at\" (unix seconds)")};
        message.delayMs = std::max<qint64>(0, qint64(std::ceil(due.toDouble() * 1000.0)) - nowMs);
    }
    return message;
}

} // namespace Broker::Ui::MessageLines
