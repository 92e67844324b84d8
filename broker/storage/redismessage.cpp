// SPDX-License-Identifier: GPL-3.0-or-later
#include "redismessage.h"

#include "core/jsonfields.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <charconv>

namespace Broker::RedisMessage {

using JsonFields::appendString;

namespace {

// QByteArray::number goes through snprintf: about 500 instructions a number.
void appendNumber(QByteArray &out, qint64 number)
{
    char digits[24];
    const auto written = std::to_chars(digits, digits + sizeof digits, number);
    out.append(digits, written.ptr - digits);
}

} // namespace

QByteArray encode(const QString &id, qint64 publishedUs, const NewMessage &message, const QString &publisher)
{
    // Most messages have no headers: "{}" without making a document for them.
    const QByteArray headers = message.headers.isEmpty() ? QByteArrayLiteral("{}")
                                                         : QJsonDocument(message.headers).toJson(QJsonDocument::Compact);
    QByteArray out;
    out.reserve(96 + message.data.size() * 11 / 10 + headers.size());
    out += "{\"id\":\"";
    out += id.toLatin1();
    out += "\",\"ts\":";
    appendNumber(out, publishedUs / 1000);
    out += ",\"pr\":";
    appendNumber(out, message.priority);
    out += ",\"t\":";
    appendNumber(out, publishedUs);
    out += ",\"p\":";
    appendString(out, publisher.toUtf8());
    out += ",\"h\":";
    out += headers;
    out += ",\"d\":";
    appendString(out, message.data);
    out += '}';
    return out;
}

bool decode(const QByteArray &stored, const QString &queue, Message &out)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(stored, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        return false;
    const QJsonObject object = document.object();
    const QJsonValue data = object.value(QLatin1StringView("d"));
    if (!data.isString())
        return false;
    out.id = object.value(QLatin1StringView("id")).toString();
    out.queue = queue;
    out.data = data.toString().toUtf8();
    out.headers = object.value(QLatin1StringView("h")).toObject();
    out.publisher = object.value(QLatin1StringView("p")).toString();
    out.timestamp = object.value(QLatin1StringView("t")).toDouble() / 1e6;
    out.priority = object.value(QLatin1StringView("pr")).toInt();
    const QJsonObject deadLetter = object.value(QLatin1StringView("dl")).toObject();
    out.originQueue = deadLetter.value(QLatin1StringView("q")).toString();
    out.deadLetterReason = deadLetter.value(QLatin1StringView("r")).toString();
    out.deadLetteredAt = deadLetter.value(QLatin1StringView("at")).toDouble() / 1000.0;
    return !out.id.isEmpty();
}

QString idOf(const QByteArray &stored)
{
    // {"id":"<id>", — the id is always first.
    constexpr qsizetype Start = 7;
    const qsizetype end = stored.indexOf('"', Start);
    if (!stored.startsWith("{\"id\":\"") || end < 0)
        return {};
    return QString::fromLatin1(stored.mid(Start, end - Start));
}

} // namespace Broker::RedisMessage
