// SPDX-License-Identifier: GPL-3.0-or-later
#include "retrypolicy.h"

#include <algorithm>
#include <cmath>

namespace Broker {

qint64 RetryPolicy::ceilingMs(int retry) const
{
    if (retry < 1)
        return 0;
    // Computed in floating point and clamped, so that large retry numbers cannot overflow.
    const double ceiling = double(baseDelayMs) * std::pow(multiplier, double(retry - 1));
    return ceiling >= double(maxDelayMs) ? maxDelayMs : std::max<qint64>(0, qint64(ceiling));
}

qint64 RetryPolicy::delayMs(int retry, std::mt19937_64 &random) const
{
    const qint64 ceiling = ceilingMs(retry);
    if (ceiling <= 0)
        return 0;
    return std::uniform_int_distribution<qint64>(0, ceiling)(random);
}

} // namespace Broker
