// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/clock.h"

#include <QString>

#include <random>

namespace Broker {

// Message ids and lease receipts for a store that several brokers share, without a round trip
// per id. A sequence number is milliseconds since 2025-01-01 (41 bits), this broker's node
// number (10 bits) and a counter within the millisecond (13 bits): brokers with different node
// numbers never hand out the same id, and one broker's ids only grow. Past 8192 ids in one
// millisecond it borrows from the next one; a clock set back repeats no id either (it keeps
// counting from the last millisecond used).
// The node number starts random and is replaced by the one the shared server assigns (see
// RedisStore::start). Receipts are 16 random hex digits. Time from the injected clock, which must
// outlive the generator. Single-threaded.
class NodeIdGenerator
{
public:
    static constexpr qint64 EpochMs = 1'735'689'600'000; // 2025-01-01T00:00:00Z
    static constexpr int NodeBits = 10;
    static constexpr int CounterBits = 13;

    NodeIdGenerator(const Clock &clock, quint64 seed);

    // Only the low NodeBits bits count.
    void setNode(quint64 node) { m_node = node & ((1u << NodeBits) - 1); }
    quint64 node() const { return m_node; }

    quint64 nextSequence();
    QString newReceipt();

private:
    const Clock &m_clock;
    std::mt19937_64 m_random;
    quint64 m_node = 0;
    qint64 m_lastMs = 0; // since EpochMs
    quint64 m_counter = 0;
};

} // namespace Broker
