// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/queueconfig.h"
#include "core/redisoptions.h"
#include "core/result.h"
#include "journal/journalwriter.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QHash>
#include <QList>
#include <QString>

#include <deque>
#include <functional>
#include <memory>
#include <optional>

namespace Broker {

// Publishes accepted while the backend is out of reach, kept on local disk until they are
// delivered to it, in the order they were accepted.
//
// The file is a journal (JournalFile framing, every append fdatasync'ed before it is confirmed):
// an identity record (a random id and the first batch number), then "spooled" and "drained"
// records. Batch numbers only grow under one identity; the backend remembers the highest number
// it took from each identity, so a batch delivered twice (the reply was lost) is taken once.
// Each batch records its queue's configuration, so that a queue missing when the batch drains
// (Redis restarted empty) can be created again. When everything is drained the file starts over
// with a new identity. The spool is bounded (messages and bytes, on disk and on their way there):
// beyond the bound an append is refused with Unavailable, before anything is written.
// Single-threaded: use it from the owner's thread.
class PublishSpool
{
public:
    struct Message
    {
        qint64 dueMs = 0;      // 0: deliverable at once
        QByteArray stored;     // the message as the backend stores it
    };
    struct Batch
    {
        quint64 number = 0;
        QString queue;
        std::optional<QueueConfig> config; // the queue's configuration when the batch was taken; none
                                           // for batches written by a broker that did not record it
        QList<Message> messages;
    };
    // 0 (or less) for either: no bound of that kind.
    using Limits = SpoolLimits;

    // Opens (or creates) the spool at `path` and reads back what was not drained before. One
    // process at a time: a spool another broker has open is refused (it holds a lock on P.lock).
    // Batches read back count toward the limits but are never refused.
    static Result<std::unique_ptr<PublishSpool>> open(const QString &path, Limits limits);
    static Result<std::unique_ptr<PublishSpool>> open(const QString &path) { return open(path, Limits()); }
    ~PublishSpool();

    const QByteArray &identity() const { return m_identity; }
    bool isEmpty() const { return m_batches.empty(); }
    // Batches on disk or on their way there: while true, newer publishes must queue up behind them.
    bool hasWork() const { return !m_batches.empty() || m_writing > 0; }
    qint64 batchCount() const { return qint64(m_batches.size()); }
    qint64 messageCount() const { return m_messages; }
    // Messages for `queue`, on disk or on their way there.
    qint64 messageCount(const QString &queue) const { return m_perQueue.value(queue); }
    // The stored size of the messages held, on disk or on their way there.
    qint64 byteCount() const { return m_bytes; }
    const Limits &limits() const { return m_limits; }
    const QString &path() const { return m_path; }

    // Adds a batch; `done` runs once it is on disk (or the write failed, or the batch would take
    // the spool past its limits: then it is not spooled).
    void append(const QString &queue, const QueueConfig &config, QList<Message> messages,
                std::function<void(Result<void>)> done);
    // Runs the completions of batches on their way to the disk now (shutdown).
    void flush()
    {
        if (m_writer)
            m_writer->flushNow();
    }
    // The oldest batch not yet drained; only when !isEmpty().
    const Batch &front() const { return m_batches.front(); }
    // The backend has the front batch: it leaves the spool.
    void drained();

private:
    // After a failed write, appends are refused until a probe record is on disk; a probe is
    // tried at most this often (it blocks on the disk).
    static constexpr qint64 ProbeIntervalMs = 1000;
    static QByteArray drainedRecord(quint64 number);
    PublishSpool(QString path, Limits limits, std::unique_ptr<JournalWriter> writer, int lockFd);
    Result<void> startOver();
    void count(const Batch &batch, int sign);

    QString m_path;
    std::unique_ptr<JournalWriter> m_writer;
    QByteArray m_identity;
    quint64 m_nextNumber = 1;
    std::deque<Batch> m_batches; // appended and on disk, oldest first
    Limits m_limits;
    // Counted from append on (on their way to disk included), so that limits hold for bursts.
    qint64 m_messages = 0;
    qint64 m_bytes = 0;
    QHash<QString, qint64> m_perQueue;
    int m_writing = 0; // appended, not yet on disk
    int m_lockFd = -1;
    QElapsedTimer m_lastProbe;
    QString m_writeFailure; // why the last probe failed
};

} // namespace Broker
