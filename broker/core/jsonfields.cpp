// SPDX-License-Identifier: GPL-3.0-or-later
#include "jsonfields.h"

#include <algorithm>
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

qsizetype stringLength(QByteArrayView utf8)
{
    qsizetype length = 2;
    walk(utf8, [&length](const char *, qsizetype count) { length += count; },
         [&length](unsigned char u) { length += escapeLength(u); });
    return length;
}

char *writeString(char *w, QByteArrayView utf8)
{
    static constexpr char Hex[] = "0123456789abcdef";
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
    *w++ = '"';
    return w;
}

void appendString(QByteArray &out, QByteArrayView utf8)
{
    // Measured first, then written into place with one resize: a stored message is a few
    // hundred bytes of JSON with a quote every few bytes, and an append per run costs more than
    // the run.
    const qsizetype at = out.size();
    out.resize(at + stringLength(utf8));
    writeString(out.data() + at, utf8);
}

namespace {

int hexDigit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

// The four hex digits at `p` as a code unit, or -1.
int readHex4(const char *p, const char *end)
{
    if (end - p < 4)
        return -1;
    int unit = 0;
    for (int i = 0; i < 4; ++i) {
        const int digit = hexDigit(p[i]);
        if (digit < 0)
            return -1;
        unit = unit * 16 + digit;
    }
    return unit;
}

char *putUtf8(char *w, char32_t c)
{
    if (c < 0x80) {
        *w++ = char(c);
    } else if (c < 0x800) {
        *w++ = char(0xC0 | (c >> 6));
        *w++ = char(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
        *w++ = char(0xE0 | (c >> 12));
        *w++ = char(0x80 | ((c >> 6) & 0x3F));
        *w++ = char(0x80 | (c & 0x3F));
    } else {
        *w++ = char(0xF0 | (c >> 18));
        *w++ = char(0x80 | ((c >> 12) & 0x3F));
        *w++ = char(0x80 | ((c >> 6) & 0x3F));
        *w++ = char(0x80 | (c & 0x3F));
    }
    return w;
}

// The closing quote of the string literal whose text begins at `p`, or nullptr when there is
// none before `end` or a control byte comes first. Escapes are stepped over, not checked.
const char *closingQuote(const char *p, const char *end)
{
    while (true) {
        p += plainRun(p, end - p);
        while (p < end && static_cast<unsigned char>(*p) >= 0x20 && *p != '"' && *p != '\\')
            ++p;
        if (p == end || static_cast<unsigned char>(*p) < 0x20)
            return nullptr;
        if (*p == '"')
            return p;
        if (end - p < 2)
            return nullptr;
        p += 2;
    }
}

} // namespace

bool readString(const char *&p, const char *end, QByteArray &out)
{
    if (p == end || *p != '"')
        return false;
    const char *text = p + 1;
    const char *close = closingQuote(text, end);
    if (!close)
        return false;
    // Found first, then written into place: no escape decodes to more bytes than it takes.
    const qsizetype at = out.size();
    out.resize(at + (close - text));
    char *w = out.data() + at;
    for (p = text; p < close;) {
        const char *from = p;
        p = std::find(p, close, '\\');
        std::memcpy(w, from, size_t(p - from));
        w += p - from;
        if (p == close)
            break;
        ++p; // the backslash; closingQuote() saw a byte after it
        switch (*p++) {
        case '"': *w++ = '"'; break;
        case '\\': *w++ = '\\'; break;
        case '/': *w++ = '/'; break;
        case 'b': *w++ = '\b'; break;
        case 'f': *w++ = '\f'; break;
        case 'n': *w++ = '\n'; break;
        case 'r': *w++ = '\r'; break;
        case 't': *w++ = '\t'; break;
        case 'u': {
            const int unit = readHex4(p, close);
            if (unit < 0)
                return false;
            p += 4;
            char32_t c = char32_t(unit);
            if (unit >= 0xDC00 && unit <= 0xDFFF)
                return false; // a low surrogate first
            if (unit >= 0xD800 && unit <= 0xDBFF) {
                if (close - p < 6 || p[0] != '\\' || p[1] != 'u')
                    return false;
                const int low = readHex4(p + 2, close);
                if (low < 0xDC00 || low > 0xDFFF)
                    return false;
                p += 6;
                c = 0x10000 + ((char32_t(unit) - 0xD800) << 10) + (char32_t(low) - 0xDC00);
            }
            w = putUtf8(w, c);
            break;
        }
        default:
            return false;
        }
    }
    out.truncate(w - out.constData());
    p = close + 1;
    return true;
}

} // namespace Broker::JsonFields
