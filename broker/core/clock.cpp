// SPDX-License-Identifier: GPL-3.0-or-later
#include "clock.h"

#include <QDateTime>

#include <chrono>

namespace Broker {

qint64 SystemClock::nowMs() const
{
    return QDateTime::currentMSecsSinceEpoch();
}

qint64 SystemClock::monotonicMs() const
{
    using namespace std::chrono;
    return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

} // namespace Broker
