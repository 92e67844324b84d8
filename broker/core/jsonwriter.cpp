// SPDX-License-Identifier: GPL-3.0-or-later
#include "jsonwriter.h"

#include "jsonfields.h"
#include "messageid.h"

#include <charconv>
#include <cmath>
#include <cstring>

namespace Broker {

JsonWriter &JsonWriter::punctuation(char c, bool commaFirst)
{
    if (!commaFirst)
        m_needComma = false;
    *grow(1) = c;
    return *this;
}

JsonWriter &JsonWriter::beginObject()
{
    punctuation('{', true);
    m_needComma = false;
    return *this;
}

JsonWriter &JsonWriter::endObject()
{
    punctuation('}', false);
    m_needComma = true;
    return *this;
}

JsonWriter &JsonWriter::beginArray()
{
    punctuation('[', true);
    m_needComma = false;
    return *this;
}

JsonWriter &JsonWriter::endArray()
{
    punctuation(']', false);
    m_needComma = true;
    return *this;
}

char *JsonWriter::grow(qsizetype size)
{
    const qsizetype comma = m_needComma ? 1 : 0;
    const qsizetype end = m_size + comma + size;
    // The buffer's size is its capacity; m_size is what is written. Growing doubles it, from a
    // first size that holds most answers whole (a message with its fields, 400 to 500 bytes) and
    // stays within glibc's per-thread cache of small blocks (1 KiB measured slower: 1,032 is its limit).
    if (end > m_buffer.size())
        m_buffer.resize(qMax<qsizetype>(qMax<qsizetype>(2 * m_buffer.size(), end + 128), 512));
    char *out = m_buffer.data() + m_size; // detaches when text() handed the buffer out
    m_size = end;
    if (comma)
        *out++ = ',';
    return out;
}

const QByteArray &JsonWriter::text() const
{
    m_buffer.truncate(m_size); // keeps the capacity: writing on is not a reallocation
    return m_buffer;
}

JsonWriter &JsonWriter::key(const char *name)
{
    const size_t length = std::strlen(name);
    char *out = grow(qsizetype(length) + 3);
    *out++ = '"';
    std::memcpy(out, name, length);
    out[length] = '"';
    out[length + 1] = ':';
    m_needComma = false;
    return *this;
}

JsonWriter &JsonWriter::value(QStringView text)
{
    // Plain ASCII (ids, names, receipts) is written as it is, checked while it is copied, without
    // a temporary UTF-8 copy; anything else is taken back and escaped.
    const bool comma = m_needComma;
    char *out = grow(text.size() + 2);
    *out++ = '"';
    bool ascii = true;
    for (QChar c : text) {
        const char16_t u = c.unicode();
        if (u < 0x20 || u >= 0x80 || u == '"' || u == '\\') {
            ascii = false;
            break;
        }
        *out++ = char(u);
    }
    if (ascii) {
        *out = '"';
        m_needComma = true;
        return *this;
    }
    m_size -= text.size() + 2 + (comma ? 1 : 0);
    m_needComma = comma;
    QByteArray escaped;
    JsonFields::appendString(escaped, text.toUtf8());
    std::memcpy(grow(escaped.size()), escaped.constData(), size_t(escaped.size()));
    m_needComma = true;
    return *this;
}

JsonWriter &JsonWriter::messageId(quint64 sequence)
{
    char *out = grow(MessageId::TextLength + 2);
    *out = '"';
    MessageId::write(sequence, out + 1);
    out[MessageId::TextLength + 1] = '"';
    m_needComma = true;
    return *this;
}

JsonWriter &JsonWriter::value(qint64 number)
{
    char buffer[24];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, number);
    return plain(QByteArrayView(buffer, result.ptr - buffer));
}

JsonWriter &JsonWriter::value(double number)
{
    // Shortest text that reads back as the same double; integral values without exponent.
    char buffer[32];
    const auto result = std::isfinite(number) ? std::to_chars(buffer, buffer + sizeof buffer, number)
                                              : std::to_chars(buffer, buffer + sizeof buffer, 0);
    return plain(QByteArrayView(buffer, result.ptr - buffer));
}

JsonWriter &JsonWriter::value(bool flag)
{
    return plain(flag ? QByteArrayView("true") : QByteArrayView("false"));
}

JsonWriter &JsonWriter::null()
{
    return plain(QByteArrayView("null"));
}

JsonWriter &JsonWriter::raw(const QByteArray &json)
{
    return plain(json);
}

JsonWriter &JsonWriter::plain(QByteArrayView text)
{
    std::memcpy(grow(text.size()), text.data(), size_t(text.size()));
    m_needComma = true;
    return *this;
}

} // namespace Broker
