// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/result.h"

#include <QByteArray>
#include <QObject>
#include <QString>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace Broker {

// Appends records to a journal file (see JournalFile) with group commit: the records of one
// event-loop turn go out in one write(). With Fsync::Always the write and its fdatasync() run on
// a thread of its own, and records appended while the disk is busy wait together for the next
// batch, so the engine's thread never waits for the disk and the busier the broker, the more
// records share one sync. Otherwise write() (to the page cache) happens at the end of the turn
// in the owner's thread, and with EverySecond a syncer thread calls fdatasync() once a second.
// Each record's completion runs in the owner's thread once its batch is written (and synced,
// with Always). A caller that answers a client only from the completion never acknowledges what
// a crash could lose.
class JournalWriter : public QObject
{
    Q_OBJECT
public:
    enum class Fsync {
        Always,      // completions wait for fdatasync
        EverySecond, // completions wait for write(); a thread of its own syncs once a second
        Never,       // completions wait for write(); the kernel syncs when it likes
    };
    struct Stats
    {
        qint64 records = 0;
        qint64 bytes = 0;
        qint64 writes = 0; // write() batches that carried records
        qint64 syncs = 0;  // fdatasync() calls
    };
    using Completion = std::function<void(Result<void>)>;

    // Opens `path` for appending, creating it (with its header) when missing. An existing file is
    // cut to `validBytes` first (what JournalFile::read() found intact: a torn tail goes).
    static Result<std::unique_ptr<JournalWriter>> open(const QString &path, Fsync policy, qint64 validBytes = -1);
    ~JournalWriter() override;

    void append(QByteArrayView payload, Completion done);
    // Writes (and syncs, as the policy says) everything appended so far and runs its completions
    // before returning; blocks the caller on the disk. For shutdown and tools.
    void flushNow();
    Stats stats() const
    {
        Stats now = m_stats;
        now.syncs += m_backgroundSyncs.load();
        return now;
    }
    const QString &path() const { return m_path; }

private:
    struct Batch
    {
        QByteArray data;
        std::vector<Completion> waiting;
        Result<void> result;  // set by the I/O thread
    };

    JournalWriter(int fd, QString path, Fsync policy);
    Result<void> writeAll(const QByteArray &data);
    // Writes the pending records (Never, EverySecond), or hands them to the I/O thread unless a
    // batch is on its way already (Always).
    void submit();
    // Runs the completions of batches the I/O thread has finished (owner's thread).
    void collect();
    void ioLoop();
    void syncLoop();

    int m_fd;
    QString m_path;
    Fsync m_policy;
    QByteArray m_pending;
    std::vector<Completion> m_waiting;
    bool m_submitQueued = false;
    bool m_inFlight = false; // a batch of records is with the I/O thread (Always)
    Stats m_stats;

    std::mutex m_mutex;
    std::condition_variable m_wake;     // the I/O thread waits for batches
    std::condition_variable m_finished; // flushNow waits for the I/O thread
    std::deque<Batch> m_queue;          // to the I/O thread (Always)
    std::deque<Batch> m_done;           // back from it
    bool m_busy = false;
    bool m_stopping = false;
    std::thread m_io;
    // EverySecond: a second thread syncs once a second what the I/O thread wrote, so that a long
    // fdatasync never holds up the next write.
    std::condition_variable m_syncWake;
    std::atomic<bool> m_unsynced{false};
    std::atomic<qint64> m_backgroundSyncs{0};
    std::thread m_syncer;
};

} // namespace Broker
