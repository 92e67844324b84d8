// SPDX-License-Identifier: GPL-3.0-or-later
#include "forecast.h"

#include "format.h"

#include <QCoreApplication>

#include <cmath>

namespace Broker::Ui {

Forecast forecast(qint64 ready, qint64 size, qint64 maxSize, double publishRate, double consumeRate)
{
    const double net = publishRate - consumeRate;
    const double larger = std::max(publishRate, consumeRate);
    if (!std::isfinite(net) || std::abs(net) < ForecastRules::MinNetRate
        || std::abs(net) < ForecastRules::BalancedShare * larger)
        return {};
    Forecast result;
    if (net > 0) {
        if (maxSize <= 0)
            return {};
        result = {Forecast::Trend::Fills, double(std::max<qint64>(0, maxSize - size)) / net};
    } else {
        if (ready <= 0)
            return {}; // already empty: consumers keep up with every publish
        result = {Forecast::Trend::Empties, double(ready) / -net};
    }
    if (result.seconds > ForecastRules::HorizonSeconds)
        return {};
    return result;
}

Forecast forecast(const QueueInfo &queue)
{
    // max_size bounds each partition: a partitioned queue holds that many times the partitions.
    const qint64 capacity = queue.config.maxSize * qMax(1, queue.config.partitions);
    return forecast(queue.depth, queue.size(), capacity, queue.rates.publish1m, queue.rates.consume1m);
}

QString forecastText(const Forecast &forecast)
{
    const QString in = formatDuration(qint64(std::ceil(forecast.seconds)));
    switch (forecast.trend) {
    case Forecast::Trend::None: return {};
    case Forecast::Trend::Empties: return QCoreApplication::translate("Forecast", "empties in %1").arg(in);
    case Forecast::Trend::Fills:
        return forecast.seconds <= 0 ? QCoreApplication::translate("Forecast", "full now")
                                     : QCoreApplication::translate("Forecast", "full in %1").arg(in);
    }
    return {};
}

} // namespace Broker::Ui
