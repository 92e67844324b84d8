// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "exchange.h"

#include "core/messageevent.h"
#include "core/user.h"

#include <QElapsedTimer>
#include <QHash>
#include <QObject>
#include <QStringList>
#include <QTimer>

namespace Broker {
class AccessPolicy;
class MessageBroker;
}

namespace Broker::Rest {

class EventCounters;

// What one reader of GET /events asked to see.
struct EventSelection
{
    QStringList queuePatterns;      // globs over queue names; empty: every queue
    bool messages = true;           // message events (each needs peek:{queue})
    bool queues = true;             // queue counters (list_queues)
    bool broker = true;             // broker counters and health (list_queues)
    QList<MessageEventKind> kinds;  // of message events; empty: every kind

    bool includesQueue(const QString &queue) const;
    bool includesKind(MessageEventKind kind) const;
};

// One open event stream: Server-Sent Events on an exchange that stays open. Message events are
// read from the broker's event sequence where this reader is in it, so a reader costs no memory
// of its own while it waits: what it has not taken stays in the connection's output, and beyond
// maxBufferedBytes nothing more is written until it reads. A reader that falls behind the history
// resumes after a `gap` event saying how many events went by; one that takes nothing for
// stallTimeoutMs while over the bound is dropped. Lives in the engine's thread.
class EventStream : public QObject
{
    Q_OBJECT
public:
    struct Limits
    {
        qint64 maxBufferedBytes = 0;
        int stallTimeoutMs = 0;
        int heartbeatMs = 0;
    };
    static constexpr int EventsPerPump = 256; // message events written at once; the rest follow in a later pass

    EventStream(ExchangePtr exchange, MessageBroker &broker, const AccessPolicy &policy, EventSelection selection,
                Limits limits, QObject *parent = nullptr);
    ~EventStream() override;

    // Sends the head and the `ready` event, and starts after message event `position` (one the
    // reader saw, or the newest for a reader that starts now). `gapReason` not empty: the
    // reader's position could not be used (another broker run) and it is told so first.
    // False when the client has gone already.
    bool start(quint64 position, const QString &gapReason = {});
    // Writes what is new for this reader (message events, then counters newer than it saw), as
    // far as its bound lets.
    void pump(const EventCounters &counters);
    // The user's roles changed (the directory was edited); false: its key no longer holds.
    void setUser(const User &user) { m_user = user; m_peekable.clear(); }
    const User &user() const { return m_user; }
    const QString &clientLabel() const { return m_clientLabel; }
    const EventSelection &selection() const { return m_selection; }
    // Ends the stream (the server stops, the key was revoked): the body ends, the connection closes.
    void finish();
    bool finished() const { return m_finished; }
    qint64 gapsSent() const { return m_gaps; }
    bool dropped() const { return m_dropped; }

Q_SIGNALS:
    // The stream is over (finished, dropped, or its reader left); the owner deletes it later.
    void closed(EventStream *stream);

private:
    void writeMessageEvents(QByteArray &out);
    void writeGap(QByteArray &out, const QString &reason, qint64 missed, quint64 resumeAfter);
    bool mayPeek(const QString &queue);
    QByteArray eventId(quint64 number) const;
    void send(const QByteArray &out);
    void heartbeat();

    ExchangePtr m_exchange;
    MessageBroker &m_broker;
    const AccessPolicy &m_policy;
    EventSelection m_selection;
    Limits m_limits;
    User m_user;
    QString m_clientLabel;
    const EventCounters *m_counters = nullptr; // the last counters pumped, for the retries
    QHash<QString, bool> m_peekable; // peek:{queue} of this user, as far as asked
    quint64 m_position = 0;          // the last message event handled (sent, or not for this reader)
    quint64 m_countersTick = 0;      // the counters' tick this reader has seen (0: none yet)
    QString m_pendingGap;            // told with the first message events
    QElapsedTimer m_stalled;         // valid while over the bound
    QTimer m_retry;                  // looks again while over the bound or still catching up
    QTimer m_heartbeat;              // restarted by every write
    qint64 m_gaps = 0;
    bool m_finished = false;
    bool m_dropped = false;
};

} // namespace Broker::Rest
