// SPDX-License-Identifier: GPL-3.0-or-later
#include "circuitbreaker.h"

#include <algorithm>

namespace Broker {

CircuitBreaker::CircuitBreaker(Options options, const Clock &clock) : m_options(options), m_clock(clock)
{
    m_options.failureThreshold = std::max(1, m_options.failureThreshold);
    m_options.openMs = std::max<qint64>(1, m_options.openMs);
    if (m_options.firstProbeMs <= 0 || m_options.firstProbeMs > m_options.openMs)
        m_options.firstProbeMs = m_options.openMs;
    m_pauseMs = m_options.firstProbeMs;
}

CircuitBreaker::State CircuitBreaker::state() const
{
    if (m_state == State::Open && m_clock.nowMs() >= m_openedAtMs + m_pauseMs)
        return State::HalfOpen;
    return m_state;
}

qint64 CircuitBreaker::retryAtMs() const
{
    return state() == State::Open ? m_openedAtMs + m_pauseMs : 0;
}

bool CircuitBreaker::allowRequest()
{
    switch (state()) {
    case State::Closed:
        return true;
    case State::Open:
        return false;
    case State::HalfOpen:
        m_state = State::HalfOpen;
        if (m_probeInFlight)
            return false;
        m_probeInFlight = true;
        return true;
    }
    return false;
}

void CircuitBreaker::recordSuccess()
{
    m_failures = 0;
    m_failedProbes = 0;
    m_probeInFlight = false;
    m_state = State::Closed;
}

void CircuitBreaker::recordFailure()
{
    ++m_failures;
    if (state() == State::HalfOpen || m_failures >= m_options.failureThreshold) {
        // A failure reported while Open comes from a call sent before the breaker opened (or
        // from a probe): only the probe's failure starts a new pause.
        if (m_state != State::Open || m_probeInFlight)
            open(m_state != State::Closed);
    }
    m_probeInFlight = false;
}

void CircuitBreaker::open(bool afterProbe)
{
    m_failedProbes = afterProbe ? m_failedProbes + 1 : 0;
    // Deterministic doubling (no jitter): each broker sends only one probe per pause anyway.
    const RetryPolicy pauses{m_options.firstProbeMs, 2.0, m_options.openMs, 0};
    m_pauseMs = pauses.ceilingMs(m_failedProbes + 1);
    m_state = State::Open;
    m_openedAtMs = m_clock.nowMs();
    ++m_timesOpened;
}

QString CircuitBreaker::stateName(State state)
{
    switch (state) {
    case State::Closed:
        return QStringLiteral("closed");
    case State::Open:
        return QStringLiteral("open");
    case State::HalfOpen:
        return QStringLiteral("half_open");
    }
    return {};
}

} // namespace Broker
