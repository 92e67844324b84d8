// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QMetaType>
#include <QString>

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

} // namespace Broker

Q_DECLARE_METATYPE(Broker::ErrorRecord)
