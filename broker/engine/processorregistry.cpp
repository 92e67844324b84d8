// SPDX-License-Identifier: GPL-3.0-or-later
#include "processorregistry.h"

#include "messagebroker.h"

#include "errors/logging.h"

#include <QTimer>

#include <algorithm>

namespace Broker {

namespace {

const QString ProcessorUser = QStringLiteral("processor");
// After a consume the store failed, the processor tries again this much later.
constexpr int StoreRetryMs = 1000;

QString describe(const ProcessorStatus &status)
{
    const QString who = status.name.isEmpty() ? QStringLiteral("%1 processor %2").arg(status.kind).arg(status.id)
                                              : QStringLiteral("%1 processor '%2'").arg(status.kind, status.name);
    return status.target.isEmpty() ? who : QStringLiteral("%1 (%2)").arg(who, status.target);
}

} // namespace

qint64 ProcessorBackoff::delayMs(int deliveryCount) const
{
    if (firstMs <= 0)
        return 0;
    const int doublings = std::clamp(deliveryCount - 1, 0, 30);
    return std::min(firstMs << doublings, std::max(firstMs, maxMs));
}

ProcessorRegistry::ProcessorRegistry(MessageBroker &broker, const Clock &clock, std::function<void(const QString &)> wake,
                                     QObject *parent)
    : QObject(parent), m_broker(broker), m_clock(clock), m_wake(std::move(wake))
{
}

ProcessorRegistry::~ProcessorRegistry() = default;

int ProcessorRegistry::add(const QString &queue, std::unique_ptr<AsyncProcessor> processor, int concurrency,
                           ProcessorBackoff backoff, const QString &name)
{
    const int id = m_nextId++;
    Entry entry;
    entry.status.id = id;
    entry.status.name = name;
    entry.status.queue = queue;
    entry.status.kind = processor->kind();
    entry.status.target = processor->target();
    entry.status.concurrency = std::max(1, concurrency);
    entry.status.running = false; // until its queue is known to exist
    entry.processor = std::move(processor);
    entry.backoff = backoff;
    m_entries.emplace(id, std::move(entry));
    checkQueue(id);
    return id;
}

bool ProcessorRegistry::remove(int id)
{
    // Destroying the processor abandons its work without calling back (AsyncProcessor's contract).
    return m_entries.erase(id) > 0;
}

ProcessorRegistry::Entry *ProcessorRegistry::find(int id)
{
    const auto it = m_entries.find(id);
    return it == m_entries.end() ? nullptr : &it->second;
}

bool ProcessorRegistry::serves(const QString &queue) const
{
    return std::any_of(m_entries.begin(), m_entries.end(),
                       [&](const auto &each) { return each.second.status.queue == queue && each.second.status.running; });
}

ProcessorStatusList ProcessorRegistry::statuses() const
{
    ProcessorStatusList statuses;
    statuses.reserve(qsizetype(m_entries.size()));
    for (const auto &[id, entry] : m_entries)
        statuses.append(entry.status);
    return statuses;
}

void ProcessorRegistry::checkQueue(int id)
{
    const QString queue = m_entries.at(id).status.queue;
    m_broker.queueInfo(queue, [self = QPointer(this), id](Result<QueueInfo> info) {
        Entry *entry = self ? self->find(id) : nullptr;
        if (!entry)
            return;
        if (info)
            return self->startOnQueue(*entry);
        if (info.error().code == ErrorCode::QueueNotFound)
            return self->waitForQueue(*entry, QStringLiteral("queue '%1' does not exist: waiting for it to be created")
                                                  .arg(entry->status.queue));
        // The store cannot say now (Redis away): try to consume anyway; a consume that finds no
        // queue puts the processor back to waiting.
        self->startOnQueue(*entry);
    });
}

void ProcessorRegistry::waitForQueue(Entry &entry, const QString &why)
{
    const bool news = entry.status.running || entry.status.lastError != why; // said once, not per check
    if (!entry.waiting) { // kept for when the queue is back
        entry.deliveryError = entry.status.lastError;
        entry.deliveryErrorAtMs = entry.status.lastErrorAtMs;
    }
    entry.waiting = true;
    entry.status.running = false;
    entry.status.lastError = why;
    entry.status.lastErrorAtMs = m_clock.nowMs();
    if (news)
        qCInfo(lcEngine).noquote() << QStringLiteral("%1: %2").arg(describe(entry.status), why);
}

void ProcessorRegistry::startOnQueue(Entry &entry)
{
    if (entry.waiting) {
        qCInfo(lcEngine).noquote() << QStringLiteral("%1: queue '%2' exists: started")
                                          .arg(describe(entry.status), entry.status.queue);
        // The wait is over: the status shows the last delivery failure again, if there was one.
        entry.status.lastError = entry.deliveryError;
        entry.status.lastErrorAtMs = entry.deliveryErrorAtMs;
        entry.waiting = false;
    }
    entry.status.running = true;
    m_wake(entry.status.queue); // messages may be waiting already
}

void ProcessorRegistry::queueCreated(const QString &queue)
{
    for (auto &[id, entry] : m_entries) {
        if (entry.status.queue == queue && !entry.status.running)
            startOnQueue(entry);
    }
}

void ProcessorRegistry::queueDeleted(const QString &queue)
{
    for (auto &[id, entry] : m_entries) {
        if (entry.status.queue == queue)
            waitForQueue(entry, QStringLiteral("queue '%1' was deleted: waiting for it to be created again").arg(queue));
    }
}

void ProcessorRegistry::run(const QString &queue)
{
    for (auto &[id, entry] : m_entries) {
        const int room = entry.status.concurrency - entry.status.inFlight;
        if (entry.status.queue != queue || !entry.status.running || entry.consuming || room <= 0)
            continue;
        ConsumeRequest request;
        request.count = std::min(room, m_broker.options().maxConsumeCount);
        request.acknowledge = false;
        request.visibilityTimeoutMs = entry.processor->leaseMs();
        request.group = ProcessorUser;
        request.consumer = ProcessorUser + QString::number(id);
        request.user = ProcessorUser;
        entry.consuming = true;
        m_broker.consume(queue, request, 0, [self = QPointer(this), id = id](Result<QList<Message>> result) {
            Entry *consumer = self ? self->find(id) : nullptr;
            if (!consumer)
                return; // removed meanwhile: what it was given goes back when the leases run out
            consumer->consuming = false;
            if (!result) {
                if (result.error().code == ErrorCode::QueueNotFound) {
                    self->waitForQueue(*consumer, QStringLiteral("queue '%1' does not exist: waiting for it to be created")
                                                      .arg(consumer->status.queue));
                    return;
                }
                // A store failure (recorded by the broker): try again in a while rather than wait
                // for the next publish, which may never come while the store is away.
                QTimer::singleShot(StoreRetryMs, self, [self, queue = consumer->status.queue] { self->m_wake(queue); });
                return;
            }
            for (const Message &message : std::as_const(*result)) {
                if (!self->find(id))
                    break; // a synchronous processor's outcome removed it: the rest's leases run out
                self->deliver(id, message);
            }
        });
    }
}

void ProcessorRegistry::deliver(int id, const Message &message)
{
    Entry &entry = m_entries.at(id);
    ++entry.status.inFlight;
    entry.processor->process(message, [self = QPointer(this), id, message](ProcessorOutcome outcome) {
        if (self)
            self->settle(id, message, outcome);
    });
}

void ProcessorRegistry::settle(int id, const Message &message, const ProcessorOutcome &outcome)
{
    Entry *entry = find(id);
    if (!entry)
        return;
    ProcessorStatus &status = entry->status;
    status.inFlight = std::max(0, status.inFlight - 1);
    const MessageRef ref{message.id, message.receipt, message.group, ProcessorUser};
    if (outcome.acknowledged) {
        ++status.successes;
        status.lastSuccessAtMs = m_clock.nowMs();
        if (status.failing)
            qCInfo(lcEngine).noquote() << QStringLiteral("%1: delivering again").arg(describe(status));
        status.failing = false;
        m_broker.ack(status.queue, ref, [](Result<void>) {}); // store failures are recorded by the broker
    } else {
        ++status.failures;
        status.lastError = outcome.error;
        status.lastErrorAtMs = m_clock.nowMs();
        // One warning when it starts failing, not one per message; each failure at debug level.
        if (!status.failing)
            qCWarning(lcEngine).noquote() << QStringLiteral("%1 on queue %2: message %3 failed: %4")
                                                 .arg(describe(status), status.queue, message.id, outcome.error);
        else
            qCDebug(lcEngine).noquote() << QStringLiteral("%1 on queue %2: message %3 failed: %4")
                                               .arg(describe(status), status.queue, message.id, outcome.error);
        status.failing = true;
        const qint64 delay = std::min(entry->backoff.delayMs(message.deliveryCount), m_broker.options().maxDelayMs);
        m_broker.nack(status.queue, ref, delay, [](Result<NackResult>) {});
    }
    m_wake(status.queue); // it has room again
}

} // namespace Broker
