// SPDX-License-Identifier: GPL-3.0-or-later
#include "jsonwriter.h"

#include <algorithm>

namespace Broker::Rest {

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
    static constexpr char Hex[] = "0123456789abcdef";
    const QByteArray utf8 = text.toUtf8();
    m_out += '"';
    const bool plain = std::all_of(utf8.cbegin(), utf8.cend(), [](char c) {
        return static_cast<unsigned char>(c) >= 0x20 && c != '"' && c != '\\';
    });
    if (plain) { // ids, names, receipts: nothing to escape
        m_out += utf8;
        m_out += '"';
        m_needComma = true;
        return *this;
    }
    for (const char c : utf8) {
        const auto u = static_cast<unsigned char>(c);
        switch (c) {
        case '"': m_out += "\\\""; break;
        case '\\': m_out += "\\\\"; break;
        case '\n': m_out += "\\n"; break;
        case '\r': m_out += "\\r"; break;
        case '\t': m_out += "\\t"; break;
        case '\b': m_out += "\\b"; break;
        case '\f': m_out += "\\f"; break;
        default:
            if (u < 0x20) {
                m_out += "\\u00";
                m_out += Hex[u >> 4];
                m_out += Hex[u & 0xF];
            } else {
                m_out += c;
            }
        }
    }
    m_out += '"';
    m_needComma = true;
    return *this;
}

JsonWriter &JsonWriter::value(qint64 number)
{
    separate();
    m_out += QByteArray::number(number);
    m_needComma = true;
    return *this;
}

JsonWriter &JsonWriter::value(double number)
{
    separate();
    // Shortest text that reads back as the same double, as QJsonDocument writes it.
    m_out += QByteArray::number(number, 'g', QLocale::FloatingPointShortest);
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

} // namespace Broker::Rest
