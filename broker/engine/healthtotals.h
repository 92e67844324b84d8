// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/brokersnapshot.h"
#include "core/clock.h"
#include "core/result.h"

#include <QList>
#include <QString>

#include <optional>

#include <functional>

namespace Broker {

// What /health shows without a key: cheap to answer, at most a second old.
struct HealthSummary
{
    qint64 countedAtMs = 0;   // when the queues were last counted (the totals below)
    qint64 uptimeSeconds = 0;
    HealthStatus health = HealthStatus::Healthy; // the store's, lowered while it is read-only
    QString storage;          // "memory" or "redis"
    StoreStatus storeStatus;  // as the store reports it now
    int queues = 0;
    qint64 messagesTotal = 0;
    qint64 messagesProcessed = 0;
};

// The engine's last count of its queues: how many, messages held, messages processed. Counting
// means listing every queue (a script per queue on Redis), so the count is kept: every listing
// the engine makes anyway (the once-a-second rate sample, snapshots) refreshes it, and a new
// count is taken only when the kept one is older than `maxAgeMs` — once, however many callers
// wait for it. Lives in the engine's thread.
class HealthTotals
{
public:
    explicit HealthTotals(const Clock &clock, qint64 maxAgeMs = 1000) : m_clock(clock), m_maxAgeMs(maxAgeMs) {}

    // Takes the totals of a listing of every queue. A failed listing keeps the last totals and
    // marks the count failed (health turns unhealthy unless the store says otherwise).
    void record(const Result<QList<QueueInfo>> &listing);
    bool isFresh() const;
    // Queues `answer` for when the count under way ends. True when the caller must start that
    // count (and call finish() when it ends); false when one is under way already.
    bool waitForCount(std::function<void()> answer);
    void finish();

    qint64 countedAtMs() const { return m_countedAtMs; }
    int queues() const { return m_queues; }
    qint64 messagesTotal() const { return m_messagesTotal; }
    qint64 messagesProcessed() const { return m_messagesProcessed; }
    bool countFailed() const { return m_countFailed; }
    const QString &countError() const { return m_countError; }

    // The health to report: the store's, Degraded while it refuses changes (read-only), and
    // Unhealthy when counting the queues failed (`countError` set) — unless the store is on a
    // fallback that still takes publishes (Degraded: a Redis store spooling them). A count's
    // failure becomes the status's lastError when it has none.
    static HealthStatus effectiveHealth(HealthStatus storeHealth, StoreStatus &status,
                                        const std::optional<QString> &countError = std::nullopt);

private:
    const Clock &m_clock;
    qint64 m_maxAgeMs;
    qint64 m_countedAtMs = 0;
    int m_queues = 0;
    qint64 m_messagesTotal = 0;
    qint64 m_messagesProcessed = 0;
    bool m_countFailed = false;
    QString m_countError;
    QList<std::function<void()>> m_waiting;
};

} // namespace Broker
