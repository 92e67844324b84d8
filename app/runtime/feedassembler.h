// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/brokersnapshot.h"
#include "core/eventstreamparser.h"

#include <QByteArray>
#include <QMap>
#include <QJsonObject>
#include <QObject>
#include <QTimer>

namespace Broker {

// Assembles a broker's event stream (GET /events) into BrokerSnapshots: the bytes as they
// arrive, parsed, their JSON read into queues, broker counters and message events, and one
// snapshot handed out per IntervalMs at most, when something changed. A remote broker with
// 10,000 busy queues sends megabytes of counters a second: RemoteFeed runs this in a thread of
// its own so that reading them never holds up the GUI. Works in whichever thread it lives in.
class FeedAssembler : public QObject
{
    Q_OBJECT
public:
    static constexpr int MaxEventsPerSnapshot = 1000; // the newest, when more came in one interval

    explicit FeedAssembler(int intervalMs, QObject *parent = nullptr);

    // The next bytes of the stream.
    void feed(const QByteArray &bytes);
    // A new stream starts: a fresh line buffer; the last event id stays (it is what resumes).
    void restart();
    // The stream ended: what arrived is handed out now (assembled() follows at once, with the
    // last event id read, even when nothing else changed).
    void flush();

Q_SIGNALS:
    // `snapshot` has the queues sorted by name and the message events since the last one;
    // `lastEventId` is the id of the last event read; `eventsMissed` counts the events the
    // broker said were missed (gap events) since this was made.
    void assembled(const Broker::BrokerSnapshot &snapshot, const QByteArray &lastEventId, qint64 eventsMissed,
                   bool flushed);

private:
    void handle(const StreamEvent &event);
    void readQueues(const QJsonObject &json);
    void emitSnapshot(bool flushed);

    EventStreamParser m_parser;
    QTimer m_timer;                 // coalesces what arrives into one snapshot per interval
    BrokerSnapshot m_broker;        // the broker-wide fields
    QMap<QString, QueueInfo> m_queues;
    QMap<QString, QueueInfo> m_incomingTable; // a whole table arriving in parts (`more`)
    bool m_receivingTable = false;
    QList<MessageEvent> m_newEvents;
    qint64 m_eventsMissed = 0;
};

} // namespace Broker
