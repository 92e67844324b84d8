// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QList>

namespace Broker {

// One Server-Sent Event as the stream spelled it (HTML Living Standard, "event stream
// interpretation"): its type ("message" when it named none), its data lines joined by '\n', and
// the last event id seen so far on the stream (ids carry over to events without one).
struct StreamEvent
{
    QByteArray type;
    QByteArray data;
    QByteArray lastEventId;
};

// Takes a text/event-stream body in pieces as they arrive and hands out the complete events.
// Comments (heartbeats) and events without data are not events; `retry:` is kept for the caller.
class EventStreamParser
{
public:
    QList<StreamEvent> feed(const QByteArray &bytes);
    const QByteArray &lastEventId() const { return m_lastEventId; }
    int retryMs() const { return m_retryMs; } // 0: the stream named none
    // A new connection starts with a fresh line buffer but keeps the last id.
    void reset() { m_buffer.clear(), m_scanned = 0, m_type.clear(), m_data.clear(), m_idBuffer = m_lastEventId, m_hasData = false; }

private:
    void line(QByteArrayView text, QList<StreamEvent> &events);

    QByteArray m_buffer;   // an unfinished line
    qsizetype m_scanned = 0; // how much of it was looked at for a line end already: a long line
                             // arriving in many pieces is scanned once, not once per piece
    QByteArray m_type;
    QByteArray m_data;
    QByteArray m_idBuffer;    // the id read so far; it becomes the last id when its event is complete
    QByteArray m_lastEventId;
    bool m_hasData = false;
    int m_retryMs = 0;
};

} // namespace Broker
