// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

namespace Broker::Ui {

// How numbers and times read in tables and labels, the same on every page.
QString formatCount(qint64 value);           // 1234567 -> "1,234,567"
QString formatRate(double perSecond);        // "0", "3.5/s", "12.4k/s"
QString formatDuration(qint64 seconds);      // "45 s", "3 min 5 s", "2 h 10 min", "3 d 4 h"
QString formatMillis(qint64 ms);             // "850 ms", "1.2 s", "3 min 5 s"
QString formatTimestamp(qint64 msSinceEpoch); // local time "2026-11-29 21:05:03"; "—" for 0
QString formatClock(qint64 msSinceEpoch);    // local time with milliseconds "21:05:03.120"

} // namespace Broker::Ui
