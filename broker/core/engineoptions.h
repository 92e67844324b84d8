// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/queueconfig.h"

namespace Broker {

// What the engine enforces and how much it remembers. Units are in the names; 0 never means
// "unlimited" here.
struct EngineOptions
{
    QueueDefaults queueDefaults;
    qint64 maxMessageBytes = 256 * 1024; // one message's JSON text
    int maxBatch = 1000;                 // messages in one publish
    int maxConsumeCount = 1000;          // messages in one consume
    int maxBrowseLimit = 1000;           // messages in one browse page
    qint64 maxWaitMs = 20'000;           // longest long-poll
    qint64 maxDelayMs = QueueLimits::MaxDelaySeconds * 1000;
    int eventLogPerQueue = 1000;         // events kept per queue for lifecycles
    int recentEvents = 5000;             // events kept over all queues for live tails
    qint64 maintenanceIntervalMs = 1000; // longest time between lease/TTL sweeps and rate samples
    int processorBatch = 16;             // messages a processor takes per turn of the event loop
};

} // namespace Broker
