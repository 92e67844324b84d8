// SPDX-License-Identifier: GPL-3.0-or-later
#include "eventlog.h"

#include <algorithm>

namespace Broker {

EventLog::EventLog(int perQueueCapacity, int recentCapacity)
    : m_perQueueCapacity(qMax(0, perQueueCapacity)), m_recentCapacity(qMax(0, recentCapacity)),
      m_recent(std::size_t(m_recentCapacity))
{
}

void EventLog::append(const MessageEvent &event)
{
    ++m_lastNumber;
    if (m_perQueueCapacity > 0) {
        // A batch records its messages' events one after the other for one queue: the ring of
        // the last queue is kept at hand (map nodes do not move; forgetQueue() drops it).
        if (!m_lastRing || m_lastQueue != event.queue) {
            m_lastRing = &m_byQueue.try_emplace(event.queue, std::size_t(m_perQueueCapacity)).first->second;
            m_lastQueue = event.queue;
        }
        m_lastRing->push(event, m_lastNumber);
    }
    m_recent.push(event, m_lastNumber);
}

QList<MessageEvent> EventLog::lifecycle(quint64 sequence) const
{
    QList<MessageEvent> events;
    for (const auto &[queue, ring] : m_byQueue) {
        ring.forEachFrom(0, [&](const MessageEvent &event) {
            if (event.sequence == sequence && event.kind != MessageEventKind::Purged)
                events.append(event);
        });
    }
    std::sort(events.begin(), events.end(),
              [](const MessageEvent &a, const MessageEvent &b) { return a.number < b.number; });
    return events;
}

QList<MessageEvent> EventLog::queueEvents(const QString &queue, int limit) const
{
    QList<MessageEvent> events;
    const auto it = m_byQueue.find(queue);
    if (it == m_byQueue.end())
        return events;
    const EventRing &ring = it->second;
    const std::size_t skip = ring.size() > std::size_t(qMax(0, limit)) ? ring.size() - std::size_t(limit) : 0;
    events.reserve(qsizetype(ring.size() - skip));
    ring.forEachFrom(skip, [&](const MessageEvent &event) { events.append(event); });
    return events;
}

QList<MessageEvent> EventLog::since(quint64 number, int limit) const
{
    QList<MessageEvent> events;
    // Numbers in the ring are consecutive, so the start is found by arithmetic.
    if (m_recent.empty() || number >= m_lastNumber || limit <= 0)
        return events;
    const quint64 firstKept = m_recent.front().number;
    quint64 from = std::max(number + 1, firstKept);
    if (m_lastNumber - from + 1 > quint64(limit))
        from = m_lastNumber - quint64(limit) + 1;
    events.reserve(qsizetype(m_lastNumber - from + 1));
    m_recent.forEachFrom(std::size_t(from - firstKept), [&](const MessageEvent &event) { events.append(event); });
    return events;
}

QList<MessageEvent> EventLog::after(quint64 number, int limit) const
{
    QList<MessageEvent> events;
    if (m_recent.empty() || number >= m_lastNumber || limit <= 0)
        return events;
    const quint64 firstKept = m_recent.front().number;
    const quint64 from = std::max(number + 1, firstKept);
    const quint64 count = std::min<quint64>(m_lastNumber - from + 1, quint64(limit));
    events.reserve(qsizetype(count));
    const std::size_t first = std::size_t(from - firstKept);
    for (std::size_t i = first; i < first + std::size_t(count); ++i)
        events.append(m_recent.at(i));
    return events;
}

void EventLog::forgetQueue(const QString &queue)
{
    m_byQueue.erase(queue);
    m_lastRing = nullptr;
}

} // namespace Broker
