// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/brokersnapshot.h"

#include <QByteArray>
#include <QHash>
#include <QString>

#include <deque>
#include <functional>
#include <utility>

namespace Broker::Rest {

// The queue and broker counters that event streams (GET /events) send, as the last snapshot left
// them: each queue's JSON with the update ("tick") it last changed in, the queues removed lately,
// and the broker's own counters. Shared by every stream: a snapshot is turned into JSON once per
// update, whatever the number of readers, and each reader asks for what changed after the tick it
// last saw. Memory: one JSON text per queue, plus the names of up to MaxRemovals removed queues.
class EventCounters
{
public:
    static constexpr int MaxRemovals = 4096;
    static constexpr int QueuesPerEvent = 500; // a full table goes out in parts of this many queues

    // Takes a snapshot as the next tick. Returns the tick.
    quint64 update(const BrokerSnapshot &snapshot);
    quint64 tick() const { return m_tick; }
    bool empty() const { return m_tick == 0; }

    // The `queues` events for a reader that saw `seenTick` (0: nothing yet, so the whole table),
    // limited to the queues `visible` accepts: one event per QueuesPerEvent queues, `more` true on
    // all but the last. Empty when nothing it may see changed.
    QByteArray queueEvents(quint64 seenTick, const std::function<bool(const QString &)> &visible) const;
    // The `broker` event when the broker's counters changed after `seenTick`, else empty.
    QByteArray brokerEvent(quint64 seenTick) const;

private:
    struct Entry
    {
        QByteArray json;
        quint64 changedTick = 0;
    };
    QHash<QString, Entry> m_queues;
    std::deque<std::pair<quint64, QString>> m_removed; // (tick, name), oldest first
    quint64 m_removalsForgottenUpTo = 0;               // removals of ticks up to this one were dropped
    QByteArray m_broker;
    quint64 m_brokerChangedTick = 0;
    quint64 m_tick = 0;
};

} // namespace Broker::Rest
