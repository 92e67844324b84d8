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

void appendString(QByteArray &out, QByteArrayView utf8)
{
    static constexpr char Hex[] = "0123456789abcdef";
    out += '"';
    for (const char c : utf8) {
        const auto u = static_cast<unsigned char>(c);
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        default:
            if (u < 0x20) {
                out += "\\u00";
                out += Hex[u >> 4];
                out += Hex[u & 0xF];
            } else {
                out += c;
            }
        }
    }
    out += '"';
}

} // namespace Broker::JsonFields
