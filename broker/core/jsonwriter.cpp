// SPDX-License-Identifier: GPL-3.0-or-later
#include "jsonwriter.h"

#include "jsonfields.h"
#include "messageid.h"

#include <charconv>
#include <cmath>
#include <cstring>

namespace Broker {

void JsonWriter::separate()
{
    if (m_needComma)
        m_out += ',';
}

JsonWriter &JsonWriter::beginObject()
{
    separate();
    m_out += '{';
    m_needComma = false;
    return *this;
}

JsonWriter &JsonWriter::endObject()
{
    m_out += '}';
    m_needComma = true;
    return *this;
}

JsonWriter &JsonWriter::beginArray()
{
    separate();
    m_out += '[';
    m_needComma = false;
    return *this;
}

JsonWriter &JsonWriter::endArray()
{
    m_out += ']';
    m_needComma = true;
    return *this;
}

char *JsonWriter::grow(qsizetype size)
{
    const qsizetype at = m_out.size();
    const qsizetype comma = m_needComma ? 1 : 0;
    if (m_out.capacity() < at + comma + size)
        m_out.reserve(qMax<qsizetype>(2 * m_out.capacity(), at + comma + size + 64));
    m_out.resize(at + comma + size);
    char *out = m_out.data() + at;
    if (comma)
        *out++ = ',';
    return out;
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
    bool plain = true;
    for (QChar c : text) {
        const char16_t u = c.unicode();
        if (u < 0x20 || u >= 0x80 || u == '"' || u == '\\') {
            plain = false;
            break;
        }
        *out++ = char(u);
    }
    if (plain) {
        *out = '"';
        m_needComma = true;
        return *this;
    }
    m_out.chop(text.size() + 2 + (comma ? 1 : 0));
    separate();
    JsonFields::appendString(m_out, text.toUtf8());
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
    std::memcpy(grow(result.ptr - buffer), buffer, size_t(result.ptr - buffer));
    m_needComma = true;
    return *this;
}

JsonWriter &JsonWriter::value(double number)
{
    separate();
    // Shortest text that reads back as the same double; integral values without exponent.
    char buffer[32];
    const auto result = std::isfinite(number) ? std::to_chars(buffer, buffer + sizeof buffer, number)
                                              : std::to_chars(buffer, buffer + sizeof buffer, 0);
    m_out.append(buffer, result.ptr - buffer);
    m_needComma = true;
    return *this;
}

JsonWriter &JsonWriter::value(bool flag)
{
    separate();
    m_out += flag ? "true" : "false";
    m_needComma = true;
    return *this;
}

JsonWriter &JsonWriter::null()
{
    separate();
    m_out += "null";
    m_needComma = true;
    return *this;
}

JsonWriter &JsonWriter::raw(const QByteArray &json)
{
    separate();
    m_out += json;
    m_needComma = true;
    return *this;
}

} // namespace Broker
