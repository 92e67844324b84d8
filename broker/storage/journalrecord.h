// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/queuestore.h"

#include "core/message.h"
#include "core/queueconfig.h"
#include "core/queueconfigchange.h"
#include "core/result.h"

#include <QByteArray>
#include <QList>
#include <QString>

namespace Broker {

// One change of the memory store as the journal keeps it: the operation and its arguments, the
// time it ran at, and the lease receipts it drew. The memory store is deterministic given those,
// so replaying the records in order on an empty store rebuilds the exact state — leases, consumer
// groups, dead letters and counters included. Encoded with QDataStream (version pinned) inside a
// JournalFile record, which frames and checksums it.
struct JournalRecord
{
    enum class Kind : quint8 {
        Seed = 1,      // the store's next message number at the start of a session
        CreateQueue,
        DeleteQueue,
        PurgeQueue,
        Publish,
        Consume,
        Ack,
        Nack,
        Extend,
        Redrive,
        Maintenance,
        Base,          // first record of a journal that builds on a snapshot (sequence: its id)
        UpdateQueue,   // options changed (PATCH /queues/{q})
    };

    Kind kind = Kind::Seed;
    qint64 timeMs = 0;
    QList<quint64> receipts;     // drawn while the operation ran, in order
    quint64 sequence = 0;        // Seed: the next message number; Base: the snapshot id
    QString queue;
    QueueConfig config;          // CreateQueue
    QueueConfigChange change;    // UpdateQueue
    QString user;                // Publish: the publisher; Redrive: who; others: unused
    QList<NewMessage> messages;  // Publish
    ConsumeRequest consume;      // Consume (stillWanted is asked live and never written)
    MessageRef ref;              // Ack, Nack, Extend
    qint64 amount = 0;           // Nack: delay ms; Extend: visibility ms; Redrive: limit

    static JournalRecord of(Kind kind, const QString &queue)
    {
        JournalRecord record;
        record.kind = kind;
        record.queue = queue;
        return record;
    }

    QByteArray encode() const;
    static Result<JournalRecord> decode(const QByteArray &payload);
    // The snapshot id a Base record names; 0 for any other record (JournalCompaction::recover's
    // way to recognise one without knowing the codec).
    static quint64 baseOf(const QByteArray &payload);
};

} // namespace Broker
