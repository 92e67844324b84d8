// SPDX-License-Identifier: GPL-3.0-or-later
#include "journalwriter.h"

#include "journalfile.h"

#include <QFile>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace Broker {

Result<std::unique_ptr<JournalWriter>> JournalWriter::open(const QString &path, Fsync policy, qint64 validBytes)
{
    const QByteArray name = QFile::encodeName(path);
    const int fd = ::open(name.constData(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    auto systemError = [&path](const QString &what) {
        return Error{ErrorCode::Unavailable, QStringLiteral("%1: %2: %3").arg(path, what, QString::fromLocal8Bit(std::strerror(errno)))};
    };
    if (fd < 0)
        return systemError(QStringLiteral("cannot open the journal"));
    const off_t size = ::lseek(fd, 0, SEEK_END);
    if (size < 0) {
        const Error error = systemError(QStringLiteral("cannot seek"));
        ::close(fd);
        return error;
    }
    QString keptTail;
    if (validBytes > 0 && validBytes < size) {
        Result<QString> kept = JournalFile::keepTail(path, validBytes);
        if (!kept) {
            ::close(fd);
            return kept.error();
        }
        keptTail = *kept;
    }
    const bool fresh = size == 0 || validBytes == 0 || (validBytes > 0 && validBytes < JournalFile::HeaderSize);
    const qint64 end = fresh ? 0 : validBytes > 0 ? std::min<qint64>(validBytes, size) : qint64(size);
    if (end != size && ::ftruncate(fd, end) != 0) {
        const Error error = systemError(QStringLiteral("cannot cut the journal back to its intact records"));
        ::close(fd);
        return error;
    }
    std::unique_ptr<JournalWriter> writer(new JournalWriter(fd, path, policy, end));
    writer->m_keptTail = keptTail;
    if (fresh) {
        if (const Result<void> written = writer->writeAt(JournalFile::header(), true); !written)
            return Error{ErrorCode::Unavailable, QStringLiteral("%1: cannot start the journal: %2").arg(path, written.error().message)};
    }
    return writer;
}

JournalWriter::JournalWriter(int fd, QString path, Fsync policy, qint64 offset)
    : m_fd(fd), m_path(std::move(path)), m_policy(policy), m_offset(offset), m_syncedOffset(offset)
{
    if (m_policy == Fsync::Always)
        m_io = std::thread([this] { ioLoop(); });
    if (m_policy == Fsync::EverySecond)
        m_syncer = std::thread([this] { syncLoop(); });
}

JournalWriter::~JournalWriter()
{
    flushNow();
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_one();
    m_syncWake.notify_one();
    if (m_io.joinable())
        m_io.join();
    if (m_syncer.joinable())
        m_syncer.join();
    if (m_policy != Fsync::Never)
        ::fdatasync(m_fd);
    ::close(m_fd);
}

Error JournalWriter::failure(const char *what) const
{
    // No path: the text may reach a client. The owner logs where the journal is.
    return Error{ErrorCode::Unavailable, QStringLiteral("%1: %2").arg(QLatin1StringView(what), QString::fromLocal8Bit(std::strerror(errno)))};
}

Result<void> JournalWriter::writeAt(const QByteArray &data, bool sync)
{
    std::optional<Error> failed;
    qsizetype done = 0;
    while (done < data.size()) {
        const ssize_t n = ::pwrite(m_fd, data.constData() + done, size_t(data.size() - done), off_t(m_offset + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            failed = failure("write failed");
            break;
        }
        if (n == 0) {
            errno = ENOSPC;
            failed = failure("write failed");
            break;
        }
        done += n;
    }
    if (!failed && sync && ::fdatasync(m_fd) != 0)
        failed = failure("fdatasync failed");
    if (!failed) {
        m_offset += data.size();
        if (sync)
            m_syncedOffset = m_offset;
        return {};
    }
    // Whatever part reached the file goes: the journal must end with a complete record before
    // anything else is appended. After a failed fdatasync the whole batch goes too, since the
    // client hears that it failed. Shrinking needs no free space; should it fail anyway, the cut
    // is made again before the next write.
    m_cutPending = done > 0 || sync;
    if (m_cutPending && ::ftruncate(m_fd, off_t(m_offset)) == 0)
        m_cutPending = false;
    return *failed;
}

void JournalWriter::append(QByteArrayView payload, Completion done)
{
    JournalFile::appendRecord(m_pending, payload);
    m_waiting.push_back(std::move(done));
    ++m_stats.records;
    if (!m_submitQueued && !m_inFlight) {
        m_submitQueued = true;
        // End of this turn of the event loop: everything appended until then shares the batch.
        QMetaObject::invokeMethod(this, [this] {
            m_submitQueued = false;
            submit();
        }, Qt::QueuedConnection);
    }
}

void JournalWriter::submit()
{
    if (m_inFlight || m_pending.isEmpty())
        return;
    Batch batch;
    batch.data = std::exchange(m_pending, {});
    batch.waiting = std::exchange(m_waiting, {});
    if (m_policy != Fsync::Always) {
        // write() only reaches the page cache: cheaper here than a hand-over to the I/O thread
        // and back. The sync (EverySecond) is the syncer thread's.
        {
            std::lock_guard lock(m_mutex);
            if (m_failure) {
                batch.result = *m_failure;
            } else {
                batch.result = writeAt(batch.data, false);
                if (!batch.result)
                    m_failure = batch.result.error();
            }
        }
        if (batch.result) {
            m_unsynced = true;
            ++m_stats.writes;
            m_stats.bytes += batch.data.size();
        }
        complete(batch);
        return;
    }
    // Always: write and fdatasync on the I/O thread; one batch at a time, so that whatever
    // arrives meanwhile shares the next sync.
    m_inFlight = true;
    {
        std::lock_guard lock(m_mutex);
        m_queue.push_back(std::move(batch));
    }
    m_wake.notify_one();
}

void JournalWriter::ioLoop()
{
    std::unique_lock lock(m_mutex);
    for (;;) {
        m_wake.wait(lock, [this] { return m_stopping || !m_queue.empty(); });
        if (m_queue.empty())
            return; // stopping, and nothing left
        Batch batch = std::move(m_queue.front());
        m_queue.pop_front();
        m_busy = true;
        if (m_failure) {
            batch.result = *m_failure; // written after a failed batch: it must not reach the file
        } else {
            lock.unlock();
            batch.result = writeAt(batch.data, true);
            lock.lock();
            if (!batch.result)
                m_failure = batch.result.error();
        }
        m_done.push_back(std::move(batch));
        m_busy = false;
        m_finished.notify_all();
        // Back to the owner's thread for the completions.
        QMetaObject::invokeMethod(this, &JournalWriter::collect, Qt::QueuedConnection);
    }
}

void JournalWriter::syncLoop()
{
    std::unique_lock lock(m_mutex);
    while (!m_stopping) {
        m_syncWake.wait_for(lock, std::chrono::seconds(1), [this] { return m_stopping; });
        if (m_stopping || m_failure || !m_unsynced.exchange(false))
            continue;
        const qint64 covered = m_offset; // the owner writes under m_mutex
        lock.unlock();
        // fdatasync may run beside the owner's write(): it covers at least what was written
        // before it started.
        const bool synced = ::fdatasync(m_fd) == 0;
        const Error error = synced ? Error() : failure("fdatasync failed");
        lock.lock();
        if (synced) {
            ++m_backgroundSyncs;
            m_syncedOffset = std::max(m_syncedOffset, covered);
        } else if (!m_failure) {
            // What was written since the last good sync may be lost (the kernel drops pages it
            // could not write back), and a probe appended behind such a hole would leave damage
            // in the middle: cut back to what is known to be on disk. Changes stop until a
            // probe record is synced again.
            m_failure = error;
            m_offset = m_syncedOffset;
            m_cutPending = ::ftruncate(m_fd, off_t(m_offset)) != 0;
            QMetaObject::invokeMethod(this, &JournalWriter::collect, Qt::QueuedConnection);
        }
    }
}

void JournalWriter::collect()
{
    std::deque<Batch> done;
    {
        std::lock_guard lock(m_mutex);
        done.swap(m_done);
    }
    for (Batch &batch : done) {
        if (batch.result) {
            ++m_stats.syncs;
            ++m_stats.writes;
            m_stats.bytes += batch.data.size();
        }
        m_inFlight = false;
        complete(batch);
    }
    if (done.empty()) {
        // The syncer found a failure: tell the owner now, not at the next write.
        Batch none;
        {
            std::lock_guard lock(m_mutex);
            if (m_failure)
                none.result = *m_failure;
        }
        if (!none.result)
            complete(none);
    }
    // What arrived while the disk was busy goes next, as one batch.
    submit();
}

void JournalWriter::complete(Batch &batch)
{
    if (!batch.result && !m_failureReported) {
        m_failureReported = true;
        if (m_failureHook)
            m_failureHook(batch.result.error());
    }
    for (Completion &completion : batch.waiting)
        completion(batch.result);
}

Result<void> JournalWriter::syncNow()
{
    flushNow();
    Batch check;
    {
        std::lock_guard lock(m_mutex);
        if (m_failure) {
            check.result = *m_failure;
        } else if (::fdatasync(m_fd) != 0) {
            m_failure = failure("fdatasync failed");
            check.result = *m_failure;
        } else {
            m_syncedOffset = m_offset;
        }
    }
    if (!check.result)
        complete(check); // the failure hook, once
    return check.result;
}

Result<void> JournalWriter::recover(QByteArrayView probe)
{
    flushNow(); // fails what is still waiting, without writing it
    std::lock_guard lock(m_mutex);
    if (!m_failure)
        return {};
    if (m_cutPending) {
        if (::ftruncate(m_fd, off_t(m_offset)) != 0)
            return failure("cannot cut the journal back");
        m_cutPending = false;
    }
    QByteArray record;
    JournalFile::appendRecord(record, probe);
    if (Result<void> written = writeAt(record, true); !written)
        return written;
    ++m_stats.records;
    ++m_stats.writes;
    ++m_stats.syncs;
    m_stats.bytes += record.size();
    m_unsynced = false;
    m_failure.reset();
    m_failureReported = false;
    return {};
}

void JournalWriter::flushNow()
{
    for (;;) {
        submit();
        {
            std::unique_lock lock(m_mutex);
            m_finished.wait(lock, [this] { return m_queue.empty() && !m_busy; });
        }
        collect(); // runs completions, and submits what they appended
        std::lock_guard lock(m_mutex);
        if (m_pending.isEmpty() && m_queue.empty() && !m_busy && !m_inFlight)
            return;
    }
}

} // namespace Broker
