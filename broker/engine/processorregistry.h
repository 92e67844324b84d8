// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "asyncprocessor.h"

#include "core/clock.h"
#include "core/processorstatus.h"

#include <QObject>
#include <QPointer>

#include <functional>
#include <map>
#include <memory>

namespace Broker {

class MessageBroker;

// How long a message a processor failed waits before it is offered again: `firstMs` after the
// first delivery, doubling with each further one, never more than `maxMs`. Zero: at once.
struct ProcessorBackoff
{
    qint64 firstMs = 0;
    qint64 maxMs = 0;

    qint64 delayMs(int deliveryCount) const;
};

// The processors of one broker: which queue each consumes, how many messages it may hold at once
// (concurrency), and how it is doing (ProcessorStatus). Leases messages to each processor through
// the broker (acknowledge=false, group "processor"), at most concurrency - inFlight at a time, and
// acks or nacks each one (with the processor's backoff) when the processor reports its outcome;
// dead-lettering after max_deliveries is the queue's, as for every consumer. A processor whose
// queue does not exist waits for it (running false, lastError says so) and starts when it is
// created; when it is deleted, the processor stops until it exists again.
// Lives in the engine's thread, owned by the MessageBroker.
class ProcessorRegistry : public QObject
{
    Q_OBJECT
public:
    // `wake(queue)` asks for run(queue) on a later turn of the event loop (never at once: run may
    // be the cause). `broker` and `clock` must outlive the registry.
    ProcessorRegistry(MessageBroker &broker, const Clock &clock, std::function<void(const QString &)> wake,
                      QObject *parent = nullptr);
    ~ProcessorRegistry() override;

    // Returns the processor's id (ProcessorStatus::id). `concurrency` >= 1.
    int add(const QString &queue, std::unique_ptr<AsyncProcessor> processor, int concurrency,
            ProcessorBackoff backoff = {}, const QString &name = {});
    // Work the processor still has under way is abandoned: those messages' leases run out.
    bool remove(int id);
    bool serves(const QString &queue) const;
    ProcessorStatusList statuses() const;

    // Leases ready messages of `queue` to each of its running processors that has room.
    void run(const QString &queue);
    void queueCreated(const QString &queue);
    void queueDeleted(const QString &queue);

private:
    struct Entry
    {
        std::unique_ptr<AsyncProcessor> processor;
        ProcessorBackoff backoff;
        bool consuming = false; // a consume for it is under way
        bool waiting = false;   // for its queue; status.lastError says so meanwhile
        QString deliveryError;  // the last delivery failure, shown again when the wait is over
        qint64 deliveryErrorAtMs = 0;
        ProcessorStatus status;
    };

    void checkQueue(int id);
    void waitForQueue(Entry &entry, const QString &why);
    void startOnQueue(Entry &entry);
    void deliver(int id, const Message &message);
    void settle(int id, const Message &message, const ProcessorOutcome &outcome);
    Entry *find(int id);

    MessageBroker &m_broker;
    const Clock &m_clock;
    std::function<void(const QString &)> m_wake;
    std::map<int, Entry> m_entries;
    int m_nextId = 1;
};

} // namespace Broker
