// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QtGlobal>

namespace Broker {

// Wall-clock time in milliseconds since the Unix epoch. Injected everywhere time matters
// (leases, TTL, delays, rates, rate limits) so that tests can drive time by hand.
class Clock
{
public:
    virtual ~Clock() = default;
    virtual qint64 nowMs() const = 0;
    // Milliseconds from an arbitrary start that never step (NTP, a VM resumed): for how long
    // something lasted on this machine. A clock that moves only when told is its own.
    virtual qint64 monotonicMs() const { return nowMs(); }
};

class SystemClock final : public Clock
{
public:
    qint64 nowMs() const override;
    qint64 monotonicMs() const override;
};

// A clock that moves only when told to; for tests and replay tools. Starts at a fixed,
// realistic time so that timestamps look like real ones.
class ManualClock final : public Clock
{
public:
    explicit ManualClock(qint64 startMs = 1'767'225'600'000) : m_nowMs(startMs) {}
    qint64 nowMs() const override { return m_nowMs; }
    void advanceMs(qint64 deltaMs) { m_nowMs += deltaMs; }
    void setMs(qint64 nowMs) { m_nowMs = nowMs; }

private:
    qint64 m_nowMs;
};

} // namespace Broker
