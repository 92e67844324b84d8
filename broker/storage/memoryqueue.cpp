// SPDX-License-Identifier: GPL-3.0-or-later
#include "memoryqueue.h"

namespace Broker {

MemoryQueue::MemoryQueue(QString name, QueueConfig config, qint64 createdMs, MemoryQueueHost &host)
    : m_host(host), m_name(std::move(name)), m_config(std::move(config)), m_createdMs(createdMs)
{
}

QueueInfo MemoryQueue::info() const
{
    QueueInfo info;
    info.name = m_name;
    info.config = m_config;
    info.created = double(m_createdMs) / 1000.0;
    info.counters = m_counters;
    fillInfo(info);
    return info;
}

Result<void> MemoryQueue::checkPublish(const NewMessage &) const
{
    return {};
}

bool MemoryQueue::isExpired(const StoredMessage &message, qint64 nowMs) const
{
    return message.ttlStartMs() + ttlMs() <= nowMs;
}

qint64 MemoryQueue::visibilityMs(qint64 requestedMs) const
{
    return requestedMs > 0 ? requestedMs : m_config.visibilityTimeoutSeconds * 1000;
}

void MemoryQueue::expire(StoredMessage &&message)
{
    ++m_counters.expired;
    m_host.recordEvent(MessageEventKind::Expired, *this, message, {});
    if (!m_config.deadLetterQueue.isEmpty())
        m_host.deadLetter(*this, std::move(message), QStringLiteral("expired"));
    // Without a dead-letter queue an expired message is simply gone; `expired` counted it.
}

QString formatReceipt(quint64 receipt)
{
    return QStringLiteral("%1").arg(receipt, 16, 16, QLatin1Char('0'));
}

} // namespace Broker
