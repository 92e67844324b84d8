// SPDX-License-Identifier: GPL-3.0-or-later
#include "jsonwriter.h"

#include "jsonfields.h"

#include <algorithm>
#include <charconv>
#include <cmath>

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

JsonWriter &JsonWriter::key(const char *name)
{
    separate();
    m_out += '"';
    m_out += name;
    m_out += "\":";
    m_needComma = false;
    return *this;
}

JsonWriter &JsonWriter::value(QStringView text)
{
    separate();
    // Plain ASCII (ids, names, receipts) is written as it is, without a temporary UTF-8 copy.
    const bool plain = std::all_of(text.begin(), text.end(), [](QChar c) {
        const char16_t u = c.unicode();
        return u >= 0x20 && u < 0x80 && u != '"' && u != '\\';
    });
    if (plain) {
        const qsizetype at = m_out.size();
        m_out.resize(at + text.size() + 2);
        char *out = m_out.data() + at;
        *out++ = '"';
        for (QChar c : text)
            *out++ = char(c.unicode());
        *out = '"';
        m_needComma = true;
        return *this;
    }
    JsonFields::appendString(m_out, text.toUtf8());
    m_needComma = true;
    return *this;
}

JsonWriter &JsonWriter::value(qint64 number)
{
    separate();
    char buffer[24];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, number);
    m_out.append(buffer, result.ptr - buffer);
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
