// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/clock.h"

#include <QHash> // std::hash<QString>
#include <QString>

#include <unordered_map>

namespace Broker {

// Token buckets, one per key (an API key's user id, or a client address): a steady rate with a
// burst on top. Memory is bounded: when `maxKeys` is reached, buckets that have refilled
// completely (idle keys) are forgotten first, then the least recently used.
class RateLimiter
{
public:
    struct Decision
    {
        bool allowed = true;
        qint64 retryAfterMs = 0; // when refused: wait this long for one token
        double remaining = 0;    // tokens left after this request
    };

    // `perMinute` tokens are added per minute, up to `burst` in the bucket.
    RateLimiter(const Clock &clock, double perMinute, double burst, int maxKeys = 100'000);

    Decision take(const QString &key, double cost = 1.0);
    // What take() would decide, without taking anything or starting a bucket: an unknown key
    // has a full one. When refused, retryAfterMs is how long until `cost` tokens are there.
    Decision peek(const QString &key, double cost = 1.0) const;
    // Gives tokens back (e.g. a failed login attempt turned out fine).
    void reset(const QString &key) { m_buckets.erase(key); }
    int trackedKeys() const { return int(m_buckets.size()); }

private:
    struct Bucket
    {
        double tokens = 0;
        qint64 updatedMs = 0;
    };
    void refill(Bucket &bucket, qint64 nowMs) const;
    void evict(qint64 nowMs);

    const Clock &m_clock;
    double m_perMs;
    double m_burst;
    int m_maxKeys;
    std::unordered_map<QString, Bucket> m_buckets;
};

} // namespace Broker
