// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/messageevent.h"
#include "eventring.h"

#include <QList>
#include <QString>

#include <unordered_map>

namespace Broker {

// The recent life of messages: a bounded log per queue (for a message's lifecycle and a queue's
// history) and a bounded log of the newest events over all queues (for live tails). Memory is
// bounded by capacity per queue times queues, and rings grow only as events arrive.
class EventLog
{
public:
    EventLog(int perQueueCapacity, int recentCapacity);

    // Numbers the event (1, 2, ...) and keeps it.
    void append(const MessageEvent &event);
    // Every kept event of the message with this sequence number, over all queues, oldest first.
    QList<MessageEvent> lifecycle(quint64 sequence) const;
    // The newest `limit` events of one queue, oldest first.
    QList<MessageEvent> queueEvents(const QString &queue, int limit) const;
    // Events numbered after `number`, oldest first, at most `limit` (the newest ones win).
    QList<MessageEvent> since(quint64 number, int limit) const;
    // The same, but the oldest win: the next `limit` events after `number` that are still kept,
    // for a reader that goes through the sequence in steps.
    QList<MessageEvent> after(quint64 number, int limit) const;
    quint64 lastNumber() const { return m_lastNumber; }
    // The number of the oldest event still kept over all queues; 0 while none is.
    quint64 oldestKeptNumber() const { return m_recent.empty() ? 0 : m_recent.front().number; }
    void forgetQueue(const QString &queue);

private:
    int m_perQueueCapacity;
    int m_recentCapacity;
    quint64 m_lastNumber = 0;
    std::unordered_map<QString, EventRing> m_byQueue;
    QString m_lastQueue;                            // the queue append() last recorded for
    EventRing *m_lastRing = nullptr; // its ring in m_byQueue
    EventRing m_recent;
};

} // namespace Broker
