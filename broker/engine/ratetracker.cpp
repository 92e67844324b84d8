// SPDX-License-Identifier: GPL-3.0-or-later
#include "ratetracker.h"

#include <unordered_set>

namespace Broker {

namespace {
constexpr qint64 WindowMs = 60'000;
}

void RateTracker::add(Series &series, const Sample &sample)
{
    if (!series.empty() && sample.timeMs <= series.back().timeMs)
        return; // time stood still or went back: keep the older samples
    series.push_back(sample);
    // Keep one sample at or beyond the window's far edge, so the minute rate spans a full minute.
    while (series.size() > 2 && sample.timeMs - series[1].timeMs >= WindowMs)
        series.pop_front();
}

QueueRates RateTracker::compute(const Series &series)
{
    QueueRates rates;
    if (series.size() < 2)
        return rates;
    const Sample &last = series.back();
    const Sample &previous = series[series.size() - 2];
    const Sample &first = series.front();
    const double secondSpan = double(last.timeMs - previous.timeMs) / 1000.0;
    const double minuteSpan = double(last.timeMs - first.timeMs) / 1000.0;
    // Counters can go down when a queue is recreated; a negative rate means nothing.
    rates.publish1s = qMax(0.0, double(last.published - previous.published) / secondSpan);
    rates.consume1s = qMax(0.0, double(last.delivered - previous.delivered) / secondSpan);
    rates.publish1m = qMax(0.0, double(last.published - first.published) / minuteSpan);
    rates.consume1m = qMax(0.0, double(last.delivered - first.delivered) / minuteSpan);
    return rates;
}

void RateTracker::sample(qint64 nowMs, const QList<QueueInfo> &queues)
{
    Sample total{nowMs, 0, 0};
    std::unordered_set<QString> seen;
    for (const QueueInfo &queue : queues) {
        const Sample sample{nowMs, queue.counters.published, queue.counters.delivered};
        add(m_series[queue.name], sample);
        seen.insert(queue.name);
        total.published += sample.published;
        total.delivered += sample.delivered;
    }
    for (auto it = m_series.begin(); it != m_series.end();)
        it = seen.contains(it->first) ? std::next(it) : m_series.erase(it);
    add(m_total, total);
}

QueueRates RateTracker::rates(const QString &queue) const
{
    const auto it = m_series.find(queue);
    return it == m_series.end() ? QueueRates{} : compute(it->second);
}

} // namespace Broker
