// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/queuestore.h"
#include "redisoperations.h"

#include "core/clock.h"
#include "resilience/publishspool.h"

#include <QTimer>

#include <memory>

namespace Broker {

class KnownQueues;
class RedisEventRelay;

// Publishes that go to a local spool while Redis is out of reach, and their way back.
//
// A publish that never reached Redis (detail Redis::NotSent: not connected, breaker open) is
// written to the spool instead, for queues this broker knows; until the spool is empty, newer
// publishes queue up behind it, so that the order of publishes holds. A spooled publish is
// judged against max_size on what this broker knows (KnownQueues::knownSize): consumers
// elsewhere may have taken some since, never fewer arrived. It is answered once it is on disk,
// with queue size -1 (unknown until Redis has it).
// A timer tries the front batch every `drainIntervalMs` while the spool holds any; drain.lua takes
// each batch once however often it is sent. A queue missing when its batch drains is created
// again from the configuration recorded with the batch (incident "queue_recreated"), unless it
// was deleted on purpose ("spooled_messages_discarded"); a batch that cannot be delivered stays
// at the head of the spool and is reported as "spool_blocked" when that starts and again every
// `blockedReminderMs` while it lasts.
//
// Owns the spool. The operations, known queues, events and clock are not owned and must outlive
// the publisher. Single-threaded: the store's thread, where every completion runs.
class SpoolingPublisher
{
public:
    SpoolingPublisher(std::unique_ptr<PublishSpool> spool, RedisOperations &operations, KnownQueues &known,
                      RedisEventRelay &events, const Clock &clock, int drainIntervalMs, int blockedReminderMs);
    // Runs the completions of batches still on their way to the disk, while everything they use is here.
    ~SpoolingPublisher();

    void publish(const QString &name, const QList<NewMessage> &messages, const QString &publisher,
                 Completion<PublishResult> done);
    // Runs now the completions of batches on their way to the disk (shutdown).
    void flush() { m_spool->flush(); }

    const PublishSpool &spool() const { return *m_spool; }
    qint64 queuesRecreated() const { return m_queuesRecreated; }
    qint64 discarded() const { return m_discarded; }
    const QString &blocked() const { return m_blocked; } // why the front batch waits; empty: it does not

private:
    void spool(const QString &name, const RedisOperations::PreparedPublish &prepared, const QString &publisher,
               Completion<PublishResult> done);
    void drain();
    // The drain script's answer for the front batch.
    void drained(const PublishSpool::Batch &batch, Result<qint64> status);
    // The front batch cannot be delivered: it stays, and the operator hears of it.
    void block(const QString &reason);

    std::unique_ptr<PublishSpool> m_spool;
    RedisOperations &m_operations;
    KnownQueues &m_known;
    RedisEventRelay &m_events;
    const Clock &m_clock;
    const int m_blockedReminderMs;
    QTimer m_drainTimer;
    bool m_draining = false; // a batch is on its way to Redis
    qint64 m_queuesRecreated = 0;
    qint64 m_discarded = 0;
    QString m_blocked;
    qint64 m_blockedReportedMs = 0;
    // Replies that arrive after the publisher is gone (a store given another spool) find this expired.
    std::shared_ptr<int> m_lifetime = std::make_shared<int>();
};

} // namespace Broker
