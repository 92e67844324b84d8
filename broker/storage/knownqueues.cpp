// SPDX-License-Identifier: GPL-3.0-or-later
#include "knownqueues.h"

#include "resilience/publishspool.h"

#include <algorithm>

namespace Broker {

const QueueConfig *KnownQueues::config(const QString &queue) const
{
    const auto it = m_configs.constFind(queue);
    return it == m_configs.cend() ? nullptr : &it.value();
}

void KnownQueues::remember(const QString &queue, const QueueConfig &config, qint64 size)
{
    m_configs.insert(queue, config);
    m_sizes.insert(queue, size);
}

void KnownQueues::forget(const QString &queue)
{
    m_configs.remove(queue);
    m_sizes.remove(queue);
}

void KnownQueues::missing(const QString &queue)
{
    if (spooled(queue) == 0)
        m_configs.remove(queue);
}

void KnownQueues::take(const QString &queue, qint64 count)
{
    const auto it = m_sizes.find(queue);
    if (it != m_sizes.end())
        *it = std::max<qint64>(0, *it - count);
}

qint64 KnownQueues::knownSize(const QString &queue) const
{
    return m_sizes.value(queue) + spooled(queue);
}

qint64 KnownQueues::spooled(const QString &queue) const
{
    return m_spool ? m_spool->messageCount(queue) : 0;
}

} // namespace Broker
