// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Helpers for tests of durable stores: run one operation to its completion, and everything
// observable about a store as text, so that two stores (before a restart and after) compare.

#include "awaitresult.h"

#include "core/queuestore.h"

#include <QStringList>
#include <QTest>

namespace Broker::Testing {

// Journal writes complete through the event loop: these run it until the completion comes.
template<typename T>
T get(std::function<void(Completion<T>)> operation)
{
    Result<T> result = awaitResult<T>(operation);
    if (!result.ok())
        qFatal("store operation failed: %s", qPrintable(result.error().message));
    return std::move(result).value();
}

inline void expectOk(std::function<void(Completion<void>)> operation)
{
    const Result<void> result = awaitResult<void>(operation);
    QVERIFY2(result.ok(), result.ok() ? "" : qPrintable(result.error().message));
}

// Everything observable about a store, as text that two stores can be compared by.
inline QString dump(QueueStore &store)
{
    QString text;
    const QList<QueueInfo> queues = get<QList<QueueInfo>>([&](auto done) { store.listQueues(done); });
    for (const QueueInfo &q : queues) {
        const QueueCounters &c = q.counters;
        text += QStringLiteral("%1 %2 depth=%3 inflight=%4 delayed=%5 counters=%6/%7/%8/%9/%10/%11/%12/%13 created=%14\n")
                    .arg(q.name, q.config.type)
                    .arg(q.depth)
                    .arg(q.inFlight)
                    .arg(q.delayed)
                    .arg(c.published)
                    .arg(c.delivered)
                    .arg(c.acked)
                    .arg(c.nacked)
                    .arg(c.expired)
                    .arg(c.deadLettered)
                    .arg(c.dropped)
                    .arg(c.redriven)
                    .arg(q.created, 0, 'f', 3);
        for (const ConsumerGroupInfo &g : q.groups)
            text += QStringLiteral("  group %1 pending=%2 lag=%3 consumers=%4\n")
                        .arg(g.name)
                        .arg(g.pending)
                        .arg(g.lag)
                        .arg(QStringList(g.consumers).join(QLatin1Char(',')));
        text += QStringLiteral("  options max_size=%1 ttl=%2 visibility=%3 max_deliveries=%4 dlq=%5 partitions=%6\n")
                    .arg(q.config.maxSize)
                    .arg(q.config.ttlSeconds)
                    .arg(q.config.visibilityTimeoutSeconds)
                    .arg(q.config.maxDeliveries)
                    .arg(q.config.deadLetterQueue)
                    .arg(q.config.partitions);
        BrowseQuery all;
        all.limit = 1000;
        const BrowsePage page = get<BrowsePage>([&](auto done) { store.browse(q.name, all, done); });
        for (const Message &m : page.messages)
            text += QStringLiteral("  %1 %2 d=%3 p=%4 from=%5 %6 %7\n")
                        .arg(m.id, QString::fromUtf8(m.data))
                        .arg(m.deliveryCount)
                        .arg(m.priority)
                        .arg(m.publisher, m.originQueue, m.deadLetterReason);
    }
    return text;
}

} // namespace Broker::Testing
