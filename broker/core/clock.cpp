// SPDX-License-Identifier: GPL-3.0-or-later
#include "clock.h"

#include <QDateTime>

namespace Broker {

qint64 SystemClock::nowMs() const
{
    return QDateTime::currentMSecsSinceEpoch();
}

} // namespace Broker
