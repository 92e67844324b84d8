// SPDX-License-Identifier: GPL-3.0-or-later
#include "journalrecord.h"

#include <QDataStream>
#include <QIODevice>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace Broker {

namespace {

constexpr QDataStream::Version StreamVersion = QDataStream::Qt_6_4;

QByteArray headersText(const QJsonObject &headers)
{
    return headers.isEmpty() ? QByteArray() : QJsonDocument(headers).toJson(QJsonDocument::Compact);
}

QJsonObject headersFrom(const QByteArray &text)
{
    return text.isEmpty() ? QJsonObject() : QJsonDocument::fromJson(text).object();
}

void writeRef(QDataStream &out, const MessageRef &ref)
{
    out << ref.id << ref.receipt << ref.group << ref.user;
}

void readRef(QDataStream &in, MessageRef &ref)
{
    in >> ref.id >> ref.receipt >> ref.group >> ref.user;
}

} // namespace

QByteArray JournalRecord::encode() const
{
    QByteArray bytes;
    QDataStream out(&bytes, QIODevice::WriteOnly);
    out.setVersion(StreamVersion);
    out << quint8(kind) << timeMs << receipts;
    switch (kind) {
    case Kind::Seed:
    case Kind::Base: out << sequence; break;
    case Kind::CreateQueue:
        out << queue << config;
        if (config.partitions > 1) // after the rest, so that records written before partitions still read
            out << qint32(config.partitions);
        break;
    case Kind::UpdateQueue: out << queue << change; break;
    case Kind::DeleteQueue:
    case Kind::PurgeQueue: out << queue; break;
    case Kind::Publish:
        out << queue << user << quint32(messages.size());
        for (const NewMessage &message : messages)
            out << message.data << headersText(message.headers) << qint32(message.priority) << message.delayMs;
        break;
    case Kind::Consume:
        out << queue << qint32(consume.count) << consume.acknowledge << consume.visibilityTimeoutMs << consume.group
            << consume.consumer << consume.user;
        break;
    case Kind::Ack: out << queue; writeRef(out, ref); break;
    case Kind::Nack:
    case Kind::Extend: out << queue; writeRef(out, ref); out << amount; break;
    case Kind::Redrive: out << queue << amount << user; break;
    case Kind::MessageAction:
        out << queue << quint8(action.kind) << action.ids << action.target << action.user;
        break;
    case Kind::RedriveSelected: {
        out << queue << redrive.limit << redrive.ids << redrive.user << quint32(redrive.edits.size());
        // In id order, so that one request always gives the same bytes.
        QList<QString> edited = redrive.edits.keys();
        std::sort(edited.begin(), edited.end());
        for (const QString &id : edited)
            out << id << redrive.edits.value(id);
        break;
    }
    case Kind::Maintenance: break;
    }
    return bytes;
}

Result<JournalRecord> JournalRecord::decode(const QByteArray &payload)
{
    QDataStream in(payload);
    in.setVersion(StreamVersion);
    JournalRecord record;
    quint8 kind = 0;
    in >> kind >> record.timeMs >> record.receipts;
    if (kind < quint8(Kind::Seed) || kind > quint8(Kind::RedriveSelected))
        return Error{ErrorCode::Internal, QStringLiteral("unknown record kind %1").arg(kind)};
    record.kind = Kind(kind);
    switch (record.kind) {
    case Kind::Seed:
    case Kind::Base: in >> record.sequence; break;
    case Kind::CreateQueue:
        in >> record.queue >> record.config;
        if (!in.atEnd()) {
            qint32 partitions = 1;
            in >> partitions;
            record.config.partitions = partitions;
        }
        break;
    case Kind::UpdateQueue: in >> record.queue >> record.change; break;
    case Kind::DeleteQueue:
    case Kind::PurgeQueue: in >> record.queue; break;
    case Kind::Publish: {
        quint32 count = 0;
        in >> record.queue >> record.user >> count;
        // The count comes from disk: grow as records are actually read, never trust it up front.
        for (quint32 i = 0; i < count && in.status() == QDataStream::Ok; ++i) {
            NewMessage message;
            QByteArray headers;
            qint32 priority = 0;
            in >> message.data >> headers >> priority >> message.delayMs;
            message.headers = headersFrom(headers);
            message.priority = priority;
            record.messages.append(std::move(message));
        }
        break;
    }
    case Kind::Consume: {
        qint32 count = 0;
        in >> record.queue >> count >> record.consume.acknowledge >> record.consume.visibilityTimeoutMs
            >> record.consume.group >> record.consume.consumer >> record.consume.user;
        record.consume.count = count;
        break;
    }
    case Kind::Ack: in >> record.queue; readRef(in, record.ref); break;
    case Kind::Nack:
    case Kind::Extend: in >> record.queue; readRef(in, record.ref); in >> record.amount; break;
    case Kind::Redrive: in >> record.queue >> record.amount >> record.user; break;
    case Kind::MessageAction: {
        quint8 action = 0;
        in >> record.queue >> action >> record.action.ids >> record.action.target >> record.action.user;
        if (action > quint8(MessageAction::Kind::DeadLetter))
            in.setStatus(QDataStream::ReadCorruptData);
        record.action.kind = MessageAction::Kind(action);
        break;
    }
    case Kind::RedriveSelected: {
        quint32 edits = 0;
        in >> record.queue >> record.redrive.limit >> record.redrive.ids >> record.redrive.user >> edits;
        for (quint32 i = 0; i < edits && in.status() == QDataStream::Ok; ++i) {
            QString id;
            QByteArray edited;
            in >> id >> edited;
            record.redrive.edits.insert(id, edited);
        }
        break;
    }
    case Kind::Maintenance: break;
    }
    if (in.status() != QDataStream::Ok || !in.atEnd())
        return Error{ErrorCode::Internal, QStringLiteral("malformed %1 record").arg(kind)};
    return record;
}

quint64 JournalRecord::baseOf(const QByteArray &payload)
{
    const Result<JournalRecord> record = decode(payload);
    return record && record->kind == Kind::Base ? record->sequence : 0;
}

} // namespace Broker
