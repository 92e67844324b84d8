// SPDX-License-Identifier: GPL-3.0-or-later
#include "jsonfields.h"

#include <cmath>
#include <cstring>

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

namespace {

// The escape a byte needs in a JSON string: none (0), two bytes (a backslash and a letter or the
// byte itself) or six (a backslash, u and four hex digits).
int escapeLength(unsigned char u)
{
    if (u >= 0x20)
        return u == '"' || u == '\\' ? 2 : 0;
    return u == '\n' || u == '\r' || u == '\t' || u == '\b' || u == '\f' ? 2 : 6;
}

// Calls plain(from, count) for each run of bytes of `utf8` that go out as they are, and
// escaped(byte) for each byte that needs an escape, in order.
template<typename Plain, typename Escaped>
void walk(QByteArrayView utf8, Plain plain, Escaped escaped)
{
    const char *p = utf8.data();
    const qsizetype size = utf8.size();
    qsizetype from = 0;
    qsizetype at = 0;
    while (at < size) {
        at += plainRun(p + at, size - at);
        if (at == size)
            break;
        const auto u = static_cast<unsigned char>(p[at]);
        if (escapeLength(u) == 0) { // UTF-8 beyond ASCII, or the short tail plainRun leaves
            ++at;
            continue;
        }
        plain(p + from, at - from);
        escaped(u);
        from = ++at;
    }
    plain(p + from, size - from);
}

} // namespace

void appendString(QByteArray &out, QByteArrayView utf8)
{
    static constexpr char Hex[] = "0123456789abcdef";
    // Measured first, then written into place with one resize: a stored message is a few
    // hundred bytes of JSON with a quote every few bytes, and an append per run costs more than
    // the run.
    qsizetype length = 2;
    walk(utf8, [&length](const char *, qsizetype count) { length += count; },
         [&length](unsigned char u) { length += escapeLength(u); });
    const qsizetype at = out.size();
    out.resize(at + length);
    char *w = out.data() + at;
    *w++ = '"';
    walk(
        utf8,
        [&w](const char *from, qsizetype count) {
            if (count == 0) // an empty text may have no data pointer at all
                return;
            std::memcpy(w, from, size_t(count));
            w += count;
        },
        [&w](unsigned char u) {
            *w++ = '\\';
            switch (u) {
            case '"': *w++ = '"'; break;
            case '\\': *w++ = '\\'; break;
            case '\n': *w++ = 'n'; break;
            case '\r': *w++ = 'r'; break;
            case '\t': *w++ = 't'; break;
            case '\b': *w++ = 'b'; break;
            case '\f': *w++ = 'f'; break;
            default:
                *w++ = 'u';
                *w++ = '0';
                *w++ = '0';
                *w++ = Hex[u >> 4];
                *w++ = Hex[u & 0xF];
            }
        });
    *w = '"';
}

} // namespace Broker::JsonFields
