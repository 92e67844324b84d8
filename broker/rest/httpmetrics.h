// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QString>

#include <array>
#include <map>

namespace Broker::Rest {

// Request counts by method, route and status, and a latency histogram per route, for /metrics.
// Routes are patterns ("/queues/{name}"), so the number of series stays bounded.
class HttpMetrics
{
public:
    static constexpr std::array<double, 12> Buckets{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                                    0.05,   0.1,   0.25,   0.5,   1.0,  2.5};

    void record(const QString &method, const QString &route, int status, qint64 elapsedNs);
    // Prometheus text exposition of the above.
    QByteArray exposition() const;

private:
    struct Histogram
    {
        std::array<quint64, Buckets.size()> counts{};
        quint64 count = 0;
        double sum = 0;
    };
    std::map<std::tuple<QString, QString, int>, quint64> m_requests;
    std::map<QString, Histogram> m_latency;
};

} // namespace Broker::Rest
