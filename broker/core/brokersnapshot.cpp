// SPDX-License-Identifier: GPL-3.0-or-later
#include "brokersnapshot.h"

namespace Broker {

const char *healthStatusName(HealthStatus status)
{
    switch (status) {
    case HealthStatus::Healthy: return "healthy";
    case HealthStatus::Degraded: return "degraded";
    case HealthStatus::Unhealthy: return "unhealthy";
    }
    return "unhealthy";
}

} // namespace Broker
