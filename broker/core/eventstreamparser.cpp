// SPDX-License-Identifier: GPL-3.0-or-later
#include "eventstreamparser.h"

namespace Broker {

QList<StreamEvent> EventStreamParser::feed(const QByteArray &bytes)
{
    m_buffer += bytes;
    QList<StreamEvent> events;
    const char *data = m_buffer.constData();
    const qsizetype size = m_buffer.size();
    qsizetype start = 0;
    qsizetype end = m_scanned;
    while (true) {
        // Lines end with CRLF, LF or CR.
        while (end < size && data[end] != '\n' && data[end] != '\r')
            ++end;
        if (end >= size)
            break;
        if (data[end] == '\r' && end + 1 >= size)
            break; // a CR at the end: wait for a possible LF
        line(QByteArrayView(data + start, end - start), events);
        start = end + (data[end] == '\r' && data[end + 1] == '\n' ? 2 : 1);
        end = start;
    }
    m_scanned = end - start;
    m_buffer.remove(0, start);
    return events;
}

void EventStreamParser::line(QByteArrayView text, QList<StreamEvent> &events)
{
    if (text.isEmpty()) { // dispatch
        // The id takes effect with its event: an event cut off by a dropped connection is asked
        // for again on the next one (HTML, "dispatch the event": the last event ID buffer).
        m_lastEventId = m_idBuffer;
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
    const QByteArrayView field = colon < 0 ? text : text.first(colon);
    QByteArrayView value = colon < 0 ? QByteArrayView() : text.sliced(colon + 1);
    if (value.startsWith(' '))
        value = value.sliced(1);
    if (field == "event") {
        m_type = value.toByteArray();
    } else if (field == "data") {
        if (m_hasData)
            m_data += '\n';
        m_data += value;
        m_hasData = true;
    } else if (field == "id") {
        if (!value.contains('\0'))
            m_idBuffer = value.toByteArray();
    } else if (field == "retry") {
        bool ok = false;
        const int ms = value.toInt(&ok);
        if (ok && ms >= 0)
            m_retryMs = ms;
    }
}

} // namespace Broker
