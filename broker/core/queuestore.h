// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/brokersnapshot.h"
#include "core/browsequery.h"
#include "core/message.h"
#include "core/messageaction.h"
#include "core/messageevent.h"
#include "core/queueconfigchange.h"
#include "core/queueinfo.h"
#include "core/result.h"

#include <QList>
#include <QString>

#include <functional>

namespace Broker {

// Completion of an asynchronous store operation. Always called exactly once, in the thread that
// owns the store (the engine's thread). The memory store calls it before returning; Redis when
// the reply arrives. A completion may call back into the store.
template<typename T>
using Completion = std::function<void(Result<T>)>;

// Names the message an ack, nack or extend is about.
struct MessageRef
{
    QString id;
    QString receipt; // empty: accept whatever lease is current (gCore clients send none)
    QString group;   // stream queues: the consumer group; empty: the one group that holds it
    QString user;    // who acts, for the event log
};

// Something about the store that an operator must hear of (for /errors and the desktop), beyond
// the failure of one call: a queue recreated, spooled messages that cannot be delivered.
struct StoreIncident
{
    enum class Level { Info, Warning, Error };
    Level level = Level::Warning;
    QString code;    // short and stable, e.g. "queue_recreated"
    QString message; // safe to show: no paths, no secrets
};

// Told what happens inside the store, as it happens (in the engine's thread).
class StoreListener
{
public:
    virtual ~StoreListener() = default;
    virtual void messageEvent(const MessageEvent &event) = 0;
    // Messages became deliverable in `queue` (publish, nack, expired lease, delay over).
    virtual void messagesAvailable(const QString &queue) = 0;
    virtual void storeIncident(const StoreIncident &incident) { Q_UNUSED(incident); }
};

// Where queues and messages live. Implementations: MemoryStore (embedded, default) and the Redis
// store. Every semantic of delivery (leases, receipts, dead-lettering, TTL, delays, consumer
// groups) is the store's so that Redis can run each multi-step change as one script. Queue names
// and configs reaching a store are already validated by the engine.
class QueueStore
{
public:
    virtual ~QueueStore() = default;

    virtual QString backendName() const = 0;
    // Whether the store can serve: Degraded while on a fallback, Unhealthy when it cannot.
    virtual HealthStatus health() const { return HealthStatus::Healthy; }
    virtual StoreStatus status() const { return {}; }
    virtual void setListener(StoreListener *listener) = 0; // not owned; may be null
    // Runs now every completion that waits on local I/O (a journal or spool write), blocking on
    // the disk. Called before the store's users go away at shutdown, so that no completion
    // reaches them afterwards.
    virtual void flush() {}

    virtual void createQueue(const QString &name, const QueueConfig &config, Completion<QueueInfo> done) = 0;
    // Completes with the number of storage keys (memory: structures) removed.
    virtual void deleteQueue(const QString &name, Completion<qint64> done) = 0;
    // Removes ready, delayed and in-flight messages; completes with how many.
    virtual void purgeQueue(const QString &name, Completion<qint64> done) = 0;
    // Changes the options `change` names (validated by the engine; a dead-letter queue it names
    // exists already) and completes with the queue as it is now. The type never changes.
    virtual void updateQueue(const QString &name, const QueueConfigChange &change, Completion<QueueInfo> done) = 0;
    virtual void listQueues(Completion<QList<QueueInfo>> done) = 0;
    virtual void queueInfo(const QString &name, Completion<QueueInfo> done) = 0;

    // All or nothing: either every message is queued or none is.
    virtual void publish(const QString &name, const QList<NewMessage> &messages, const QString &publisher,
                         Completion<PublishResult> done) = 0;
    // Completes with up to request.count messages; an empty list when none is ready.
    virtual void consume(const QString &name, const ConsumeRequest &request, Completion<QList<Message>> done) = 0;
    // A consumer of this broker waits for messages in `name` until `untilMs` (the store's clock).
    // A store shared with other brokers arranges to hear of their publishes meanwhile, and once it
    // listens reports messagesAvailable(name), so that a publish just before is not missed. A
    // store no one else writes to has nothing to do: its own publishes report themselves.
    virtual void awaitMessages(const QString &name, qint64 untilMs)
    {
        Q_UNUSED(name);
        Q_UNUSED(untilMs);
    }
    virtual void ack(const QString &name, const MessageRef &ref, Completion<void> done) = 0;
    virtual void nack(const QString &name, const MessageRef &ref, qint64 delayMs, Completion<NackResult> done) = 0;
    // Completes with the new lease deadline (ms since the epoch).
    virtual void extend(const QString &name, const MessageRef &ref, qint64 visibilityMs, Completion<qint64> done) = 0;

    // One page of the queue's messages in `query.state`, filtered, without touching them.
    // State Dead reads the queue's dead-letter queue for messages from it (or, for a queue without
    // one, its own dead-lettered messages: the rule redrive follows). Query already validated.
    virtual void browse(const QString &name, const BrowseQuery &query, Completion<BrowsePage> done) = 0;
    // Acts on the messages `action.ids` names, wherever they stand (see MessageAction); completes
    // with how many it acted on and the ids it does not hold. Move: "Target queue not found" (404)
    // when the target is missing, QueueFull when the ids asked for do not all fit in it (nothing
    // moves). DeadLetter: Conflict when the queue has no dead-letter queue.
    virtual void messageAction(const QString &name, const MessageAction &action, Completion<MessageActionResult> done) = 0;
    // Moves dead-lettered messages back to their origin queues: `request.ids` (any: up to
    // `request.limit`, <= 0 all), each with its edit when it has one. `name` is either a
    // dead-letter queue, or a queue whose dead-letter queue holds messages from it. Messages whose
    // origin is gone stay. Stores ignore dryRun: a dry run is the engine's (it moves nothing).
    virtual void redrive(const QString &name, const RedriveRequest &request, Completion<RedriveResult> done) = 0;

    // Expires leases and TTLs, releases due delayed messages. Completes with the time (ms since
    // the epoch) when it next has something to do, or 0 when it does not know.
    virtual void runMaintenance(Completion<qint64> done) = 0;
};

} // namespace Broker
