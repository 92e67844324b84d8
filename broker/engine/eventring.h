// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/messageevent.h"

#include <cstddef>
#include <vector>

namespace Broker {

// A bounded ring of events, oldest first. It grows as events arrive (nothing is reserved for a
// queue that records few) and, once full, overwrites its oldest slot in place: a full ring takes
// an event without allocating or freeing anything but the event's own strings, where a deque
// frees and allocates a node every few events.
class EventRing
{
public:
    explicit EventRing(std::size_t capacity = 0) : m_capacity(capacity) {}

    std::size_t size() const { return m_slots.size(); }
    bool empty() const { return m_slots.empty(); }
    // The i-th oldest event kept (0: the oldest).
    const MessageEvent &at(std::size_t i) const
    {
        const std::size_t slot = m_oldest + i;
        return m_slots[slot < m_slots.size() ? slot : slot - m_slots.size()];
    }
    const MessageEvent &front() const { return at(0); }

    // Keeps a copy of `event` numbered `number`, dropping the oldest when the ring is full. A ring
    // of capacity 0 keeps nothing.
    void push(const MessageEvent &event, quint64 number)
    {
        MessageEvent *slot;
        if (m_slots.size() < m_capacity) {
            slot = &m_slots.emplace_back(event);
        } else if (m_capacity > 0) {
            slot = &m_slots[m_oldest];
            *slot = event;
            if (++m_oldest == m_slots.size())
                m_oldest = 0;
        } else {
            return;
        }
        slot->number = number;
    }

    // Calls f(event) for the events from the i-th oldest to the newest.
    template<typename F>
    void forEachFrom(std::size_t first, F &&f) const
    {
        for (std::size_t i = first; i < m_slots.size(); ++i)
            f(at(i));
    }

private:
    std::size_t m_capacity;
    std::size_t m_oldest = 0; // the slot of the oldest event once the ring is full; 0 before
    std::vector<MessageEvent> m_slots;
};

} // namespace Broker
