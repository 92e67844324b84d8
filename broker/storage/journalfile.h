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
    bool tornTail = false;   // the last record was cut short by a crash and has been dropped
};

// Reads every record. A torn last record (the file ends inside it, or its CRC fails and nothing
// follows) is dropped and reported in `tornTail`; damage followed by more data is an error that
// names the offset, because records after it might be meaningless without the lost one.
Result<ReadResult> read(const QString &path);

struct RepairReport
{
    qint64 kept = 0;      // records kept
    qint64 skippedBytes = 0;
    QStringList damaged;  // "offset N: what"
};

// Offline repair: rewrites `path` (atomically) with every intact record, skipping damaged
// stretches by searching for the next position where a well-formed record with a matching CRC
// starts. The original is kept as `path` + ".damaged".
Result<RepairReport> repair(const QString &path);

} // namespace JournalFile

} // namespace Broker
