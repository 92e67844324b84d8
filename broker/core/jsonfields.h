// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "result.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QJsonValue>
#include <QString>

namespace Broker::JsonFields {

// JSON numbers are doubles: accepts only a whole number within [min, max]. The error reads
// "Invalid <label>: expected a whole number from <min> to <max>".
Result<qint64> wholeNumber(const QJsonValue &value, const QString &label, qint64 min, qint64 max);

// Appends `utf8` to `out` as a JSON string literal, quotes included, escaped per RFC 8259. Bytes
// from 0x80 up pass unchanged: the text must be valid UTF-8.
void appendString(QByteArray &out, QByteArrayView utf8);

} // namespace Broker::JsonFields
