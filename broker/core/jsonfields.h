// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "result.h"

#include <QJsonValue>
#include <QString>

namespace Broker::JsonFields {

// JSON numbers are doubles: accepts only a whole number within [min, max]. The error reads
// "Invalid <label>: expected a whole number from <min> to <max>".
Result<qint64> wholeNumber(const QJsonValue &value, const QString &label, qint64 min, qint64 max);

} // namespace Broker::JsonFields
