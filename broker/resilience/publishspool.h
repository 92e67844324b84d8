// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/result.h"
#include "storage/journalwriter.h"

#include <QByteArray>
#include <QList>
#include <QString>

#include <deque>
#include <functional>
#include <memory>

namespace Broker {

// Publishes accepted while the backend is out of reach, kept on local disk until they are
// delivered to it, in the order they were accepted.
//
// The file is a journal (JournalFile framing, every append fdatasync'ed before it is confirmed):
// an identity record (a random id and the first batch number), then "spooled" and "drained"
// records. Batch numbers only grow under one identity; the backend remembers the highest number
// it took from each identity, so a batch delivered twice (the reply was lost) is taken once.
// When everything is drained the file starts over with a new identity.
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
        QList<Message> messages;
    };

    // Opens (or creates) the spool at `path` and reads back what was not drained before. One
    // process at a time: a spool another broker has open is refused (it holds a lock on P.lock).
    static Result<std::unique_ptr<PublishSpool>> open(const QString &path);
    ~PublishSpool();

    const QByteArray &identity() const { return m_identity; }
    bool isEmpty() const { return m_batches.empty(); }
    // Batches on disk or on their way there: while true, newer publishes must queue up behind them.
    bool hasWork() const { return !m_batches.empty() || m_writing > 0; }
    qint64 batchCount() const { return qint64(m_batches.size()); }
    qint64 messageCount() const { return m_messages; }
    const QString &path() const { return m_path; }

    // Adds a batch; `done` runs once it is on disk (or the write failed: then it is not spooled).
    void append(const QString &queue, QList<Message> messages, std::function<void(Result<void>)> done);
    // The oldest batch not yet drained; only when !isEmpty().
    const Batch &front() const { return m_batches.front(); }
    // The backend has the front batch: it leaves the spool.
    void drained();

private:
    PublishSpool(QString path, std::unique_ptr<JournalWriter> writer, int lockFd);
    Result<void> startOver();

    QString m_path;
    std::unique_ptr<JournalWriter> m_writer;
    QByteArray m_identity;
    quint64 m_nextNumber = 1;
    std::deque<Batch> m_batches; // appended and on disk, oldest first
    qint64 m_messages = 0;
    int m_writing = 0; // appended, not yet on disk
    int m_lockFd = -1;
};

} // namespace Broker
