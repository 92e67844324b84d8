// SPDX-License-Identifier: GPL-3.0-or-later
#include "httpmetrics.h"

#include "prometheustext.h"

namespace Broker::Rest {


void HttpMetrics::record(const QString &method, const QString &route, int status, qint64 elapsedNs)
{
    ++m_requests[{method, route, status}];
    Histogram &histogram = m_latency[route];
    const double seconds = double(elapsedNs) / 1e9;
    for (std::size_t i = 0; i < Buckets.size(); ++i) {
        if (seconds <= Buckets[i])
            ++histogram.counts[i];
    }
    ++histogram.count;
    histogram.sum += seconds;
}

QByteArray HttpMetrics::exposition() const
{
    QByteArray out;
    out += "# HELP brokerdesk_http_requests_total HTTP requests answered, by method, route and status.\n"
           "# TYPE brokerdesk_http_requests_total counter\n";
    for (const auto &[key, count] : m_requests) {
        const auto &[method, route, status] = key;
        out += "brokerdesk_http_requests_total{method=\"" + promLabel(method) + "\",route=\"" + promLabel(route)
            + "\",status=\"" + QByteArray::number(status) + "\"} " + QByteArray::number(count) + '\n';
    }
    out += "# HELP brokerdesk_http_request_duration_seconds Time from a complete request to its answer.\n"
           "# TYPE brokerdesk_http_request_duration_seconds histogram\n";
    for (const auto &[route, histogram] : m_latency) {
        const QByteArray label = "route=\"" + promLabel(route) + '"';
        for (std::size_t i = 0; i < Buckets.size(); ++i) {
            out += "brokerdesk_http_request_duration_seconds_bucket{" + label + ",le=\""
                + QByteArray::number(Buckets[i]) + "\"} " + QByteArray::number(histogram.counts[i]) + '\n';
        }
        out += "brokerdesk_http_request_duration_seconds_bucket{" + label + ",le=\"+Inf\"} "
            + QByteArray::number(histogram.count) + '\n';
        out += "brokerdesk_http_request_duration_seconds_sum{" + label + "} " + QByteArray::number(histogram.sum, 'g', 9)
            + '\n';
        out += "brokerdesk_http_request_duration_seconds_count{" + label + "} " + QByteArray::number(histogram.count)
            + '\n';
    }
    return out;
}

} // namespace Broker::Rest
