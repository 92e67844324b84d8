// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/result.h"
#include "core/storageoptions.h"

#include <QByteArray>
#include <QObject>
#include <QString>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
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
//
// Failures (ENOSPC, EIO from write or fdatasync): the batch that failed is cut back, so the file
// always ends with a complete record, and the writer turns failed: the failure hook runs once (in
// the owner's thread, before any failed completion), then that batch and every record appended
// after it complete with the error, without touching the file, until recover() has written and
// synced a probe record. Records are never appended behind a partial one.
class JournalWriter : public QObject
{
    Q_OBJECT
public:
    using Fsync = FsyncPolicy; // Always | EverySecond | Never
    struct Stats
    {
        qint64 records = 0;
        qint64 bytes = 0;
        qint64 writes = 0; // write() batches that carried records
        qint64 syncs = 0;  // fdatasync() calls
    };
    using Completion = std::function<void(Result<void>)>;

    // Opens `path` for appending, creating it (with its header) when missing or empty.
    // `validBytes`: -1 appends to the file as it is; 0 starts the file over (its content is not
    // wanted); > 0 cuts it there (what JournalFile::read() found intact), keeping the bytes cut in a
    // side file first (keptTailPath()).
    static Result<std::unique_ptr<JournalWriter>> open(const QString &path, Fsync policy, qint64 validBytes = -1);
    ~JournalWriter() override;

    void append(QByteArrayView payload, Completion done);
    // Called once per failure, in the owner's thread, before the first failed completion runs.
    void setFailureHook(std::function<void(const Error &)> hook) { m_failureHook = std::move(hook); }
    // Whether writes are failing: a failure was reported and recover() has not succeeded since.
    // Owner's thread.
    bool hasFailed() const { return m_failureReported; }
    // While failed and idle: cuts the file back if that failed before, writes `probe` as a record
    // and syncs it. Success ends the failed state. Blocks the caller on the disk.
    Result<void> recover(QByteArrayView probe);
    // Where the bytes cut at open() were kept ("" when none were cut).
    const QString &keptTailPath() const { return m_keptTail; }
    // Writes (and syncs, as the policy says) everything appended so far and runs its completions
    // before returning; blocks the caller on the disk. For shutdown and tools.
    void flushNow();
    // flushNow(), then fdatasync whatever the policy: for records that must be on disk before
    // the caller goes on (a compaction's Base record). A failure turns the writer failed.
    Result<void> syncNow();
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

    JournalWriter(int fd, QString path, Fsync policy, qint64 offset);
    // Writes `data` at the end of the intact records and, when `sync`, syncs it; on failure cuts
    // the file back to where it was, so that it still ends with a complete record. Runs in the
    // thread that writes for this policy (the I/O thread with Always, else the owner's).
    Result<void> writeAt(const QByteArray &data, bool sync);
    Error failure(const char *what) const;
    // Owner's thread: the first failure runs the hook; then every completion hears of it.
    void complete(Batch &batch);
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
    qint64 m_offset;          // where the intact records end; only the writing thread moves it
    qint64 m_syncedOffset;    // what the last successful fdatasync covered
    bool m_cutPending = false; // a failed batch could not be cut back yet
    std::optional<Error> m_failure; // set by the writing thread (or the syncer); under m_mutex
    bool m_failureReported = false; // owner's thread
    std::function<void(const Error &)> m_failureHook;
    QString m_keptTail;
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
    // EverySecond: a thread of its own syncs once a second what the owner's thread wrote, so that
    // a long fdatasync never holds up the next write. When that sync fails, the kernel may have
    // dropped what it could not write back: the file is cut back to what the last good sync
    // covered (m_syncedOffset), and the owner, told through the failure hook, rebuilds from it.
    std::condition_variable m_syncWake;
    std::atomic<bool> m_unsynced{false};
    std::atomic<qint64> m_backgroundSyncs{0};
    std::thread m_syncer;
};

} // namespace Broker
