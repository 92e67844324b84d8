// SPDX-License-Identifier: GPL-3.0-or-later
#include "circuitbreaker.h"

#include <algorithm>

namespace Broker {

CircuitBreaker::CircuitBreaker(Options options, const Clock &clock) : m_options(options), m_clock(clock)
{
    m_options.failureThreshold = std::max(1, m_options.failureThreshold);
}

CircuitBreaker::State CircuitBreaker::state() const
{
    if (m_state == State::Open && m_clock.nowMs() >= m_openedAtMs + m_options.openMs)
        return State::HalfOpen;
    return m_state;
}

qint64 CircuitBreaker::retryAtMs() const
{
    return state() == State::Open ? m_openedAtMs + m_options.openMs : 0;
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
    m_probeInFlight = false;
    m_state = State::Closed;
}

void CircuitBreaker::recordFailure()
{
    ++m_failures;
    if (state() == State::HalfOpen || m_failures >= m_options.failureThreshold) {
        if (m_state != State::Open || m_probeInFlight)
            open();
    }
    m_probeInFlight = false;
}

void CircuitBreaker::open()
{
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
