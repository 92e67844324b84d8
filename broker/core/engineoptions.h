// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/queueconfig.h"

namespace Broker {

// Defaults and bounds of a webhook or exec processor (the config's processors: list).
struct ProcessorDefaults
{
    int concurrency = 1;               // messages it holds at once
    int timeoutMs = 30'000;            // one POST, or one run of the command
    qint64 outputLimitBytes = 64 * 1024; // exec: of stdout and of stderr each, kept for the log
    static constexpr int MaxConcurrency = 256;
    static constexpr int MaxTimeoutMs = 3'600'000;
};

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
    int processorBatch = 16;             // messages a C++ callable processor takes per turn of the event loop
    // A message a webhook or exec processor failed is offered again after this delay, doubled with
    // each further delivery, up to processorRetryMaxMs (then max_deliveries dead-letters it).
    qint64 processorRetryFirstMs = 1000;
    qint64 processorRetryMaxMs = 60'000;
};

} // namespace Broker
