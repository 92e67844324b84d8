// SPDX-License-Identifier: GPL-3.0-or-later
#include "eventstreamparser.h"

namespace Broker {

QList<StreamEvent> EventStreamParser::feed(const QByteArray &bytes)
{
    m_buffer += bytes;
    QList<StreamEvent> events;
    qsizetype start = 0;
    while (true) {
        // Lines end with CRLF, LF or CR.
        qsizetype end = start;
        while (end < m_buffer.size() && m_buffer[end] != '\n' && m_buffer[end] != '\r')
            ++end;
        if (end >= m_buffer.size())
            break;
        if (m_buffer[end] == '\r' && end + 1 >= m_buffer.size())
            break; // a CR at the end: wait for a possible LF
        line(m_buffer.mid(start, end - start), events);
        start = end + (m_buffer[end] == '\r' && m_buffer[end + 1] == '\n' ? 2 : 1);
    }
    m_buffer.remove(0, start);
    return events;
}

void EventStreamParser::line(const QByteArray &text, QList<StreamEvent> &events)
{
    if (text.isEmpty()) { // dispatch
        if (m_hasData)
            events.append({m_type.isEmpty() ? QByteArray("message") : m_type, m_data, m_lastEventId});
        m_type.clear();
        m_data.clear();
        m_hasData = false;
        return;
    }
    if (text.startsWith(':'))
        return; // a comment: heartbeats
    const qsizetype colon = text.indexOf(':');
    const QByteArray field = colon < 0 ? text : text.left(colon);
    QByteArray value = colon < 0 ? QByteArray() : text.mid(colon + 1);
    if (value.startsWith(' '))
        value.remove(0, 1);
    if (field == "event") {
        m_type = value;
    } else if (field == "data") {
        if (m_hasData)
            m_data += '\n';
        m_data += value;
        m_hasData = true;
    } else if (field == "id") {
        if (!value.contains('\0'))
            m_lastEventId = value;
    } else if (field == "retry") {
        bool ok = false;
        const int ms = value.toInt(&ok);
        if (ok && ms >= 0)
            m_retryMs = ms;
    }
}

} // namespace Broker
