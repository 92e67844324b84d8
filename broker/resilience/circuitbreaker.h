// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/clock.h"
#include "core/redisoptions.h"
#include "retrypolicy.h"

#include <QString>

namespace Broker {

// Stops calling a backend that keeps failing, and tries it again after a pause.
//   Closed    - calls go through; `failureThreshold` failures in a row open the breaker
//   Open      - calls are refused at once, for a pause: `firstProbeMs` after the breaker opened
//               from Closed, doubling after every failed probe up to `openMs`
//   HalfOpen  - one probe call at a time goes through: success closes, failure opens again
// The short first pause brings service back about a second after the backend returns; the
// growing pauses keep a backend that stays away from being probed more than needed.
// Only failures that say the backend is unwell should be recorded (I/O errors, timeouts, lost
// connections), never a reply that merely refuses a request. Pure logic, time from the clock.
class CircuitBreaker
{
public:
    enum class State { Closed, Open, HalfOpen };

    using Options = CircuitBreakerOptions;

    CircuitBreaker(Options options, const Clock &clock);

    // Whether a call may go out now. In HalfOpen, true for one caller until it reports back.
    bool allowRequest();
    void recordSuccess();
    void recordFailure();

    // The state now (an Open breaker whose pause is over reads as HalfOpen).
    State state() const;
    int consecutiveFailures() const { return m_failures; }
    qint64 timesOpened() const { return m_timesOpened; }
    qint64 openedAtMs() const { return m_openedAtMs; } // 0: never opened
    // When an Open breaker lets the next probe through (ms since the epoch); 0 unless Open.
    qint64 retryAtMs() const;
    // The length of the current (or last) pause in ms.
    qint64 pauseMs() const { return m_pauseMs; }
    const Options &options() const { return m_options; }

    static QString stateName(State state); // "closed", "open", "half_open"

private:
    void open(bool afterProbe);

    Options m_options;
    const Clock &m_clock;
    State m_state = State::Closed;
    int m_failures = 0;
    bool m_probeInFlight = false;
    qint64 m_openedAtMs = 0;
    qint64 m_timesOpened = 0;
    int m_failedProbes = 0; // since the breaker last opened from Closed
    qint64 m_pauseMs = 0;
};

} // namespace Broker
