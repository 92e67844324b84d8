// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QList>
#include <QMetaType>
#include <QString>

#include <optional>

namespace Broker {

enum class Severity { Info, Warning, Error, Critical };
const char *severityName(Severity severity);
// "info" | "warning" | "error" | "critical"; nothing for another name.
std::optional<Severity> severityFromName(const QString &name);

// `lowest` and every severity above it.
QList<Severity> severitiesFrom(Severity lowest);

// What an ErrorManager keeps and from which severity on it notifies, unless told otherwise.
inline constexpr int DefaultErrorRecords = 1000;
inline constexpr Severity DefaultNotifySeverity = Severity::Error;

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

} // namespace Broker

Q_DECLARE_METATYPE(Broker::ErrorRecord)
