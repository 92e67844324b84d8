// SPDX-License-Identifier: GPL-3.0-or-later
#include "auththrottle.h"

#include <algorithm>

namespace Broker::Rest {

namespace {
// Addresses told apart in one interval's summary; more are only counted.
constexpr qsizetype MaxAddressesPerSummary = 1000;
const QString Component = QStringLiteral("security");
} // namespace

AuthThrottle::AuthThrottle(const Clock &clock, ErrorManager &errors, const Options &options, QObject *parent)
    : QObject(parent),
      m_failures(clock, options.failuresPerMinute, options.failuresPerMinute),
      m_errors(errors),
      m_options(options)
{
    m_interval.setSingleShot(true);
    connect(&m_interval, &QTimer::timeout, this, &AuthThrottle::flushSummary);
}

AuthThrottle::Gate AuthThrottle::gate(const QString &address, qsizetype presentedKeyLength) const
{
    Gate gate;
    const RateLimiter::Decision decision = m_failures.peek(address);
    if (decision.allowed)
        return gate;
    gate.throttled = true;
    gate.checkKey = presentedKeyLength >= StrongKeyLength;
    gate.retryAfterSeconds = int(std::max<qint64>(1, (decision.retryAfterMs + 999) / 1000));
    return gate;
}

void AuthThrottle::failed(const QString &address)
{
    m_failures.take(address);
    note(address, false);
}

void AuthThrottle::refusedWhileThrottled(const QString &address)
{
    note(address, true);
}

void AuthThrottle::note(const QString &address, bool throttled)
{
    if (!m_interval.isActive()) {
        // The first after a quiet interval is worth a record of its own, at once.
        m_interval.start(m_options.logIntervalMs);
        if (throttled)
            m_errors.record(Severity::Warning, Component, QStringLiteral("auth_throttled"),
                            QStringLiteral("Authentication attempts from %1 are being throttled").arg(address));
        else
            m_errors.record(Severity::Warning, Component, QStringLiteral("auth_failed"),
                            QStringLiteral("Invalid API key from %1").arg(address));
        return;
    }
    (throttled ? m_total.throttled : m_total.failed) += 1;
    auto it = m_counts.find(address);
    if (it == m_counts.end()) {
        if (m_counts.size() >= MaxAddressesPerSummary) {
            ++m_uncountedAddresses;
            return;
        }
        it = m_counts.insert(address, Counts{});
    }
    (throttled ? it->throttled : it->failed) += 1;
}

void AuthThrottle::flushSummary()
{
    m_interval.stop();
    if (m_total.failed == 0 && m_total.throttled == 0)
        return; // quiet: the next attempt is recorded at once again
    QString busiest;
    qint64 busiestCount = -1;
    for (auto it = m_counts.cbegin(); it != m_counts.cend(); ++it) {
        const qint64 count = it->failed + it->throttled;
        if (count > busiestCount || (count == busiestCount && it.key() < busiest)) {
            busiest = it.key();
            busiestCount = count;
        }
    }
    const qint64 addresses = m_counts.size() + m_uncountedAddresses;
    m_errors.record(Severity::Warning, Component,
                    m_total.throttled > 0 ? QStringLiteral("auth_throttled") : QStringLiteral("auth_failed"),
                    QStringLiteral("In the last %1 s: %2 invalid API keys, %3 attempts throttled, from %4 address(es); "
                                   "most from %5 (%6)")
                        .arg(m_options.logIntervalMs / 1000.0)
                        .arg(m_total.failed)
                        .arg(m_total.throttled)
                        .arg(addresses)
                        .arg(busiest)
                        .arg(busiestCount));
    m_counts.clear();
    m_total = {};
    m_uncountedAddresses = 0;
    m_interval.start(m_options.logIntervalMs);
}

} // namespace Broker::Rest
