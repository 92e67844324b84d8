// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/queueinfo.h"

#include <QString>

namespace Broker::Ui {

// Where a queue is heading at its current rates: the backlog drains (empties), the queue
// reaches max_size (fills), or neither (rates balance, are zero, or the trend is too slow to
// matter). A straight-line extrapolation: honest for the next minutes, not for tomorrow.
struct Forecast
{
    enum class Trend { None, Empties, Fills };
    Trend trend = Trend::None;
    double seconds = 0; // until it empties or fills; 0 with Trend::None

    friend bool operator==(const Forecast &, const Forecast &) = default;
};

namespace ForecastRules {
// Net rates smaller than this share of the larger rate count as balanced: rates are measured over
// a window, and a 1 % wobble would otherwise flip between "empties in 9 d" and "full in 9 d".
constexpr double BalancedShare = 0.02;
// Below this net rate (messages per second) nothing is forecast at all.
constexpr double MinNetRate = 0.05;
// Further out than this, a forecast says nothing useful: none.
constexpr double HorizonSeconds = 7 * 86400.0;
} // namespace ForecastRules

// `size` counts ready + delayed + in flight (what max_size bounds), `ready` what consumers take
// from; `maxSize` <= 0 means no bound. Rates in messages per second.
Forecast forecast(qint64 ready, qint64 size, qint64 maxSize, double publishRate, double consumeRate);
// The queue's forecast from its one-minute rates (steadier than the one-second ones).
Forecast forecast(const QueueInfo &queue);

// "empties in 3 min 5 s", "full in 45 s", or empty for none.
QString forecastText(const Forecast &forecast);

} // namespace Broker::Ui
