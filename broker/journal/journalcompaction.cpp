// SPDX-License-Identifier: GPL-3.0-or-later
#include "journalcompaction.h"

#include "journalfile.h"

#include <QDataStream>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QIODevice>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace Broker::JournalCompaction {

namespace {

constexpr qsizetype ChunkBytes = 16 * 1024 * 1024; // well under JournalFile::MaxRecordBytes

Error ioError(const QString &what, const QString &path)
{
    return Error{ErrorCode::Unavailable, QStringLiteral("%1 %2: %3").arg(what, path, QString::fromLocal8Bit(std::strerror(errno)))};
}

Result<void> syncFolder(const QString &file)
{
    const QByteArray folder = QFile::encodeName(QFileInfo(file).absolutePath());
    const int fd = ::open(folder.constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return ioError(QStringLiteral("cannot open the folder of"), file);
    const int synced = ::fsync(fd);
    ::close(fd);
    if (synced != 0)
        return ioError(QStringLiteral("cannot sync the folder of"), file);
    return {};
}

Result<void> renameDurably(const QString &from, const QString &to)
{
    if (std::rename(QFile::encodeName(from).constData(), QFile::encodeName(to).constData()) != 0)
        return ioError(QStringLiteral("cannot rename"), from);
    return syncFolder(to);
}

// The first record of a snapshot: its id and how many bytes of state follow in chunks.
QByteArray snapshotHead(quint64 id, qint64 bytes)
{
    QByteArray head;
    QDataStream out(&head, QIODevice::WriteOnly);
    out << QByteArray("snapshot") << id << bytes;
    return head;
}

Result<std::optional<Snapshot>> readSnapshot(const QString &path)
{
    if (!QFile::exists(path))
        return std::optional<Snapshot>();
    Result<JournalFile::ReadResult> read = JournalFile::read(path);
    if (!read)
        return read.error();
    // A snapshot is renamed into place only when complete and synced: a torn one is damage.
    if (read->tornTail || read->records.isEmpty())
        return Error{ErrorCode::Internal, QStringLiteral("%1: the snapshot is incomplete").arg(path)};
    QDataStream in(read->records.first());
    QByteArray tag;
    Snapshot snapshot;
    qint64 bytes = 0;
    in >> tag >> snapshot.id >> bytes;
    if (tag != "snapshot" || in.status() != QDataStream::Ok)
        return Error{ErrorCode::Internal, QStringLiteral("%1: not a snapshot").arg(path)};
    snapshot.state.reserve(bytes);
    for (qsizetype i = 1; i < read->records.size(); ++i)
        snapshot.state += read->records[i];
    if (snapshot.state.size() != bytes)
        return Error{ErrorCode::Internal, QStringLiteral("%1: the snapshot is incomplete").arg(path)};
    return std::optional<Snapshot>(std::move(snapshot));
}

} // namespace

Result<std::optional<Snapshot>> loadSnapshot(const QString &journal)
{
    return readSnapshot(snapshotPath(journal));
}

QString nextPath(const QString &journal)
{
    return journal + QStringLiteral(".next");
}

QString snapshotPath(const QString &journal)
{
    return journal + QStringLiteral(".snapshot");
}

Result<void> writeSnapshot(const QString &journal, quint64 id, const QByteArray &state)
{
    const QString target = snapshotPath(journal);
    const QString temporary = target + QStringLiteral(".tmp");
    const int fd = ::open(QFile::encodeName(temporary).constData(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return ioError(QStringLiteral("cannot create"), temporary);
    QByteArray framed = JournalFile::header();
    JournalFile::appendRecord(framed, snapshotHead(id, state.size()));
    auto writeAll = [fd](const QByteArray &data) {
        for (qsizetype done = 0; done < data.size();) {
            const ssize_t n = ::write(fd, data.constData() + done, size_t(data.size() - done));
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                return false;
            done += n;
        }
        return true;
    };
    bool ok = writeAll(framed);
    for (qsizetype at = 0; ok && at < state.size(); at += ChunkBytes) {
        framed.clear();
        JournalFile::appendRecord(framed, QByteArrayView(state.constData() + at, qMin(ChunkBytes, state.size() - at)));
        ok = writeAll(framed);
    }
    ok = ok && ::fdatasync(fd) == 0;
    ::close(fd);
    if (!ok) {
        QFile::remove(temporary);
        return ioError(QStringLiteral("cannot write"), temporary);
    }
    return renameDurably(temporary, target);
}

Result<void> promoteNext(const QString &journal)
{
    return renameDurably(nextPath(journal), journal);
}

Result<Recovered> recover(const QString &journal, quint64 (*baseOf)(const QByteArray &record))
{
    QFile::remove(snapshotPath(journal) + QStringLiteral(".tmp")); // an interrupted write: never used
    Recovered recovered;
    Result<std::optional<Snapshot>> snapshot = readSnapshot(snapshotPath(journal));
    if (!snapshot)
        return snapshot.error();

    struct Journal
    {
        QList<QByteArray> records;
        quint64 base = 0;
        qint64 validBytes = -1;
        bool tornTail = false;
        qint64 droppedBytes = 0;
        bool droppedAllZero = false;
    };
    auto load = [&](const QString &path) -> Result<std::optional<Journal>> {
        if (!QFile::exists(path))
            return std::optional<Journal>();
        Result<JournalFile::ReadResult> read = JournalFile::read(path);
        if (!read)
            return read.error();
        Journal j;
        j.records = std::move(read->records);
        j.base = j.records.isEmpty() ? 0 : baseOf(j.records.first());
        j.validBytes = read->validBytes;
        j.tornTail = read->tornTail;
        j.droppedBytes = read->droppedBytes;
        j.droppedAllZero = read->droppedAllZero;
        return std::optional<Journal>(std::move(j));
    };
    Result<std::optional<Journal>> current = load(journal);
    if (!current)
        return current.error();
    Result<std::optional<Journal>> next = load(nextPath(journal));
    if (!next)
        return next.error();

    const quint64 snapshotId = *snapshot ? (*snapshot)->id : 0;
    auto startFrom = [&](quint64 base, const QString &path) -> Result<void> {
        if (base == 0)
            return {}; // an empty store
        if (base != snapshotId)
            return Error{ErrorCode::Internal, QStringLiteral("%1 builds on a snapshot that is missing (%2)")
                                                  .arg(path, snapshotPath(journal))};
        recovered.snapshot = (*snapshot)->state;
        recovered.snapshotBytes = (*snapshot)->state.size();
        return {};
    };

    if (*next && (*next)->base != 0 && (*next)->base == snapshotId) {
        // Interrupted after the new snapshot was in place: it and P.next are the whole story.
        if (const Result<void> ok = startFrom(snapshotId, nextPath(journal)); !ok)
            return ok.error();
        recovered.records = std::move((*next)->records);
        recovered.liveValidBytes = (*next)->validBytes;
        recovered.tornTail = (*next)->tornTail;
        recovered.droppedBytes = (*next)->droppedBytes;
        recovered.droppedAllZero = (*next)->droppedAllZero;
        recovered.unfinished = Recovered::Unfinished::Promote;
        return recovered;
    }
    if (*current) {
        if (const Result<void> ok = startFrom((*current)->base, journal); !ok)
            return ok.error();
        recovered.records = std::move((*current)->records);
        recovered.liveValidBytes = (*current)->validBytes;
        recovered.tornTail = (*current)->tornTail;
        recovered.droppedBytes = (*current)->droppedBytes;
        recovered.droppedAllZero = (*current)->droppedAllZero;
    }
    if (*next) {
        // Interrupted before the new snapshot was in place: P.next goes on where P ends (P was
        // flushed before P.next began, so it has no torn tail then).
        if ((*next)->base == 0) {
            recovered.unfinished = Recovered::Unfinished::DropNext;
            return recovered;
        }
        recovered.nextRecords = std::move((*next)->records);
        recovered.nextBase = (*next)->base;
        recovered.liveValidBytes = (*next)->validBytes;
        recovered.tornTail = (*next)->tornTail;
        recovered.droppedBytes = (*next)->droppedBytes;
        recovered.droppedAllZero = (*next)->droppedAllZero;
        recovered.unfinished = Recovered::Unfinished::SnapshotThenPromote;
    }
    return recovered;
}

} // namespace Broker::JournalCompaction
