// SPDX-License-Identifier: GPL-3.0-or-later
#include "storedmessage.h"

#include <QJsonDocument>
#include <QtEndian>
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
    // The same bytes as streaming each field (QDataStream is big-endian), in one device write
    // instead of six: snapshots of a million messages pause the engine for less.
    char fixed[36];
    qToBigEndian<quint64>(message.sequence, fixed);
    qToBigEndian<qint64>(message.timestampUs, fixed + 8);
    qToBigEndian<qint64>(message.notBeforeMs, fixed + 16);
    qToBigEndian<qint32>(message.priority, fixed + 24);
    qToBigEndian<quint32>(message.deliveryCount, fixed + 28);
    qToBigEndian<quint32>(message.publisher, fixed + 32);
    out.writeRawData(fixed, sizeof fixed);
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
