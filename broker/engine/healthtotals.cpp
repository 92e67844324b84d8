// SPDX-License-Identifier: GPL-3.0-or-later
#include "healthtotals.h"

#include "core/queueinfo.h"

#include <utility>

namespace Broker {

void HealthTotals::record(const Result<QList<QueueInfo>> &listing)
{
    m_countedAtMs = m_clock.nowMs();
    m_countFailed = !listing.ok();
    if (!listing) {
        m_countError = listing.error().message;
        return;
    }
    m_countError.clear();
    m_queues = int(listing->size());
    m_messagesTotal = 0;
    m_messagesProcessed = 0;
    for (const QueueInfo &info : *listing) {
        m_messagesTotal += info.size();
        m_messagesProcessed += info.counters.acked;
    }
}

bool HealthTotals::isFresh() const
{
    return m_countedAtMs > 0 && m_clock.nowMs() - m_countedAtMs < m_maxAgeMs;
}

bool HealthTotals::waitForCount(std::function<void()> answer)
{
    m_waiting.append(std::move(answer));
    return m_waiting.size() == 1;
}

void HealthTotals::finish()
{
    // An answer may ask again (and start the next count): take the list first.
    const QList<std::function<void()>> waiting = std::exchange(m_waiting, {});
    for (const std::function<void()> &answer : waiting)
        answer();
}

HealthStatus HealthTotals::effectiveHealth(HealthStatus storeHealth, StoreStatus &status,
                                           const std::optional<QString> &countError)
{
    HealthStatus health = storeHealth;
    if (health == HealthStatus::Healthy && !status.writable)
        health = HealthStatus::Degraded;
    if (countError) {
        if (health == HealthStatus::Healthy)
            health = HealthStatus::Unhealthy;
        if (status.lastError.isEmpty())
            status.lastError = *countError;
    }
    return health;
}

} // namespace Broker
