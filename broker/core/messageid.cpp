// SPDX-License-Identifier: GPL-3.0-or-later
#include "messageid.h"

namespace Broker::MessageId {

namespace {
constexpr QLatin1StringView Prefix("msg-");
constexpr int HexDigits = 16;
} // namespace

QString format(quint64 sequence)
{
    static constexpr char Digits[] = "0123456789abcdef";
    QString id(Prefix.size() + HexDigits, Qt::Uninitialized);
    QChar *out = id.data();
    for (qsizetype i = 0; i < Prefix.size(); ++i)
        *out++ = QLatin1Char(Prefix[i]);
    for (int shift = (HexDigits - 1) * 4; shift >= 0; shift -= 4)
        *out++ = QLatin1Char(Digits[(sequence >> shift) & 0xF]);
    return id;
}

std::optional<quint64> parse(QStringView id)
{
    if (id.size() != Prefix.size() + HexDigits || !id.startsWith(Prefix))
        return std::nullopt;
    quint64 value = 0;
    for (QChar c : id.mid(Prefix.size())) {
        const char16_t u = c.unicode();
        int digit;
        if (u >= '0' && u <= '9')
            digit = u - '0';
        else if (u >= 'a' && u <= 'f')
            digit = u - 'a' + 10;
        else
            return std::nullopt;
        value = (value << 4) | quint64(digit);
    }
    return value;
}

} // namespace Broker::MessageId
