// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "asyncprocessor.h"
#include "core/engineoptions.h"
#include "eventlog.h"
#include "healthtotals.h"
#include "partitionedstore.h"
#include "queuetyperegistry.h"
#include "ratetracker.h"
#include "waitlist.h"

#include <QHash>

#include "core/brokersnapshot.h"
#include "core/clock.h"
#include "core/queuestore.h"

#include <QObject>
#include <QSet>
#include <QTimer>

#include <functional>
#include <memory>

namespace Broker {

class ErrorManager;
class ProcessorRegistry;

// The engine's one facade. Validates what callers ask, drives the store, and adds what is the
// same for every store: long polling, processors, the event log, rates, maintenance timing and
// snapshots. Lives in the engine's thread; every operation completes through a callback in that
// thread (at once with the memory store).
class MessageBroker : public QObject, private StoreListener
{
    Q_OBJECT
public:
    // `store`, `types` and `clock` must outlive the broker; `errors` may be null.
    MessageBroker(QueueStore &store, QueueTypeRegistry &types, const Clock &clock, EngineOptions options = {},
           ErrorManager *errors = nullptr, QObject *parent = nullptr);
    ~MessageBroker() override;

    const EngineOptions &options() const { return m_options; }
    QString storageBackend() const { return m_store.backendName(); }
    qint64 uptimeSeconds() const;
    // Adds a queue type (see QueueTypeRegistry). False when the name is taken.
    bool registerQueueType(const QString &name, const QString &description,
                           QueueTypeRegistry::ReadySetFactory factory);
    QStringList queueTypes() const { return m_types.names(); }
    Result<void> checkQueueType(const QString &type) const { return m_types.check(type); }

    // Queues. The configuration is typed; reading the wire format of POST /queues into it is
    // the caller's (QueueConfig::fromOptions). Its type must be registered (checkQueueType).
    void createQueue(const QString &name, const QueueConfig &config, Completion<QueueInfo> done);
    // Changes the options `change` names (QueueConfigChange::fromOptions reads the wire format).
    // A dead-letter queue it names that does not exist yet is created first, as createQueue does.
    // Emits queueUpdated.
    void updateQueue(const QString &name, const QueueConfigChange &change, Completion<QueueInfo> done);
    void deleteQueue(const QString &name, Completion<qint64> done);
    void purgeQueue(const QString &name, Completion<qint64> done);
    void listQueues(Completion<QList<QueueInfo>> done);
    void queueInfo(const QString &name, Completion<QueueInfo> done);

    // Messages.
    void publish(const QString &queue, const QList<NewMessage> &messages, const QString &publisher,
                 Completion<PublishResult> done);
    // Waits up to `waitMs` for a message when none is ready; answers with an empty list when the
    // wait ends without one. Other requests go on meanwhile.
    void consume(const QString &queue, const ConsumeRequest &request, qint64 waitMs,
                 Completion<QList<Message>> done);
    void ack(const QString &queue, const MessageRef &ref, Completion<void> done);
    void nack(const QString &queue, const MessageRef &ref, qint64 delayMs, Completion<NackResult> done);
    void extend(const QString &queue, const MessageRef &ref, qint64 visibilityMs, Completion<qint64> done);
    // Ready messages, one page (browse(queue, BrowseQuery) with only a page).
    void browse(const QString &queue, qint64 offset, qint64 limit, Completion<BrowsePage> done);
    // Messages of one state, filtered (see BrowseQuery); never changes them.
    void browse(const QString &queue, const BrowseQuery &query, Completion<BrowsePage> done);
    // Moves up to `limit` (0: all) dead-lettered messages back (a redrive without a selection).
    void redrive(const QString &queue, qint64 limit, const QString &user, Completion<qint64> done);
    // A redrive of chosen messages (ids; edits alone choose theirs too), each with its edited
    // payload; a dry run answers what would move (payload before and after) and moves nothing.
    void redrive(const QString &queue, const RedriveRequest &request, Completion<RedriveResult> done);
    // The input rules of that redrive, for callers that must judge it before other checks (REST).
    Result<void> checkRedrive(const QString &queue, const RedriveRequest &request) const;
    // Deletes, requeues, moves or dead-letters the messages `action.ids` names (MessageAction).
    void messageAction(const QString &queue, const MessageAction &action, Completion<MessageActionResult> done);

    // In-process consumers (see ProcessorRegistry). Returns an id for unregisterProcessor. A C++
    // callable takes up to processorBatch messages at a time, and a message it declines is offered
    // again at once.
    int registerProcessor(const QString &queue, Processor processor);
    // A processor that finishes later (a webhook, a command), holding at most `concurrency`
    // messages at once; a message it fails is offered again after a growing delay
    // (processorRetryFirstMs, processorRetryMaxMs). `name` is shown in its status.
    int registerProcessor(const QString &queue, std::unique_ptr<AsyncProcessor> processor, int concurrency,
                          const QString &name = {});
    bool unregisterProcessor(int id);
    // How each processor is doing, by id (also in snapshot()).
    ProcessorStatusList processorStatuses() const;

