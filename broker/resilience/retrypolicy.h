// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QtGlobal>

#include <random>

namespace Broker {

// Exponential backoff with full jitter: before retry n (n = 1 for the first retry) wait a time
// drawn uniformly from [0, min(maxDelayMs, baseDelayMs * multiplier^(n-1))]. Spreading retries
// over the whole interval keeps many clients from retrying in step after a shared outage.
struct RetryPolicy
{
    qint64 baseDelayMs = 100;   // ceiling of the first retry's delay
    double multiplier = 2.0;    // growth of the ceiling per retry
    qint64 maxDelayMs = 30'000; // the ceiling never exceeds this
    int maxAttempts = 5;        // attempts in all, the first one included; 0: no limit

    // The upper bound of the delay before retry `retry` (>= 1).
    qint64 ceilingMs(int retry) const;
    // A delay for retry `retry` drawn from `random`.
    qint64 delayMs(int retry, std::mt19937_64 &random) const;
    // Whether another attempt may follow `attemptsMade` attempts.
    bool allowsAnotherAttempt(int attemptsMade) const { return maxAttempts <= 0 || attemptsMade < maxAttempts; }
};

} // namespace Broker
