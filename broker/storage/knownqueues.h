// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/queueconfig.h"

#include <QHash>
#include <QString>

namespace Broker {

class PublishSpool;

// What this broker last saw of each queue in a store that other brokers change too: its
// configuration (scripts check the type again, so a stale entry is harmless) and the messages it
// held (ready + delayed + in flight). The sizes are an estimate, used only to judge max_size
// while publishes are spooled; they may be off by what other brokers did since.
// A queue with messages in the publish spool keeps its configuration when Redis says it is
// missing: the spool creates it again when they drain, and publishes keep queueing behind them.
// The spool is not owned and must outlive its use here (or be unset first). Single-threaded.
class KnownQueues
{
public:
    void setSpool(const PublishSpool *spool) { m_spool = spool; }

    // Null when this broker has not seen the queue (or forgot it).
    const QueueConfig *config(const QString &queue) const;
    void remember(const QString &queue, const QueueConfig &config, qint64 size);
    // Deleted: both are gone.
    void forget(const QString &queue);
    // Redis says the queue is missing: its configuration goes, unless spooled messages wait for it.
    void missing(const QString &queue);
    // The queue changed under this broker (another broker replaced it): asked for again next time.
    void replaced(const QString &queue) { m_configs.remove(queue); }

    void setSize(const QString &queue, qint64 size) { m_sizes.insert(queue, size); }
    void add(const QString &queue, qint64 count) { m_sizes[queue] += count; }
    // Messages delivered for good; nothing happens for a queue whose size is not known.
    void take(const QString &queue, qint64 count);
    // Its last known size plus what this broker spooled for it.
    qint64 knownSize(const QString &queue) const;
    qint64 spooled(const QString &queue) const;

private:
    const PublishSpool *m_spool = nullptr;
    QHash<QString, QueueConfig> m_configs;
    QHash<QString, qint64> m_sizes;
};

} // namespace Broker
