// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/queueinfo.h"

#include <QList>
#include <QString>

#include <deque>
#include <unordered_map>

namespace Broker {

// Publish and consume rates from the queues' own counters, sampled about once a second: nothing
// on the hot path, and with a shared Redis the rates are those of the whole cluster.
class RateTracker
{
public:
    // Records the counters of every queue at `nowMs`. Queues absent from `queues` are forgotten.
    void sample(qint64 nowMs, const QList<QueueInfo> &queues);
    QueueRates rates(const QString &queue) const;
    QueueRates totals() const { return compute(m_total); }

private:
    struct Sample
    {
        qint64 timeMs = 0;
        qint64 published = 0;
        qint64 delivered = 0;
    };
    using Series = std::deque<Sample>; // oldest first, about a minute of samples

    static void add(Series &series, const Sample &sample);
    static QueueRates compute(const Series &series);

    std::unordered_map<QString, Series> m_series;
    Series m_total;
};

} // namespace Broker
