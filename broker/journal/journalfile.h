// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/result.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

namespace Broker {

// The on-disk format of the memory store's journal: an 8-byte header ("BDJRNL" + format version
// 1 as two bytes), then records of [payload length: u32 LE][CRC-32C of the payload: u32 LE]
// [payload]. What a payload means is the store's business; this layer only guarantees that a
// record read back is exactly a record written.
namespace JournalFile {

constexpr qsizetype HeaderSize = 8;
constexpr qsizetype RecordOverhead = 8;
constexpr quint32 MaxRecordBytes = 64 * 1024 * 1024; // a larger length field means corruption

QByteArray header();
quint32 crc32c(QByteArrayView data);
// Appends one framed record to `out`.
void appendRecord(QByteArray &out, QByteArrayView payload);

struct ReadResult
{
    QList<QByteArray> records;
    qint64 validBytes = 0;   // where the last intact record ends: a writer continues from here
    // Bytes after the last intact record that nothing intact follows: a write a crash cut short,
    // or the zeros a crash leaves in a file the system had extended. They are not records; the
    // writer keeps a copy of them before it cuts the file (see JournalWriter::open).
    qint64 droppedBytes = 0;
    bool droppedAllZero = false;
    bool tornTail = false;   // droppedBytes > 0
};

// Reads every record. A file that is empty or holds only part of the header is a new journal
// (validBytes 0). A record is intact when its length is 1..MaxRecordBytes, it lies within the file
// and its CRC matches: a zero frame is never a record. Damage followed by an intact record is an
// error that names both offsets (records after a lost one may be meaningless without it: only a
// repair, which re-checks them, may drop it); damage that nothing intact follows is a torn tail.
Result<ReadResult> read(const QString &path);

struct Salvaged
{
    QList<QByteArray> records; // every intact record, in order
    qint64 skippedBytes = 0;
    QStringList damaged;       // "offset N: M damaged bytes skipped"
};
// Every intact record of `path`, skipping damaged stretches by searching for the next position
// where an intact record starts. Reads only.
Result<Salvaged> salvage(const QString &path);
// Replaces `path` atomically (temporary file, rename) with a journal of `records`; the file's
// previous content is kept first as `path`.damaged (when that name is taken, with the UTC time
// added), whose name is returned.
Result<QString> rewrite(const QString &path, const QList<QByteArray> &records);

// Copies the bytes of `path` from `offset` to its end into a side file next to it
// (`path`.torn, with the UTC time added when that name is taken) and returns the side file's
// path ("" when nothing follows `offset`). Called before bytes are cut from a journal, so that nothing is dropped without a copy.
Result<QString> keepTail(const QString &path, qint64 offset);

} // namespace JournalFile

} // namespace Broker
