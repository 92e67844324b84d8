// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArrayView>
#include <QDataStream>
#include <QJsonObject>
#include <QString>

#include <memory>

namespace Broker {

// What few messages carry: headers, and where a dead-lettered message came from.
struct MessageExtras
{
    QJsonObject headers;
    QString originQueue;      // set while dead-lettered
    QString deadLetterReason; // "max_deliveries", "expired", ...
    qint64 deadLetteredAtMs = 0;
    qint64 ttlStartMs = 0;    // TTL restarts when a message changes queue (dead-letter, redrive); 0: publish time

    bool isEmpty() const { return headers.isEmpty() && originQueue.isEmpty() && ttlStartMs == 0; }
};

// A message as the memory store keeps it: 64 bytes plus one allocation for the payload, so that a
// million queued 200-byte messages fit in about 270 MB. Everything rare lives behind `extras`.
// Move-only: a message is in exactly one place (ready, delayed, leased, stream log) at a time.
struct StoredMessage
{
    quint64 sequence = 0;      // the id's number; also the FIFO order of publishing
    qint64 timestampUs = 0;    // publish time, microseconds since the epoch
    qint64 notBeforeMs = 0;    // delayed until then; 0 when deliverable at once
    qint32 priority = 0;
    quint32 deliveryCount = 0;
    quint32 publisher = 0;     // index into the store's table of publisher names
    quint32 payloadSize = 0;
    std::unique_ptr<char[]> payload;
    std::unique_ptr<MessageExtras> extras;

    QByteArrayView data() const { return QByteArrayView(payload.get(), payloadSize); }
    void setData(QByteArrayView bytes);
    MessageExtras &ensureExtras();
    // A deep copy, for the rare places one message goes two ways (a stream entry dead-lettered
    // by one consumer group stays in the log for the others).
    StoredMessage clone() const;
    // When the TTL clock of this message started, in ms since the epoch.
    qint64 ttlStartMs() const;
};

// Snapshots (journal compaction) keep messages exactly: every field, payload and extras.
void writeStoredMessage(QDataStream &out, const StoredMessage &message);
StoredMessage readStoredMessage(QDataStream &in);

} // namespace Broker
