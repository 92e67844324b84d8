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
    if (m_policy == Fsync::EverySecond) {
        m_syncTimer.setInterval(1000);
        connect(&m_syncTimer, &QTimer::timeout, this, [this] {
            if (m_dirty && ::fdatasync(m_fd) == 0) {
                ++m_stats.syncs;
                m_dirty = false;
            }
        });
        m_syncTimer.start();
    }
}

JournalWriter::~JournalWriter()
{
    flushNow();
    if (m_dirty)
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
    if (!m_flushQueued) {
        m_flushQueued = true;
        // End of this turn of the event loop: everything appended until then shares the write.
        QMetaObject::invokeMethod(this, &JournalWriter::flushNow, Qt::QueuedConnection);
    }
}

void JournalWriter::flushNow()
{
    m_flushQueued = false;
    if (m_pending.isEmpty())
        return;
    const QByteArray data = std::exchange(m_pending, {});
    std::vector<Completion> waiting = std::exchange(m_waiting, {});
    Result<void> result = writeAll(data);
    if (result) {
        ++m_stats.writes;
        m_stats.bytes += data.size();
        m_dirty = true;
        if (m_policy == Fsync::Always) {
            if (::fdatasync(m_fd) != 0) {
                result = Error{ErrorCode::Unavailable, QStringLiteral("%1: fdatasync failed: %2").arg(m_path, QString::fromLocal8Bit(std::strerror(errno)))};
            } else {
                ++m_stats.syncs;
                m_dirty = false;
            }
        }
    }
    for (Completion &done : waiting)
        done(result);
}

} // namespace Broker
