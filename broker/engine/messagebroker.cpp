// SPDX-License-Identifier: GPL-3.0-or-later
#include "messagebroker.h"

#include "callableprocessor.h"
#include "partitioning.h"
#include "processorregistry.h"

#include "core/messageid.h"
#include "errors/errormanager.h"
#include "errors/logging.h"
#include "core/validation.h"

#include <QRandomGenerator>

namespace Broker {

MessageBroker::MessageBroker(QueueStore &store, QueueTypeRegistry &types, const Clock &clock, EngineOptions options,
               ErrorManager *errors, QObject *parent)
    : QObject(parent),
      m_partitioned(store, clock),
      m_store(m_partitioned),
      m_types(types),
      m_clock(clock),
      m_options(std::move(options)),
      m_errors(errors),
      m_startedMs(clock.nowMs()),
      m_events(m_options.eventLogPerQueue, m_options.recentEvents),
      m_eventEpoch(QByteArray::number(QRandomGenerator::global()->generate(), 36)),
      m_healthTotals(clock),
      m_processors(std::make_unique<ProcessorRegistry>(*this, clock, [this](const QString &queue) { scheduleWake(queue); }))
{
    m_store.setListener(this);
    connect(this, &MessageBroker::queueCreated, m_processors.get(), &ProcessorRegistry::queueCreated);
    connect(this, &MessageBroker::queueDeleted, m_processors.get(), &ProcessorRegistry::queueDeleted);
    m_maintenanceTimer.setSingleShot(true);
    connect(&m_maintenanceTimer, &QTimer::timeout, this, &MessageBroker::runMaintenance);
    scheduleMaintenance(m_clock.nowMs() + m_options.maintenanceIntervalMs);
}

MessageBroker::~MessageBroker()
{
    m_waiters.finishAll(); // long polls end as if their wait was over
    m_processors.reset(); // their work is abandoned; the leases bring the messages back
    m_store.setListener(nullptr);
}

qint64 MessageBroker::uptimeSeconds() const
{
    return (m_clock.nowMs() - m_startedMs) / 1000;
}

bool MessageBroker::registerQueueType(const QString &name, const QString &description,
                               QueueTypeRegistry::ReadySetFactory factory)
{
    return m_types.registerQueueType(name, description, std::move(factory));
}

bool MessageBroker::isStoreFailure(ErrorCode code)
{
    return code == ErrorCode::Internal || code == ErrorCode::Unavailable || code == ErrorCode::Timeout;
}

void MessageBroker::recordStoreError(const char *operation, const Error &error)
{
    if (m_errors) {
        m_errors->record(Severity::Error, QStringLiteral("storage"), QString::fromLatin1(errorCodeName(error.code)),
                         QStringLiteral("%1 failed: %2").arg(QLatin1StringView(operation), error.message));
    } else {
        qCWarning(lcStorage).noquote() << operation << "failed:" << error.message;
    }
}

// Queues ---------------------------------------------------------------------------------------

void MessageBroker::createQueue(const QString &name, const QueueConfig &config, Completion<QueueInfo> done)
{
    if (const Result<void> valid = Validation::all({Validation::queueName(name), m_types.check(config.type)}); !valid)
        return done(valid.error());
    auto createMain = [this, name, config, done = watched("create queue", std::move(done))]() mutable {
        m_store.createQueue(name, config, [this, name, done = std::move(done)](Result<QueueInfo> result) {
            if (result)
                Q_EMIT queueCreated(name);
            done(std::move(result));
        });
    };
    if (config.deadLetterQueue.isEmpty())
        return createMain();
    ensureDeadLetterQueue(config.deadLetterQueue, std::move(createMain));
}

void MessageBroker::ensureDeadLetterQueue(const QString &dlq, std::function<void()> then)
{
    // The dead-letter queue exists before anything can be dead-lettered into it. One that exists
    // already is used as it is.
    QueueConfig dlqConfig = QueueConfig::withDefaults(m_options.queueDefaults);
    dlqConfig.type = QueueConfig{}.type; // a list, whatever new queues default to: redrive reads lists, as on Redis
    m_store.queueInfo(dlq, [this, dlq, dlqConfig, then = std::move(then)](Result<QueueInfo> existing) mutable {
        if (existing || existing.error().code != ErrorCode::QueueNotFound)
            return then();
        m_store.createQueue(dlq, dlqConfig, [this, dlq, then = std::move(then)](Result<QueueInfo> created) mutable {
            if (created)
                Q_EMIT queueCreated(dlq);
            then();
        });
    });
}

void MessageBroker::deleteQueue(const QString &name, Completion<qint64> done)
{
    if (const Result<void> check = Validation::queueName(name); !check)
        return done(check.error());
    m_store.deleteQueue(name, [this, name, done = watched("delete queue", std::move(done))](Result<qint64> result) {
        if (result) {
            m_waiters.failAll(name, Error{ErrorCode::QueueNotFound, QStringLiteral("Queue not found")});
            m_events.forgetQueue(name);
            Q_EMIT queueDeleted(name);
        }
        done(std::move(result));
    });
}

void MessageBroker::purgeQueue(const QString &name, Completion<qint64> done)
{
    if (const Result<void> check = Validation::queueName(name); !check)
        return done(check.error());
    m_store.purgeQueue(name, [this, name, done = watched("purge queue", std::move(done))](Result<qint64> result) {
        if (result)
            Q_EMIT queuePurged(name, *result);
        done(std::move(result));
    });
}

void MessageBroker::listQueues(Completion<QList<QueueInfo>> done)
{
    m_store.listQueues([this, done = watched("list queues", std::move(done))](Result<QList<QueueInfo>> result) {
        if (result) {
            for (QueueInfo &info : result.value())
                addRates(info);
        }
        done(std::move(result));
    });
}

void MessageBroker::queueInfo(const QString &name, Completion<QueueInfo> done)
{
    if (const Result<void> check = Validation::queueName(name); !check)
        return done(check.error());
    m_store.queueInfo(name, [this, done = watched("queue info", std::move(done))](Result<QueueInfo> result) {
        if (result)
            addRates(result.value());
        done(std::move(result));
    });
}

// Messages -------------------------------------------------------------------------------------

void MessageBroker::publish(const QString &queue, const QList<NewMessage> &messages, const QString &publisher,
                     Completion<PublishResult> done)
{
    if (const Result<void> valid = Validation::all({Validation::queueName(queue), Validation::newMessages(messages, m_options)});
        !valid) {
        return done(valid.error());
    }
    qint64 shortestDelayMs = 0;
    qint64 longestDelayMs = 0;
    for (const NewMessage &message : messages) {
        if (message.delayMs > 0 && (shortestDelayMs == 0 || message.delayMs < shortestDelayMs))
            shortestDelayMs = message.delayMs;
        longestDelayMs = qMax(longestDelayMs, message.delayMs);
    }
    auto publishNow = [this, queue, messages, publisher, shortestDelayMs](Completion<PublishResult> completion) {
        if (shortestDelayMs > 0)
            scheduleMaintenance(m_clock.nowMs() + shortestDelayMs);
        m_store.publish(queue, messages, publisher, watched("publish", std::move(completion)));
    };
    if (longestDelayMs == 0)
        return publishNow(std::move(done));
    // A message whose delay reaches its queue's TTL expires before it is due: it could never be
    // delivered. Only delayed publishes pay for the lookup; when the store cannot answer now (a
    // Redis store spooling publishes), the publish goes ahead unjudged rather than fail.
    m_store.queueInfo(queue, [longestDelayMs, publishNow = std::move(publishNow),
                              done = std::move(done)](Result<QueueInfo> info) mutable {
        if (info) {
            if (const Result<void> due = Validation::delayWithinTtl(longestDelayMs, info->config.ttlSeconds); !due)
                return done(due.error());
        }
        publishNow(std::move(done));
    });
}

void MessageBroker::consume(const QString &queue, const ConsumeRequest &request, qint64 waitMs,
                     Completion<QList<Message>> done)
{
    if (const Result<void> valid = Validation::all(
            {Validation::queueName(queue), Validation::count(request.count, m_options),
             Validation::waitMs(waitMs, m_options), Validation::visibilityTimeoutMs(request.visibilityTimeoutMs, true),
             Validation::consumerNames(request.group, request.consumer)});
        !valid) {
        return done(valid.error());
    }

    if (waitMs > 0)
        consumeStarted(queue);
    m_store.consume(queue, request,
                    [this, queue, request, waitMs, done = watched("consume", std::move(done))](
                        Result<QList<Message>> result) mutable {
                        const bool missedWake = waitMs > 0 && consumeEndedMissingWake(queue);
                        if (result && result->isEmpty() && waitMs > 0) {
                            m_waiters.park(queue, request, waitMs, std::move(done));
                            m_store.awaitMessages(queue, m_clock.nowMs() + waitMs);
                            if (missedWake)
                                scheduleWake(queue);
                            return;
                        }
                        if (result && !request.acknowledge && !result->isEmpty())
                            scheduleMaintenance(result->first().leaseDeadlineMs);
                        done(std::move(result));
                    });
}

void MessageBroker::ack(const QString &queue, const MessageRef &ref, Completion<void> done)
{
    if (const Result<void> valid = Validation::all({Validation::queueName(queue), Validation::messageId(ref.id)}); !valid)
        return done(valid.error());
    m_store.ack(queue, ref, watched("ack", std::move(done)));
}

void MessageBroker::nack(const QString &queue, const MessageRef &ref, qint64 delayMs, Completion<NackResult> done)
{
    if (const Result<void> valid = Validation::all(
            {Validation::queueName(queue), Validation::messageId(ref.id), Validation::delayMs(delayMs, m_options)});
        !valid) {
        return done(valid.error());
    }
    if (delayMs > 0)
        scheduleMaintenance(m_clock.nowMs() + delayMs);
    m_store.nack(queue, ref, delayMs, watched("nack", std::move(done)));
}

void MessageBroker::extend(const QString &queue, const MessageRef &ref, qint64 visibilityMs, Completion<qint64> done)
{
    if (const Result<void> valid = Validation::all({Validation::queueName(queue), Validation::messageId(ref.id),
                                                    Validation::visibilityTimeoutMs(visibilityMs, false)});
        !valid) {
        return done(valid.error());
    }
    m_store.extend(queue, ref, visibilityMs, watched("extend", std::move(done)));
}

void MessageBroker::browse(const QString &queue, qint64 offset, qint64 limit, Completion<BrowsePage> done)
{
    BrowseQuery query;
    query.offset = offset;
    query.limit = limit;
    browse(queue, query, std::move(done));
}

// Processors -----------------------------------------------------------------------------------

int MessageBroker::registerProcessor(const QString &queue, Processor processor)
{
    return m_processors->add(queue, std::make_unique<CallableProcessor>(queue, std::move(processor), m_errors),
                             m_options.processorBatch);
}

int MessageBroker::registerProcessor(const QString &queue, std::unique_ptr<AsyncProcessor> processor, int concurrency,
                                     const QString &name)
{
    const ProcessorBackoff backoff{m_options.processorRetryFirstMs, m_options.processorRetryMaxMs};
    return m_processors->add(queue, std::move(processor), concurrency, backoff, name);
}

bool MessageBroker::unregisterProcessor(int id)
{
    return m_processors->remove(id);
}

ProcessorStatusList MessageBroker::processorStatuses() const
{
    return m_processors->statuses();
}

// Waking consumers -----------------------------------------------------------------------------

void MessageBroker::messageEvent(const MessageEvent &event)
{
    m_events.append(event);
    if (m_eventWatchers == 0 || m_eventsNoticeDue)
        return;
    m_eventsNoticeDue = true;
    QMetaObject::invokeMethod(this, [this] {
        m_eventsNoticeDue = false;
        Q_EMIT eventsAppended();
    }, Qt::QueuedConnection);
}

void MessageBroker::watchEvents(bool watch)
{
    m_eventWatchers += watch ? 1 : -1;
    Q_ASSERT(m_eventWatchers >= 0);
}

void MessageBroker::messagesAvailable(const QString &queue)
{
    if (const auto inFlight = m_consumesInFlight.find(queue); inFlight != m_consumesInFlight.end())
        inFlight->woken = true;
    if (m_waiters.hasIdleWaiter(queue) || m_processors->serves(queue))
        scheduleWake(queue);
}

void MessageBroker::consumeStarted(const QString &queue)
{
    ++m_consumesInFlight[queue].count;
}

bool MessageBroker::consumeEndedMissingWake(const QString &queue)
{
    const auto it = m_consumesInFlight.find(queue);
    if (it == m_consumesInFlight.end())
        return false;
    // Kept for the others in flight: the one that parks needs it, whichever ends first.
    const bool woken = it->woken;
    if (--it->count == 0)
        m_consumesInFlight.erase(it);
    return woken;
}

void MessageBroker::storeIncident(const StoreIncident &incident)
{
    const Severity severity = incident.level == StoreIncident::Level::Error     ? Severity::Error
                              : incident.level == StoreIncident::Level::Warning ? Severity::Warning
                                                                                : Severity::Info;
    if (m_errors)
        m_errors->record(severity, QStringLiteral("storage"), incident.code, incident.message);
    else
        qCWarning(lcStorage).noquote() << incident.message;
}

void MessageBroker::scheduleWake(const QString &queue)
{
    // Wakes run on the next turn of the event loop: never inside the store call that caused them.
    const bool first = m_pendingWakes.isEmpty();
    m_pendingWakes.insert(queue);
    if (first)
        QMetaObject::invokeMethod(this, &MessageBroker::serviceWakes, Qt::QueuedConnection);
}

void MessageBroker::serviceWakes()
{
    const QSet<QString> queues = std::exchange(m_pendingWakes, {});
    for (const QString &queue : queues) {
        serveNextWaiter(queue);
        m_processors->run(queue);
    }
}

void MessageBroker::serveNextWaiter(const QString &queue)
{
    ConsumeRequest request;
    const quint64 id = m_waiters.claimFirst(queue, request);
    if (id == 0)
        return;
    if (request.stillWanted && !request.stillWanted()) {
        m_waiters.complete(id, QList<Message>{});
        scheduleWake(queue); // the next waiter, if any
        return;
    }
    consumeStarted(queue);
    m_store.consume(queue, request, [this, queue, id, request](Result<QList<Message>> result) {
        const bool missedWake = consumeEndedMissingWake(queue);
        if (result && result->isEmpty()) {
            m_waiters.release(id);
            if (missedWake)
                scheduleWake(queue);
            return;
        }
        if (result && !request.acknowledge)
            scheduleMaintenance(result->first().leaseDeadlineMs);
        m_waiters.complete(id, std::move(result));
        scheduleWake(queue); // the next waiter, if any, on the next turn
    });
}

// Maintenance, history, snapshots ------------------------------------------------------------

void MessageBroker::scheduleMaintenance(qint64 atMs)
{
    const qint64 now = m_clock.nowMs();
    const qint64 latest = now + m_options.maintenanceIntervalMs;
    const qint64 when = qBound(now, atMs, latest);
    if (m_maintenanceTimer.isActive() && m_nextMaintenanceMs <= when)
        return;
    m_nextMaintenanceMs = when;
    m_maintenanceTimer.start(int(when - now));
}

void MessageBroker::runMaintenance()
{
    m_maintenanceTimer.stop();
    m_store.runMaintenance([this](Result<qint64> next) {
        if (!next)
            recordStoreError("maintenance", next.error());
        const qint64 now = m_clock.nowMs();
        scheduleMaintenance(next && *next > 0 ? *next : now + m_options.maintenanceIntervalMs);
    });
    const qint64 now = m_clock.nowMs();
    if (now - m_lastRateSampleMs >= 1000) {
        m_lastRateSampleMs = now;
        m_store.listQueues([this, now](Result<QList<QueueInfo>> queues) {
            m_healthTotals.record(queues);
            if (queues)
                sampleRates(now, *queues);
        });
    }
}

void MessageBroker::sampleRates(qint64 nowMs, const QList<QueueInfo> &queues)
{
    m_rates.sample(nowMs, queues);
    // Partitions apart, under their store queues' names, so that the totals count each message once.
    QList<QueueInfo> partitions;
    for (const QueueInfo &queue : queues) {
        for (const PartitionInfo &partition : queue.partitions) {
            QueueInfo part;
            part.name = Partitioning::storeQueue(queue.name, partition.index);
            part.counters = partition.counters;
            partitions.append(part);
        }
    }
    m_partitionRates.sample(nowMs, partitions);
}

void MessageBroker::addRates(QueueInfo &info) const
{
    info.rates = m_rates.rates(info.name);
    for (PartitionInfo &partition : info.partitions)
        partition.rates = m_partitionRates.rates(Partitioning::storeQueue(info.name, partition.index));
}

QList<MessageEvent> MessageBroker::lifecycle(const QString &messageId) const
{
    const std::optional<quint64> sequence = MessageId::parse(messageId);
    return sequence ? m_events.lifecycle(*sequence) : QList<MessageEvent>{};
}

QList<MessageEvent> MessageBroker::queueEvents(const QString &queue, int limit) const
{
    return m_events.queueEvents(queue, limit);
}

void MessageBroker::snapshot(quint64 sinceEvent, Completion<BrokerSnapshot> done)
{
    m_store.listQueues([this, sinceEvent, done = std::move(done)](Result<QList<QueueInfo>> queues) {
        m_healthTotals.record(queues);
        BrokerSnapshot snapshot;
        snapshot.takenAtMs = m_clock.nowMs();
        snapshot.uptimeSeconds = uptimeSeconds();
        snapshot.storage = m_store.backendName();
        snapshot.storeStatus = m_store.status();
        if (m_errors)
            snapshot.notificationWebhook = m_errors->webhookStatus();
        snapshot.processors = processorStatuses();
        snapshot.health = HealthTotals::effectiveHealth(
            m_store.health(), snapshot.storeStatus, queues ? std::nullopt : std::optional<QString>(queues.error().message));
        if (queues) {
            snapshot.queues = std::move(queues.value());
            for (QueueInfo &info : snapshot.queues) {
                addRates(info);
                snapshot.messagesTotal += info.size();
                snapshot.messagesProcessed += info.counters.acked;
            }
        }
        snapshot.rates = m_rates.totals();
        snapshot.recentEvents = m_events.since(sinceEvent, m_options.recentEvents);
        snapshot.lastEventNumber = m_events.lastNumber();
        done(std::move(snapshot));
    });
}

void MessageBroker::healthSummary(Completion<HealthSummary> done)
{
    auto answer = [this, done = std::move(done)]() {
        HealthSummary summary;
        summary.countedAtMs = m_healthTotals.countedAtMs();
        summary.uptimeSeconds = uptimeSeconds();
        summary.storage = m_store.backendName();
        summary.storeStatus = m_store.status();
        summary.health = HealthTotals::effectiveHealth(
            m_store.health(), summary.storeStatus,
            m_healthTotals.countFailed() ? std::optional<QString>(m_healthTotals.countError()) : std::nullopt);
        summary.queues = m_healthTotals.queues();
        summary.messagesTotal = m_healthTotals.messagesTotal();
        summary.messagesProcessed = m_healthTotals.messagesProcessed();
        done(std::move(summary));
    };
    // A count that failed while the store says it is fine again is not kept: the store has come
    // back (Redis returned), and reporting the old failure for up to a second would be a lie.
    const bool staleFailure = m_healthTotals.countFailed() && m_store.health() == HealthStatus::Healthy;
    if (m_healthTotals.isFresh() && !staleFailure)
        return answer();
    if (!m_healthTotals.waitForCount(std::move(answer)))
        return; // a count is under way; it answers this caller too
    m_store.listQueues([this](Result<QList<QueueInfo>> queues) {
        m_healthTotals.record(queues);
        m_healthTotals.finish();
    });
}

} // namespace Broker
