// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/result.h"

#include <QByteArray>
#include <QObject>
#include <QString>
#include <QTimer>

#include <functional>
#include <memory>
#include <vector>

namespace Broker {

// Appends records to a journal file (see JournalFile) with group commit: every record appended
// during one turn of the event loop goes out in one write() — and, with Fsync::Always, one
// fdatasync() — at the end of that turn; each record's completion runs after that. A caller that
// answers a client only from the completion never acknowledges what a crash could lose.
class JournalWriter : public QObject
{
    Q_OBJECT
public:
    enum class Fsync {
        Always,      // completions wait for fdatasync
        EverySecond, // completions wait for write(); fdatasync once a second
        Never,       // completions wait for write(); the kernel syncs when it likes
    };
    struct Stats
    {
        qint64 records = 0;
        qint64 bytes = 0;
        qint64 writes = 0; // write() calls that carried records
        qint64 syncs = 0;  // fdatasync() calls
    };
    using Completion = std::function<void(Result<void>)>;

    // Opens `path` for appending, creating it (with its header) when missing. An existing file is
    // cut to `validBytes` first (what JournalFile::read() found intact: a torn tail goes).
    static Result<std::unique_ptr<JournalWriter>> open(const QString &path, Fsync policy, qint64 validBytes = -1);
    ~JournalWriter() override;

    void append(QByteArrayView payload, Completion done);
    // Writes (and syncs, as the policy says) what is pending now; used at shutdown.
    void flushNow();
    const Stats &stats() const { return m_stats; }
    const QString &path() const { return m_path; }

private:
    JournalWriter(int fd, QString path, Fsync policy);
    Result<void> writeAll(const QByteArray &data);

    int m_fd;
    QString m_path;
    Fsync m_policy;
    QByteArray m_pending;
    std::vector<Completion> m_waiting;
    bool m_flushQueued = false;
    bool m_dirty = false; // written since the last sync (EverySecond)
    QTimer m_syncTimer;
    Stats m_stats;
};

} // namespace Broker
