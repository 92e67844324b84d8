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

} // namespace Broker
