// SPDX-License-Identifier: GPL-3.0-or-later
#include "readysets.h"

namespace Broker {

namespace {

void removeFrom(std::deque<StoredMessage> &messages, const std::function<bool(const StoredMessage &)> &take,
                std::vector<StoredMessage> &out)
{
    std::deque<StoredMessage> kept;
    for (StoredMessage &message : messages) {
        if (take(message))
            out.push_back(std::move(message));
        else
            kept.push_back(std::move(message));
    }
    messages.swap(kept);
}

// Messages enter in publish order, so the expired ones are at the front; a requeued message may
// be older than its neighbours but is then expired too, so stopping at the first live one is safe
// enough: anything left over is caught at delivery time.
void takeExpiredFront(std::deque<StoredMessage> &messages, qint64 cutoffMs, std::vector<StoredMessage> &out)
{
    while (!messages.empty() && messages.front().ttlStartMs() <= cutoffMs) {
        out.push_back(std::move(messages.front()));
        messages.pop_front();
    }
}

} // namespace

bool FifoReadySet::pop(StoredMessage &out)
{
    if (m_messages.empty())
        return false;
    out = std::move(m_messages.front());
    m_messages.pop_front();
    return true;
}

void FifoReadySet::forEach(const std::function<bool(const StoredMessage &)> &visit) const
{
    for (const StoredMessage &message : m_messages) {
        if (!visit(message))
            return;
    }
}

void FifoReadySet::removeIf(const std::function<bool(const StoredMessage &)> &take, std::vector<StoredMessage> &out)
{
    removeFrom(m_messages, take, out);
}

void FifoReadySet::takeExpired(qint64 cutoffMs, std::vector<StoredMessage> &out)
{
    takeExpiredFront(m_messages, cutoffMs, out);
}

void PriorityReadySet::push(StoredMessage &&message)
{
    m_levels[message.priority].push_back(std::move(message));
    ++m_size;
}

void PriorityReadySet::requeue(StoredMessage &&message)
{
    m_levels[message.priority].push_front(std::move(message));
    ++m_size;
}

bool PriorityReadySet::pop(StoredMessage &out)
{
    if (m_levels.empty())
        return false;
    const auto level = m_levels.begin();
    out = std::move(level->second.front());
    level->second.pop_front();
    if (level->second.empty())
        m_levels.erase(level);
    --m_size;
    return true;
}

void PriorityReadySet::forEach(const std::function<bool(const StoredMessage &)> &visit) const
{
    for (const auto &[priority, messages] : m_levels) {
        for (const StoredMessage &message : messages) {
            if (!visit(message))
                return;
        }
    }
}

void PriorityReadySet::removeIf(const std::function<bool(const StoredMessage &)> &take,
                                std::vector<StoredMessage> &out)
{
    const std::size_t before = out.size();
    for (auto it = m_levels.begin(); it != m_levels.end();) {
        removeFrom(it->second, take, out);
        it = it->second.empty() ? m_levels.erase(it) : std::next(it);
    }
    m_size -= qint64(out.size() - before);
}

void PriorityReadySet::takeExpired(qint64 cutoffMs, std::vector<StoredMessage> &out)
{
    const std::size_t before = out.size();
    for (auto it = m_levels.begin(); it != m_levels.end();) {
        takeExpiredFront(it->second, cutoffMs, out);
        it = it->second.empty() ? m_levels.erase(it) : std::next(it);
    }
    m_size -= qint64(out.size() - before);
}

void PriorityReadySet::clear()
{
    m_levels.clear();
    m_size = 0;
}

} // namespace Broker
