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
    const bool exists = QFile::exists(path);
    const int fd = ::open(name.constData(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return Error{ErrorCode::Unavailable, QStringLiteral("%1: cannot open the journal: %2").arg(path, QString::fromLocal8Bit(std::strerror(errno)))};
    std::unique_ptr<JournalWriter> writer(new JournalWriter(fd, path, policy));
    if (!exists || validBytes == 0) {
        if (::ftruncate(fd, 0) != 0)
            return Error{ErrorCode::Unavailable, QStringLiteral("%1: cannot reset the journal").arg(path)};
        if (const Result<void> written = writer->writeAll(JournalFile::header()); !written)
            return written.error();
        ::fdatasync(fd);
    } else if (validBytes > 0 && ::ftruncate(fd, validBytes) != 0) {
        return Error{ErrorCode::Unavailable, QStringLiteral("%1: cannot drop the torn tail").arg(path)};
    }
    if (::lseek(fd, 0, SEEK_END) < 0)
        return Error{ErrorCode::Unavailable, QStringLiteral("%1: cannot seek").arg(path)};
    return writer;
}

JournalWriter::JournalWriter(int fd, QString path, Fsync policy) : m_fd(fd), m_path(std::move(path)), m_policy(policy)
{
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
    m_io.join();
    if (m_syncer.joinable())
        m_syncer.join();
    if (m_policy != Fsync::Never)
        ::fdatasync(m_fd);
    ::close(m_fd);
}

Result<void> JournalWriter::writeAll(const QByteArray &data)
{
    qsizetype done = 0;
    while (done < data.size()) {
        const ssize_t n = ::write(m_fd, data.constData() + done, size_t(data.size() - done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return Error{ErrorCode::Unavailable, QStringLiteral("%1: cannot write the journal: %2").arg(m_path, QString::fromLocal8Bit(std::strerror(errno)))};
        done += n;
    }
    return {};
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
        batch.result = writeAll(batch.data);
        m_unsynced = true;
        ++m_stats.writes;
        m_stats.bytes += batch.data.size();
        for (Completion &completion : batch.waiting)
            completion(batch.result);
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
        lock.unlock();
        batch.result = writeAll(batch.data);
        if (batch.result && ::fdatasync(m_fd) != 0) {
            batch.result = Error{ErrorCode::Unavailable,
                                 QStringLiteral("%1: fdatasync failed: %2").arg(m_path, QString::fromLocal8Bit(std::strerror(errno)))};
        }
        lock.lock();
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
        if (m_stopping || !m_unsynced.exchange(false))
            continue;
        lock.unlock();
        // fdatasync may run beside the owner's write(): it covers at least what was written
        // before it started.
        if (::fdatasync(m_fd) == 0)
            ++m_backgroundSyncs;
        else
            m_unsynced = true;
        lock.lock();
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
        if (batch.result)
            ++m_stats.syncs;
        ++m_stats.writes;
        m_stats.bytes += batch.data.size();
        m_inFlight = false;
        for (Completion &completion : batch.waiting)
            completion(batch.result);
    }
    // What arrived while the disk was busy goes next, as one batch.
    submit();
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
