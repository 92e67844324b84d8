// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "result.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QJsonValue>
#include <QString>
#include <QtAlgorithms>

#include <cstring>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace Broker::JsonFields {

// JSON numbers are doubles: accepts only a whole number within [min, max]. The error reads
// "Invalid <label>: expected a whole number from <min> to <max>".
Result<qint64> wholeNumber(const QJsonValue &value, const QString &label, qint64 min, qint64 max);

// Appends `utf8` to `out` as a JSON string literal, quotes included, escaped per RFC 8259. Bytes
// from 0x80 up pass unchanged: the text must be valid UTF-8.
void appendString(QByteArray &out, QByteArrayView utf8);
// appendString's two steps, for writers that size their output once: the literal's length
// (quotes included), and writing it at `w` (returns the end of what was written).
qsizetype stringLength(QByteArrayView utf8);
char *writeString(char *w, QByteArrayView utf8);

// Reads the JSON string literal that begins at `p` (its opening quote), appends it to `out` as
// UTF-8 and moves `p` past its closing quote. False (with `p` and what was appended to `out`
// unspecified) when the text is not a well-formed string before `end`: a control byte, an
// unknown escape, or a \u escape that is no scalar value (a lone surrogate). Bytes from 0x80 up
// are copied unchecked, as appendString writes them.
bool readString(const char *&p, const char *end, QByteArray &out);

namespace Detail {
// Whether the eight bytes at `p` are all printable ASCII other than '"' and '\\' (bytes
// 0x20-0x7f), by the word-at-a-time tests for "some byte is less than n" and "some byte is
// zero" (exact for n <= 128).
inline bool plainAscii(const char *p)
{
    constexpr quint64 ones = 0x0101010101010101ULL;
    constexpr quint64 highs = 0x8080808080808080ULL;
    quint64 v;
    std::memcpy(&v, p, sizeof v);
    const quint64 quote = v ^ (ones * '"');
    const quint64 backslash = v ^ (ones * '\\');
    const quint64 special = (v | ((v - ones * 0x20) & ~v) | ((quote - ones) & ~quote) | ((backslash - ones) & ~backslash));
    return (special & highs) == 0;
}
} // namespace Detail

// How many of the `available` bytes at `p` are plain (printable ASCII other than '"' and '\\'),
// up to the first that needs a look: 16 at a time with SSE2 (part of every x86-64), else 8 at a
// time. A tail shorter than that is left to the caller's byte loop. For scanning and writing
// JSON strings, where such runs are most of the text.
// Inline: the scanner calls it for every string of a request.
inline qsizetype plainRun(const char *p, qsizetype available)
{
    qsizetype run = 0;
#ifdef __SSE2__
    const __m128i quote = _mm_set1_epi8('"');
    const __m128i backslash = _mm_set1_epi8('\\');
    const __m128i space = _mm_set1_epi8(0x20);
    while (run + 16 <= available) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(p + run));
        // Signed bytes: "less than 0x20" catches the controls and every byte >= 0x80.
        const __m128i special = _mm_or_si128(_mm_cmplt_epi8(v, space),
                                             _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)));
        if (const int mask = _mm_movemask_epi8(special))
            return run + qCountTrailingZeroBits(quint32(mask));
        run += 16;
    }
#endif
    while (run + 8 <= available && Detail::plainAscii(p + run))
        run += 8;
    return run;
}

} // namespace Broker::JsonFields
