// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/result.h"

#include <QByteArray>
#include <QList>
#include <QString>

#include <optional>

namespace Broker {

// The files of a durable memory store and how compaction moves between them without ever
// leaving a state a crash could lose data in. For a journal at path P:
//   P            the journal: records on top of the snapshot its Base record names (or none)
//   P.snapshot   the store's whole state when P began, in JournalFile framing (chunked)
//   P.next       during compaction: the new journal, Base = the snapshot being written
//   P.snapshot.tmp  the snapshot being written
// Compaction: start P.next (Base = new id); write P.snapshot.tmp, fsync, rename to P.snapshot,
// fsync the folder; rename P.next to P, fsync the folder. Whatever step a crash interrupts,
// recover() finds a complete chain: the old snapshot + P + P.next, or the new snapshot + P.next,
// and says how to finish; after that the journal is always P again.
namespace JournalCompaction {

QString nextPath(const QString &journal);
QString snapshotPath(const QString &journal);

// Writes `state` as the snapshot with `id` (tmp file, fsync, rename, folder fsync). Blocking:
// meant for a background thread.
Result<void> writeSnapshot(const QString &journal, quint64 id, const QByteArray &state);
struct Snapshot
{
    quint64 id = 0;
    QByteArray state;
};
// The snapshot next to `journal` (none when there is no file); an error when it is damaged.
Result<std::optional<Snapshot>> loadSnapshot(const QString &journal);

// The last step: P.next becomes P.
Result<void> promoteNext(const QString &journal);

struct Recovered
{
    // How a compaction a crash interrupted is to be finished once the records are replayed.
    enum class Unfinished {
        None,
        Promote,             // the new snapshot is in place: only P.next -> P is left
        SnapshotThenPromote, // write the snapshot `nextBase` (the state after `records`), then promote
        DropNext,            // P.next holds nothing (the crash came before its first record)
    };
    std::optional<QByteArray> snapshot; // the state to start from; none: an empty store
    qint64 snapshotBytes = 0;
    QList<QByteArray> records;          // to replay on top of the snapshot, in order
    QList<QByteArray> nextRecords;      // SnapshotThenPromote: P.next's records, after `records`
    quint64 nextBase = 0;               // SnapshotThenPromote: the id P.next builds on
    Unfinished unfinished = Unfinished::None;
    qint64 liveValidBytes = -1;         // where the intact records of the journal that stays end
    bool tornTail = false;              // that journal ends with bytes that are not a record:
    qint64 droppedBytes = 0;            //   this many (see JournalFile::ReadResult)
    bool droppedAllZero = false;
};
// Finds the chain described above; an error when files are damaged or a snapshot a journal
// builds on is missing. `baseOf` recognises a Base record (the record codec lives with the
// store): it returns the snapshot id, or 0 for any other record.
Result<Recovered> recover(const QString &journal, quint64 (*baseOf)(const QByteArray &record));

} // namespace JournalCompaction

} // namespace Broker
