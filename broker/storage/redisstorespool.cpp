// SPDX-License-Identifier: GPL-3.0-or-later
// RedisStore's publish spool: publishes taken while Redis is out of reach, and their way back.
#include "redisstore.h"

#include "redisscripts.h"
#include "storeerrors.h"

#include "errors/logging.h"

#include <algorithm>

namespace Broker {

using Redis::RedisReply;
using RedisScripts::integerOf;

namespace {

// drain.lua's answers.
enum DrainStatus : qint64 { TakenBefore = 0, Taken = 1, TakenIntoRecreatedQueue = 2, QueueDeletedOnPurpose = 3 };

} // namespace

qint64 RedisStore::knownSize(const QString &queue) const
{
    return m_lastSizes.value(queue) + (m_spool ? m_spool->messageCount(queue) : 0);
}

void RedisStore::report(StoreIncident::Level level, const QString &code, const QString &message)
{
    if (m_listener)
        m_listener->storeIncident({level, code, message});
    else
        qCWarning(lcStorage).noquote() << message;
}

void RedisStore::spoolPublish(const QString &name, const QByteArrayList &publishArgs, PublishResult result,
                              const QString &publisher, Completion<PublishResult> done)
{
    // Only queues this broker has seen: a publish to a queue nobody knows must not be accepted.
    const auto known = m_configs.constFind(name);
    if (known == m_configs.cend()) {
        return done(Error{ErrorCode::Unavailable,
                          QStringLiteral("Redis is unavailable and this broker does not know queue '%1' yet").arg(name)});
    }
    const QueueConfig config = known.value();
    const qint64 count = publishArgs.size() / 2;
    // Judged on what is known: consumers elsewhere may have taken some since, never fewer arrived.
    if (knownSize(name) + count > config.maxSize)
        return done(StoreErrors::queueFull());
    QList<PublishSpool::Message> messages;
    messages.reserve(count);
    for (qsizetype i = 0; i + 1 < publishArgs.size(); i += 2)
        messages.append({publishArgs[i].toLongLong(), publishArgs[i + 1]});
    m_spool->append(name, config, std::move(messages),
                    [this, name, publisher, result = std::move(result), done = std::move(done)](Result<void> written) mutable {
                        if (!written)
                            return done(written.error());
                        for (const QString &id : std::as_const(result.messageIds))
                            emitEvent(MessageEventKind::Published, name, id, 0, publisher, QStringLiteral("spooled"));
                        result.queueSize = -1; // unknown until Redis has them
                        if (!m_drainTimer.isActive())
                            m_drainTimer.start();
                        done(std::move(result));
                    });
}

void RedisStore::drainSpool()
{
    if (m_draining || !m_spool)
        return;
    if (m_spool->isEmpty()) {
        if (!m_spool->hasWork())
            m_drainTimer.stop();
        return;
    }
    const PublishSpool::Batch &batch = m_spool->front();
    const QueueConfig config = batch.config.value_or(QueueConfig{});
    QByteArrayList args{m_spool->identity(),
                        QByteArray::number(batch.number),
                        batch.config ? "1" : "0",
                        config.type.toUtf8(),
                        QByteArray::number(config.maxSize),
                        QByteArray::number(config.ttlSeconds),
                        QByteArray::number(config.visibilityTimeoutSeconds),
                        QByteArray::number(config.maxDeliveries),
                        config.deadLetterQueue.toUtf8()};
    for (const PublishSpool::Message &message : batch.messages)
        args << QByteArray::number(message.dueMs) << message.stored;
    m_draining = true;
    run(m_script->drain, batch.queue, std::move(args), Retry::Never, [this](Result<RedisReply> reply) {
        m_draining = false;
        if (!m_spool || m_spool->isEmpty())
            return;
        drained(m_spool->front(), std::move(reply));
    });
}

void RedisStore::drained(const PublishSpool::Batch &batch, Result<RedisReply> reply)
{
    const QString queue = batch.queue;
    const qint64 count = batch.messages.size();
    if (!reply) {
        const Error &error = reply.error();
        // Still out of reach, or no answer (the outcome is unknown: sent again, Redis takes it once).
        if (error.code == ErrorCode::Unavailable || error.code == ErrorCode::Timeout)
            return;
        if (error.code == ErrorCode::QueueNotFound)
            return blockSpool(QStringLiteral("Queue '%1' is missing in Redis and the spool has no record of its "
                                             "configuration: %2 spooled messages wait. Create the queue to have "
                                             "them delivered.")
                                  .arg(queue)
                                  .arg(count));
        // Redis refused the script (out of memory, a read-only replica, ...): try again later.
        return blockSpool(QStringLiteral("Redis refused %1 spooled messages for queue '%2' (%3); they wait and "
                                         "are tried again.")
                              .arg(count)
                              .arg(queue, error.message));
    }
    const qint64 status = integerOf(*reply);
    if (status == TakenIntoRecreatedQueue) {
        ++m_queuesRecreated;
        if (batch.config)
            m_configs.insert(queue, *batch.config);
        m_lastSizes.insert(queue, 0);
        report(StoreIncident::Level::Warning, QStringLiteral("queue_recreated"),
               QStringLiteral("Queue '%1' was missing in Redis (restarted without its data?) when spooled "
                              "publishes for it were delivered: it was created again with its recorded "
                              "configuration; its earlier messages and counters are gone with Redis's data")
                   .arg(queue));
    } else if (status == QueueDeletedOnPurpose) {
        m_spoolDiscarded += count;
        report(StoreIncident::Level::Warning, QStringLiteral("spooled_messages_discarded"),
               QStringLiteral("Queue '%1' was deleted while %2 publishes for it waited in the spool: they were "
                              "removed with the queue")
                   .arg(queue)
                   .arg(count));
    }
    if (status == Taken || status == TakenIntoRecreatedQueue) {
        m_lastSizes[queue] += count;
        if (m_listener)
            m_listener->messagesAvailable(queue);
    }
    if (!m_spoolBlocked.isEmpty()) {
        m_spoolBlocked.clear();
        m_blockedReportedMs = 0;
        report(StoreIncident::Level::Info, QStringLiteral("spool_unblocked"),
               QStringLiteral("The publish spool delivers again (queue '%1')").arg(queue));
    }
    m_spool->drained();
    drainSpool(); // the next batch at once
}

void RedisStore::blockSpool(const QString &reason)
{
    // Reported when it starts and again now and then while it lasts, so /errors shows it is current.
    const qint64 now = m_clock.nowMs();
    if (reason != m_spoolBlocked || now - m_blockedReportedMs >= m_options.spoolBlockedReminderMs) {
        m_blockedReportedMs = now;
        report(StoreIncident::Level::Error, QStringLiteral("spool_blocked"), reason);
    }
    m_spoolBlocked = reason;
}

} // namespace Broker
