// SPDX-License-Identifier: GPL-3.0-or-later
#include "storedmessage.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <cstring>

namespace Broker {

void StoredMessage::setData(QByteArrayView bytes)
{
    payloadSize = quint32(bytes.size());
    payload = std::make_unique_for_overwrite<char[]>(std::size_t(bytes.size()));
    if (!bytes.isEmpty())
        std::memcpy(payload.get(), bytes.data(), std::size_t(bytes.size()));
}

MessageExtras &StoredMessage::ensureExtras()
{
    if (!extras)
        extras = std::make_unique<MessageExtras>();
    return *extras;
}

StoredMessage StoredMessage::clone() const
{
    StoredMessage copy;
    copy.sequence = sequence;
    copy.timestampUs = timestampUs;
    copy.notBeforeMs = notBeforeMs;
    copy.priority = priority;
    copy.deliveryCount = deliveryCount;
    copy.publisher = publisher;
    copy.setData(data());
    if (extras)
        copy.extras = std::make_unique<MessageExtras>(*extras);
    return copy;
}

qint64 StoredMessage::ttlStartMs() const
{
    if (extras && extras->ttlStartMs != 0)
        return extras->ttlStartMs;
    return timestampUs / 1000;
}

void writeStoredMessage(QDataStream &out, const StoredMessage &message)
{
    out << message.sequence << message.timestampUs << message.notBeforeMs << message.priority << message.deliveryCount
        << message.publisher;
    // The same bytes as streaming a QByteArray, without copying the payload into one first.
    out.writeBytes(message.data().data(), uint(message.data().size()));
    const MessageExtras *extras = message.extras.get();
    out << bool(extras);
    if (extras) {
        out << QJsonDocument(extras->headers).toJson(QJsonDocument::Compact) << extras->originQueue
            << extras->deadLetterReason << extras->deadLetteredAtMs << extras->ttlStartMs;
    }
}

StoredMessage readStoredMessage(QDataStream &in)
{
    StoredMessage message;
    QByteArray data;
    bool hasExtras = false;
    in >> message.sequence >> message.timestampUs >> message.notBeforeMs >> message.priority >> message.deliveryCount
        >> message.publisher >> data >> hasExtras;
    message.setData(data);
    if (hasExtras) {
        MessageExtras &extras = message.ensureExtras();
        QByteArray headers;
        in >> headers >> extras.originQueue >> extras.deadLetterReason >> extras.deadLetteredAtMs >> extras.ttlStartMs;
        extras.headers = QJsonDocument::fromJson(headers).object();
    }
    return message;
}

} // namespace Broker
