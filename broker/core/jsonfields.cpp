// SPDX-License-Identifier: GPL-3.0-or-later
#include "jsonfields.h"

#include <cmath>

namespace Broker::JsonFields {

Result<qint64> wholeNumber(const QJsonValue &value, const QString &label, qint64 min, qint64 max)
{
    const double number = value.toDouble(std::nan(""));
    if (!value.isDouble() || std::isnan(number) || number != std::floor(number) || number < double(min)
        || number > double(max)) {
        return Error{ErrorCode::InvalidArgument,
                     QStringLiteral("Invalid %1: expected a whole number from %2 to %3").arg(label).arg(min).arg(max)};
    }
    return qint64(number);
}

} // namespace Broker::JsonFields
