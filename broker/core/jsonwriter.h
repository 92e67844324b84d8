// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QStringView>

namespace Broker {

// Writes compact JSON text directly, for the answers on the hot path (publish, consume), where
// building a QJsonObject and serialising it costs more than everything else together. Messages'
// data is already compact JSON and is embedded as it is. The caller keeps the structure valid;
// strings are escaped per RFC 8259.
class JsonWriter
{
public:
    JsonWriter &beginObject();
    JsonWriter &endObject();
    JsonWriter &beginArray();
    JsonWriter &endArray();
    JsonWriter &key(const char *name); // ASCII names without characters that need escaping
    JsonWriter &value(QStringView text);
    JsonWriter &value(qint64 number);
    JsonWriter &value(int number) { return value(qint64(number)); }
    JsonWriter &value(double number);
    JsonWriter &value(bool flag);
    JsonWriter &messageId(quint64 sequence); // the id's text (MessageId::format), without a QString
    JsonWriter &null();
    JsonWriter &raw(const QByteArray &json); // already valid compact JSON

    // What was written; valid until the next write.
    const QByteArray &text() const;

private:
    JsonWriter &punctuation(char c, bool commaFirst);
    JsonWriter &plain(QByteArrayView text); // a value that needs no escaping

    // Room for `size` more bytes, after a comma when one is due, without a call into QByteArray
    // for each piece (QByteArray::append costs ~110 instructions a call).
    char *grow(qsizetype size);

    mutable QByteArray m_buffer; // its size is the capacity; text() cuts it to m_size
    qsizetype m_size = 0;
    bool m_needComma = false;
};

} // namespace Broker
