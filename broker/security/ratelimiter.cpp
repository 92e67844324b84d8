// SPDX-License-Identifier: GPL-3.0-or-later
#include "ratelimiter.h"

#include <algorithm>
#include <cmath>

namespace Broker {

RateLimiter::RateLimiter(const Clock &clock, double perMinute, double burst, int maxKeys)
    : m_clock(clock), m_perMs(perMinute / 60'000.0), m_burst(std::max(1.0, burst)), m_maxKeys(std::max(1, maxKeys))
{
}

void RateLimiter::refill(Bucket &bucket, qint64 nowMs) const
{
    if (nowMs > bucket.updatedMs) {
        bucket.tokens = std::min(m_burst, bucket.tokens + double(nowMs - bucket.updatedMs) * m_perMs);
        bucket.updatedMs = nowMs;
    }
}

void RateLimiter::evict(qint64 nowMs)
{
    for (auto it = m_buckets.begin(); it != m_buckets.end();) {
        refill(it->second, nowMs);
        it = it->second.tokens >= m_burst ? m_buckets.erase(it) : std::next(it);
    }
    if (int(m_buckets.size()) < m_maxKeys)
        return;
    const auto oldest = std::min_element(m_buckets.begin(), m_buckets.end(), [](const auto &a, const auto &b) {
        return a.second.updatedMs < b.second.updatedMs;
    });
    m_buckets.erase(oldest);
}

RateLimiter::Decision RateLimiter::peek(const QString &key, double cost) const
{
    Decision decision;
    const auto it = m_buckets.find(key);
    if (it == m_buckets.end()) {
        decision.remaining = m_burst - cost;
        decision.allowed = decision.remaining >= 0;
        if (!decision.allowed)
            decision.retryAfterMs = 60'000;
        return decision;
    }
    Bucket bucket = it->second;
    refill(bucket, m_clock.nowMs());
    decision.remaining = bucket.tokens;
    if (bucket.tokens >= cost) {
        decision.remaining -= cost;
        return decision;
    }
    decision.allowed = false;
    decision.retryAfterMs = m_perMs > 0 ? qint64(std::ceil((cost - bucket.tokens) / m_perMs)) : 60'000;
    return decision;
}

RateLimiter::Decision RateLimiter::take(const QString &key, double cost)
{
    const qint64 now = m_clock.nowMs();
    auto it = m_buckets.find(key);
    if (it == m_buckets.end()) {
        if (int(m_buckets.size()) >= m_maxKeys)
            evict(now);
        it = m_buckets.emplace(key, Bucket{m_burst, now}).first;
    }
    Bucket &bucket = it->second;
    refill(bucket, now);
    Decision decision;
    if (bucket.tokens >= cost) {
        bucket.tokens -= cost;
        decision.remaining = bucket.tokens;
        return decision;
    }
    decision.allowed = false;
    decision.remaining = bucket.tokens;
    decision.retryAfterMs = m_perMs > 0 ? qint64(std::ceil((cost - bucket.tokens) / m_perMs)) : 60'000;
    return decision;
}

} // namespace Broker
