// SPDX-License-Identifier: GPL-3.0-or-later
#include "nodeidgenerator.h"


#include <algorithm>

namespace Broker {

NodeIdGenerator::NodeIdGenerator(const Clock &clock, quint64 seed) : m_clock(clock), m_random(seed)
{
    setNode(m_random());
}

quint64 NodeIdGenerator::nextSequence()
{
    const qint64 now = std::max<qint64>(m_clock.nowMs() - EpochMs, 0);
    if (now > m_lastMs) {
        m_lastMs = now;
        m_counter = 0;
    } else if (++m_counter >= (1u << CounterBits)) {
        ++m_lastMs; // more than 8192 ids in one millisecond: borrow from the next one
        m_counter = 0;
    }
    return (quint64(m_lastMs) << (NodeBits + CounterBits)) | (m_node << CounterBits) | m_counter;
}

QString NodeIdGenerator::newReceipt()
{
    return QStringLiteral("%1").arg(quint64(m_random()), 16, 16, QLatin1Char('0'));
}

} // namespace Broker
