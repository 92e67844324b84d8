// SPDX-License-Identifier: GPL-3.0-or-later
#include "spoolingpublisher.h"

#include "knownqueues.h"
#include "rediseventrelay.h"
#include "storeerrors.h"

#include "errors/logging.h"

namespace Broker {

using PreparedPublish = RedisOperations::PreparedPublish;

SpoolingPublisher::SpoolingPublisher(std::unique_ptr<PublishSpool> spool, RedisOperations &operations,
                                     KnownQueues &known, RedisEventRelay &events, const Clock &clock,
                                     int drainIntervalMs, int blockedReminderMs)
    : m_spool(std::move(spool)), m_operations(operations), m_known(known), m_events(events), m_clock(clock),
      m_blockedReminderMs(blockedReminderMs)
{
    m_drainTimer.setInterval(drainIntervalMs);
    QObject::connect(&m_drainTimer, &QTimer::timeout, [this] { drain(); });
    if (!m_spool->isEmpty()) {
        qCInfo(lcStorage).noquote() << QStringLiteral("publish spool %1: %2 messages wait for Redis")
                                           .arg(m_spool->path())
                                           .arg(m_spool->messageCount());
        m_drainTimer.start();
    }
}

SpoolingPublisher::~SpoolingPublisher()
{
    m_spool.reset();
}

void SpoolingPublisher::publish(const QString &name, const QList<NewMessage> &messages, const QString &publisher,
                                Completion<PublishResult> done)
{
    const std::weak_ptr<int> alive = m_lifetime;
    m_operations.preparePublish(
        name, messages, publisher, [this, alive, name, publisher, done = std::move(done)](Result<PreparedPublish> prepared) mutable {
            if (alive.expired())
                return done(Error{ErrorCode::Unavailable, QStringLiteral("The publish spool was closed")});
            if (!prepared)
                return done(prepared.error());
            // Behind a spool that still holds batches, so that the order of publishes holds.
            if (m_spool->hasWork())
                return spool(name, *prepared, publisher, std::move(done));
            m_operations.publish(name, *prepared, publisher,
                                 [this, alive, name, publisher, prepared = *prepared,
                                  done = std::move(done)](Result<PublishResult> published) mutable {
                                     // It never reached Redis (not connected, breaker open): the spool takes it.
                                     if (!published && published.error().detail == Redis::NotSent && !alive.expired())
                                         return spool(name, prepared, publisher, std::move(done));
                                     done(std::move(published));
                                 });
        });
}

void SpoolingPublisher::spool(const QString &name, const PreparedPublish &prepared, const QString &publisher,
                              Completion<PublishResult> done)
{
    // Only queues this broker has seen: a publish to a queue nobody knows must not be accepted.
    const QueueConfig *known = m_known.config(name);
    if (!known) {
        return done(Error{ErrorCode::Unavailable,
                          QStringLiteral("Redis is unavailable and this broker does not know queue '%1' yet").arg(name)});
    }
    const QueueConfig config = *known;
    const QByteArrayList &args = prepared.args;
    const qint64 count = args.size() / 2;
    // Judged on what is known: consumers elsewhere may have taken some since, never fewer arrived.
    if (m_known.knownSize(name) + count > config.maxSize)
        return done(StoreErrors::queueFull());
    QList<PublishSpool::Message> messages;
    messages.reserve(count);
    for (qsizetype i = 0; i + 1 < args.size(); i += 2)
        messages.append({args[i].toLongLong(), args[i + 1]});
    m_spool->append(name, config, std::move(messages),
                    [this, name, publisher, result = prepared.result, done = std::move(done)](Result<void> written) mutable {
                        if (!written)
                            return done(written.error());
                        for (const quint64 sequence : std::as_const(result.messageSequences))
                            m_events.emitEvent(MessageEventKind::Published, name, sequence, 0, publisher,
                                               QStringLiteral("spooled"));
                        result.queueSize = -1; // unknown until Redis has them
                        if (!m_drainTimer.isActive())
                            m_drainTimer.start();
                        done(std::move(result));
                    });
}

void SpoolingPublisher::drain()
{
    if (m_draining)
        return;
    if (m_spool->isEmpty()) {
        if (!m_spool->hasWork())
            m_drainTimer.stop();
        return;
    }
    m_draining = true;
    const std::weak_ptr<int> alive = m_lifetime;
    m_operations.drain(m_spool->identity(), m_spool->front(), [this, alive](Result<qint64> status) {
        if (alive.expired())
            return;
        m_draining = false;
        if (m_spool->isEmpty())
            return;
        drained(m_spool->front(), std::move(status));
    });
}

void SpoolingPublisher::drained(const PublishSpool::Batch &batch, Result<qint64> status)
{
    const QString queue = batch.queue;
    const qint64 count = batch.messages.size();
    if (!status) {
        const Error &error = status.error();
        // Still out of reach, or no answer (the outcome is unknown: sent again, Redis takes it once).
        if (error.code == ErrorCode::Unavailable || error.code == ErrorCode::Timeout)
            return;
        if (error.code == ErrorCode::QueueNotFound)
            return block(QStringLiteral("Queue '%1' is missing in Redis and the spool has no record of its "
                                        "configuration: %2 spooled messages wait. Create the queue to have "
                                        "them delivered.")
                             .arg(queue)
                             .arg(count));
        // Redis refused the script (out of memory, a read-only replica, ...): try again later.
        return block(QStringLiteral("Redis refused %1 spooled messages for queue '%2' (%3); they wait and "
                                    "are tried again.")
                         .arg(count)
                         .arg(queue, error.message));
    }
    if (*status == RedisOperations::TakenIntoRecreatedQueue) {
        ++m_queuesRecreated;
        if (batch.config)
            m_known.remember(queue, *batch.config, 0);
        else
            m_known.setSize(queue, 0);
        m_events.report(StoreIncident::Level::Warning, QStringLiteral("queue_recreated"),
                        QStringLiteral("Queue '%1' was missing in Redis (restarted without its data?) when spooled "
                                       "publishes for it were delivered: it was created again with its recorded "
                                       "configuration; its earlier messages and counters are gone with Redis's data")
                            .arg(queue));
    } else if (*status == RedisOperations::QueueDeletedOnPurpose) {
        m_discarded += count;
        m_events.report(StoreIncident::Level::Warning, QStringLiteral("spooled_messages_discarded"),
                        QStringLiteral("Queue '%1' was deleted while %2 publishes for it waited in the spool: they "
                                       "were removed with the queue")
                            .arg(queue)
                            .arg(count));
    }
    if (*status == RedisOperations::Taken || *status == RedisOperations::TakenIntoRecreatedQueue) {
        m_known.add(queue, count);
        m_events.available(queue);
    }
    if (!m_blocked.isEmpty()) {
        m_blocked.clear();
        m_blockedReportedMs = 0;
        m_events.report(StoreIncident::Level::Info, QStringLiteral("spool_unblocked"),
                        QStringLiteral("The publish spool delivers again (queue '%1')").arg(queue));
    }
    m_spool->drained();
    drain(); // the next batch at once
}

void SpoolingPublisher::block(const QString &reason)
{
    // Reported when it starts and again now and then while it lasts, so /errors shows it is current.
    const qint64 now = m_clock.nowMs();
    if (reason != m_blocked || now - m_blockedReportedMs >= m_blockedReminderMs) {
        m_blockedReportedMs = now;
        m_events.report(StoreIncident::Level::Error, QStringLiteral("spool_blocked"), reason);
    }
    m_blocked = reason;
}

} // namespace Broker