    // History.
    QList<MessageEvent> lifecycle(const QString &messageId) const;
    QList<MessageEvent> queueEvents(const QString &queue, int limit) const;

    // The broker-wide event sequence, for live streams (GET /events): the next events after
    // `number` still kept, oldest first, at most `limit`; the newest number; the oldest still kept
    // (0: none). The numbers start at 1 with every broker: `eventEpoch()`, made at random
    // when the broker is, tells a number of this broker's from one of an earlier run.
    QList<MessageEvent> eventsAfter(quint64 number, int limit) const { return m_events.after(number, limit); }
    quint64 lastEventNumber() const { return m_events.lastNumber(); }
    quint64 oldestEventNumber() const { return m_events.oldestKeptNumber(); }
    const QByteArray &eventEpoch() const { return m_eventEpoch; }
    // While at least one watcher is registered, eventsAppended() follows new events, once per
    // pass of the event loop however many came (nothing is done per event while none is).
    void watchEvents(bool watch);

    // Everything at once for a UI or /health with a key; events after `sinceEvent` only. Lists
    // every queue: costs in proportion to their number.
    void snapshot(quint64 sinceEvent, Completion<BrokerSnapshot> done);
    // What /health shows without a key: the store's health and status now, and totals at most a
    // second old (see HealthTotals). Costs nothing while the last count is fresh.
    void healthSummary(Completion<HealthSummary> done);

    // Expires leases and TTLs and samples rates now; normally driven by the broker's own timer.
    void runMaintenance();
    // Answers every waiting consumer now with no message, as if its wait had ended (shutdown).
    void endLongPolls() { m_waiters.finishAll(); }

Q_SIGNALS:
    void queueCreated(const QString &name);
    void queueUpdated(const QString &name);
    void queueDeleted(const QString &name);
    void queuePurged(const QString &name, qint64 purged);
    // New events are in the event sequence (see watchEvents).
    void eventsAppended();

private:
    // StoreListener
    void messageEvent(const MessageEvent &event) override;
    void messagesAvailable(const QString &queue) override;
    void storeIncident(const StoreIncident &incident) override;

    // Makes sure maintenance runs no later than `atMs` (ms since the epoch).
    void scheduleMaintenance(qint64 atMs);
    void scheduleWake(const QString &queue);
    void serviceWakes();
    void serveNextWaiter(const QString &queue);
    // Consumes that a long poll may wait after, counted per queue while in flight: a wake-up
    // that arrives meanwhile (another broker's publish comes on another connection than the
    // consume's answer) is kept, so that a poll parked after an empty answer looks once more.
    void consumeStarted(const QString &queue);
    bool consumeEndedMissingWake(const QString &queue); // true: a wake-up came while it was out
    void recordStoreError(const char *operation, const Error &error);
    void sampleRates(qint64 nowMs, const QList<QueueInfo> &queues);
    void addRates(QueueInfo &info) const; // the queue's and its partitions'
    // Passes the result on, recording store failures (not refusals) with the ErrorManager.
    template<typename T>
    Completion<T> watched(const char *operation, Completion<T> done)
    {
        return [this, operation, done = std::move(done)](Result<T> result) {
            if (!result.ok() && isStoreFailure(result.error().code))
                recordStoreError(operation, result.error());
            done(std::move(result));
        };
    }
    static bool isStoreFailure(ErrorCode code);
    void previewRedrive(const QString &queue, const RedriveRequest &request, Completion<RedriveResult> done);
    // Runs `then` once the dead-letter queue `dlq` exists (created with the defaults when missing).
    void ensureDeadLetterQueue(const QString &dlq, std::function<void()> then);

    // The store as the engine sees it: partitioned queues as one queue each (PartitionedStore).
    PartitionedStore m_partitioned;
    QueueStore &m_store;
    QueueTypeRegistry &m_types;
    const Clock &m_clock;
    EngineOptions m_options;
    ErrorManager *m_errors;
    qint64 m_startedMs;
    EventLog m_events;
    QByteArray m_eventEpoch;
    int m_eventWatchers = 0;
    bool m_eventsNoticeDue = false; // eventsAppended() is queued for the next pass of the event loop
    HealthTotals m_healthTotals;
    RateTracker m_rates;
    RateTracker m_partitionRates;
    WaitList m_waiters;
    std::unique_ptr<ProcessorRegistry> m_processors;
    QSet<QString> m_pendingWakes;
    struct ConsumesInFlight
    {
        int count = 0;
        bool woken = false;
    };
    QHash<QString, ConsumesInFlight> m_consumesInFlight;
    QTimer m_maintenanceTimer;
    qint64 m_nextMaintenanceMs = 0;
    qint64 m_lastRateSampleMs = 0;
};

} // namespace Broker
