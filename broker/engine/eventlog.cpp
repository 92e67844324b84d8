// SPDX-License-Identifier: GPL-3.0-or-later
#include "eventlog.h"

#include <algorithm>

namespace Broker {

EventLog::EventLog(int perQueueCapacity, int recentCapacity)
    : m_perQueueCapacity(qMax(0, perQueueCapacity)), m_recentCapacity(qMax(0, recentCapacity))
{
}

void EventLog::append(MessageEvent event)
{
    event.number = ++m_lastNumber;
    if (m_perQueueCapacity > 0) {
        // A batch records its messages' events one after the other for one queue: the ring of
        // the last queue is kept at hand (map nodes do not move; forgetQueue() drops it).
        if (!m_lastRing || m_lastQueue != event.queue) {
            m_lastRing = &m_byQueue[event.queue];
            m_lastQueue = event.queue;
        }
        std::deque<MessageEvent> &ring = *m_lastRing;
        if (int(ring.size()) >= m_perQueueCapacity)
            ring.pop_front();
        ring.push_back(event);
    }
    if (m_recentCapacity > 0) {
        if (int(m_recent.size()) >= m_recentCapacity)
            m_recent.pop_front();
        m_recent.push_back(std::move(event));
    }
}

QList<MessageEvent> EventLog::lifecycle(quint64 sequence) const
{
    QList<MessageEvent> events;
    for (const auto &[queue, ring] : m_byQueue) {
        for (const MessageEvent &event : ring) {
            if (event.sequence == sequence && event.kind != MessageEventKind::Purged)
                events.append(event);
        }
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
    const std::deque<MessageEvent> &ring = it->second;
    const std::size_t skip = ring.size() > std::size_t(qMax(0, limit)) ? ring.size() - std::size_t(limit) : 0;
    for (auto e = ring.begin() + qsizetype(skip); e != ring.end(); ++e)
        events.append(*e);
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
    for (auto it = m_recent.begin() + qsizetype(from - firstKept); it != m_recent.end(); ++it)
        events.append(*it);
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
    const auto begin = m_recent.begin() + qsizetype(from - firstKept);
    events.append(QList<MessageEvent>(begin, begin + qsizetype(count)));
    return events;
}

void EventLog::forgetQueue(const QString &queue)
{
    m_byQueue.erase(queue);
    m_lastRing = nullptr;
}

} // namespace Broker
