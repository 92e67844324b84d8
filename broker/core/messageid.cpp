// SPDX-License-Identifier: GPL-3.0-or-later
#include "messageid.h"

#include <cstring>

namespace Broker::MessageId {

namespace {
constexpr QLatin1StringView Prefix("msg-");
constexpr int HexDigits = 16;
static_assert(TextLength == Prefix.size() + HexDigits);
} // namespace

void write(quint64 sequence, char *out)
{
    static constexpr char Digits[] = "0123456789abcdef";
    std::memcpy(out, Prefix.data(), size_t(Prefix.size()));
    out += Prefix.size();
    for (int i = HexDigits - 1; i >= 0; --i, sequence >>= 4)
        out[i] = Digits[sequence & 0xF];
}

QString format(quint64 sequence)
{
    char text[TextLength];
    write(sequence, text);
    return QString::fromLatin1(text, TextLength);
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
