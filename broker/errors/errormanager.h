// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/clock.h"

#include <QHash>
#include <QList>
#include <QObject>
#include <QString>

#include <list>

namespace Broker {

enum class Severity { Info, Warning, Error, Critical };
const char *severityName(Severity severity);

struct ErrorRecord
{
    quint64 id = 0;
    Severity severity = Severity::Error;
    QString component; // "storage", "engine", "security", "rest", ...
    QString code;      // short machine-readable kind, e.g. "processor_failed"
    QString message;   // what happened (the latest of the folded records), with secrets already removed
    qint64 firstMs = 0;
    qint64 lastMs = 0;
    qint64 count = 1;  // records of one kind (severity, component, code; the message too when there is
                       // no code) fold into one
};

// Keeps the recent errors of the broker: a bounded log where repeats of a kind are counted
// instead of stored again, totals per severity, a log line per record (QLoggingCategory), and a
// notification signal for the UI tray and webhooks. Lives in the engine's thread.
class ErrorManager : public QObject
{
    Q_OBJECT
public:
    // `capacity`: how many distinct records are kept; the oldest goes first.
    explicit ErrorManager(const Clock &clock, int capacity = 1000, QObject *parent = nullptr);

    // Records an error. The message passes through redactSecrets() first.
    void record(Severity severity, const QString &component, const QString &code, const QString &message);

    // Newest first.
    QList<ErrorRecord> recent(int limit = -1) const;
    qint64 total(Severity severity) const { return m_totals.value(int(severity)); }
    int size() const { return int(m_records.size()); }

    // Records at or above this severity raise notificationRaised, at most once per minute for the
    // same record. Default: Error.
    void setNotificationThreshold(Severity severity) { m_threshold = severity; }

    // Replaces anything that looks like a credential (long runs of key alphabet, "key=...") with
    // "[redacted]". A safety net: callers should not pass secrets in the first place.
    static QString redactSecrets(const QString &text);

Q_SIGNALS:
    void errorRecorded(const Broker::ErrorRecord &record);
    void notificationRaised(const Broker::ErrorRecord &record);

private:
    using Records = std::list<ErrorRecord>; // newest at the front
    const Clock &m_clock;
    int m_capacity;
    Severity m_threshold = Severity::Error;
    quint64 m_nextId = 1;
    Records m_records;
    QHash<QString, Records::iterator> m_byKey;
    QHash<int, qint64> m_totals;
    QHash<QString, qint64> m_lastNotifiedMs;
};

} // namespace Broker

Q_DECLARE_METATYPE(Broker::ErrorRecord)
