// SPDX-License-Identifier: GPL-3.0-or-later
#include "errorrecord.h"

namespace Broker {

const char *severityName(Severity severity)
{
    switch (severity) {
    case Severity::Info: return "info";
    case Severity::Warning: return "warning";
    case Severity::Error: return "error";
    case Severity::Critical: return "critical";
    }
    return "error";
}

std::optional<Severity> severityFromName(const QString &name)
{
    for (const Severity severity : {Severity::Info, Severity::Warning, Severity::Error, Severity::Critical}) {
        if (name == QLatin1StringView(severityName(severity)))
            return severity;
    }
    return std::nullopt;
}

QList<Severity> severitiesFrom(Severity lowest)
{
    QList<Severity> out;
    for (const Severity severity : {Severity::Info, Severity::Warning, Severity::Error, Severity::Critical}) {
        if (severity >= lowest)
            out.append(severity);
    }
    return out;
}

} // namespace Broker
