// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Helpers for the processor tests: an engine whose failed messages come back after 100 ms of its
// hand-driven clock, and a loop that moves that clock on while real work (a POST, a process)
// finishes.

#include "enginefixture.h"

#include <QElapsedTimer>

namespace Broker::Testing {

inline EngineOptions processorTestOptions()
{
    EngineOptions options;
    options.processorRetryFirstMs = 100;
    options.processorRetryMaxMs = 400;
    return options;
}

// Runs the event loop and advances the broker's clock by `stepMs` each turn (so that backoff
// delays and leases run out) until `done` holds; false after 20 s of real time.
template<typename Predicate>
bool runUntil(EngineFixture &f, Predicate done, qint64 stepMs = 100)
{
    QElapsedTimer elapsed;
    elapsed.start();
    while (!done()) {
        if (elapsed.elapsed() > 20'000)
            return false;
        QTest::qWait(10);
        f.advance(stepMs);
    }
    return true;
}

inline ProcessorStatus onlyStatus(const EngineFixture &f)
{
    const ProcessorStatusList statuses = f.broker.processorStatuses();
    if (statuses.size() != 1)
        qFatal("expected one processor, found %d", int(statuses.size()));
    return statuses.first();
}

} // namespace Broker::Testing
