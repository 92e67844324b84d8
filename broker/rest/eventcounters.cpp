// SPDX-License-Identifier: GPL-3.0-or-later
#include "eventcounters.h"

#include "serializers.h"

#include "core/jsonwriter.h"

#include <QSet>

#include <algorithm>
#include <utility>

namespace Broker::Rest {

namespace {

QByteArray sseEvent(const char *type, const QByteArray &json)
{
    return QByteArray("event: ") + type + "\ndata: " + json + "\n\n";
}

} // namespace

quint64 EventCounters::update(const BrokerSnapshot &snapshot)
{
    ++m_tick;
    QSet<QString> present;
    present.reserve(snapshot.queues.size());
    for (const QueueInfo &queue : snapshot.queues) {
        present.insert(queue.name);
        JsonWriter out;
        writeQueue(out, queue, true);
        Entry &entry = m_queues[queue.name];
        if (entry.json != out.text()) {
            entry.json = out.text();
            entry.changedTick = m_tick;
        }
    }
    for (auto it = m_queues.begin(); it != m_queues.end();) {
        if (present.contains(it.key())) {
            ++it;
            continue;
        }
        m_removed.emplace_back(m_tick, it.key());
        it = m_queues.erase(it);
    }
    while (m_removed.size() > size_t(MaxRemovals)) {
        m_removalsForgottenUpTo = m_removed.front().first;
        m_removed.pop_front();
    }

    // Uptime is left out: it would make every update a change.
    JsonWriter out;
    out.beginObject();
    out.key("status").value(QString::fromLatin1(healthStatusName(snapshot.health)));
    out.key("storage").value(snapshot.storage);
    out.key("queue_count").value(qint64(snapshot.queues.size()));
    out.key("messages_total").value(snapshot.messagesTotal);
    out.key("messages_processed").value(snapshot.messagesProcessed);
    out.key("rates");
    writeRates(out, snapshot.rates);
    out.key("writable").value(snapshot.storeStatus.writable);
    if (!snapshot.storeStatus.breaker.isEmpty())
        out.key("breaker").value(snapshot.storeStatus.breaker);
    out.endObject();
    if (m_broker != out.text()) {
        m_broker = out.text();
        m_brokerChangedTick = m_tick;
    }
    return m_tick;
}

QByteArray EventCounters::queueEvents(quint64 seenTick, const std::function<bool(const QString &)> &visible) const
{
    if (m_tick == 0 || seenTick >= m_tick)
        return {};
    // A reader older than the removals still remembered gets the whole table, so that it can
    // drop what is gone by itself.
    const bool full = seenTick == 0 || seenTick < m_removalsForgottenUpTo;
    QList<const QByteArray *> changed;
    for (auto it = m_queues.cbegin(); it != m_queues.cend(); ++it) {
        if ((full || it->changedTick > seenTick) && visible(it.key()))
            changed.append(&it->json);
    }
    // A queue removed and made again is only among the changed ones.
    QSet<QString> removedSet;
    if (!full) {
        for (auto it = m_removed.crbegin(); it != m_removed.crend() && it->first > seenTick; ++it) {
            if (!m_queues.contains(it->second) && visible(it->second))
                removedSet.insert(it->second);
        }
    }
    QStringList removed(removedSet.cbegin(), removedSet.cend());
    removed.sort();
    if (!full && changed.isEmpty() && removed.isEmpty())
        return {};

    QByteArray events;
    qsizetype next = 0;
    do {
        const qsizetype end = std::min<qsizetype>(changed.size(), next + QueuesPerEvent);
        JsonWriter out;
        out.beginObject();
        out.key("full").value(full);
        out.key("queues").beginArray();
        for (qsizetype i = next; i < end; ++i)
            out.raw(*changed[i]);
        out.endArray();
        out.key("removed").beginArray();
        if (end == changed.size()) {
            for (const QString &name : std::as_const(removed))
                out.value(name);
        }
        out.endArray();
        out.key("more").value(end < changed.size());
        out.endObject();
        events += sseEvent("queues", out.text());
        next = end;
    } while (next < changed.size());
    return events;
}

QByteArray EventCounters::brokerEvent(quint64 seenTick) const
{
    if (m_tick == 0 || m_brokerChangedTick <= seenTick)
        return {};
    return sseEvent("broker", m_broker);
}

} // namespace Broker::Rest
