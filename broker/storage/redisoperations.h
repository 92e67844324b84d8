// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "clusterqueueregistry.h"
#include "clustertransfers.h"
#include "core/queuestore.h"
#include "readyset.h"
#include "redisscripts.h"
#include "resilientscriptrunner.h"

#include "core/clock.h"
#include "resilience/publishspool.h"

#include <QHash>

#include <functional>
#include <optional>
#include <vector>

namespace Broker {

class KnownQueues;
class NodeIdGenerator;
class RedisEventRelay;

// The QueueStore operations as the Redis store's Lua scripts (resources/redis): for each, which
// script runs, its keys and arguments, and what its reply means (values for the caller, events
// for the listener, what this broker now knows of the queue). Every call goes through the
// runner, so the breaker, retries and NOSCRIPT handling apply; reads (info, list, browse) are
// retried, changes never. Keys of queue Q are "<prefix>{Q}:<part>" (one hash tag per queue).
//
// Failures: the runner's (Unavailable/Timeout; detail Redis::NotSent when nothing was sent),
// and the scripts' refusals as the store errors (RedisScripts::replyError). A queue Redis calls
// missing or replaced is forgotten in `known` (see KnownQueues::missing).
// On a Redis Cluster (`cluster`) the registry is kept in separate steps (ClusterQueueRegistry).
// Nothing here is owned: runner, types, clock, ids, known and events must outlive the
// operations. Completions run in the runner's thread when the reply arrives, exactly once.
class RedisOperations
{
public:
    // A publish encoded for publish.lua, kept so that the same messages can go to the spool.
    struct PreparedPublish
    {
        QByteArrayList args; // pairs of due time (ms; 0: now) and the stored message
        PublishResult result; // the new ids
        bool anyReady = false; // some are deliverable at once
    };

    RedisOperations(ResilientScriptRunner &runner, const QueueTypeCatalog &types, const Clock &clock,
                    NodeIdGenerator &ids, KnownQueues &known, RedisEventRelay &events, QByteArray keyPrefix,
                    int maintenanceBatch, bool cluster);

    // Refuses types the scripts do not implement: all but the built-in ones (QueueTypeCatalog::isBuiltIn).
    void createQueue(const QString &name, const QueueConfig &config, Completion<QueueInfo> done);
    // Sets the options the change names in the queue's meta hash, then answers with its info.
    void updateQueue(const QString &name, const QueueConfigChange &change, Completion<QueueInfo> done);
    void deleteQueue(const QString &name, Completion<qint64> done);
    void purgeQueue(const QString &name, Completion<qint64> done);
    void listQueues(Completion<QList<QueueInfo>> done);
    void queueInfo(const QString &name, Completion<QueueInfo> done);

    // Gives new ids to the messages and encodes them (asks Redis for the queue's type when it is
    // not known); refuses delays on stream queues.
    void preparePublish(const QString &name, const QList<NewMessage> &messages, const QString &publisher,
                        std::function<void(Result<PreparedPublish>)> done);
    // Group commit: while a call of a queue's publishes is on its way to Redis, later publishes to
    // that queue wait in the broker, and then go together, in the order they came, in one call
    // (publish_groups.lua, within MaxGroupedMessages and MaxGroupedBytes; each publish still all or
    // nothing against max_size). A publish alone goes at once, as publish.lua. Under load a
    // queue's publishes thus cost Redis one script run per round trip instead of one each; a
    // queue has one such call on its way at a time. The call's failure is each publish's; when
    // Redis did not answer it, the publishes waiting behind it fail unsent (Redis::NotSent).
    void publish(const QString &name, PreparedPublish prepared, const QString &publisher,
                 Completion<PublishResult> done);
    // preparePublish, then publish.
    void publish(const QString &name, const QList<NewMessage> &messages, const QString &publisher,
                 Completion<PublishResult> done);
    void consume(const QString &name, const ConsumeRequest &request, Completion<QList<Message>> done);
    void ack(const QString &name, const MessageRef &ref, Completion<void> done);
    void nack(const QString &name, const MessageRef &ref, qint64 delayMs, Completion<NackResult> done);
    void extend(const QString &name, const MessageRef &ref, qint64 visibilityMs, Completion<qint64> done);
    // browse.lua reads the state; a filtered browse gets its candidates and checks them exactly here.
    void browse(const QString &name, const BrowseQuery &query, Completion<BrowsePage> done);
    // message_action.lua: one script per action, atomic.
    void messageAction(const QString &name, const MessageAction &action, Completion<MessageActionResult> done);
    // redrive.lua with the selection and the edits (dry runs are the engine's).
    void redrive(const QString &name, const RedriveRequest &request, Completion<RedriveResult> done);
    void runMaintenance(Completion<qint64> done);
    // await.lua: a consumer of this broker waits on `name` for `forMs` more (RedisWakeups).
    void awaitMessages(const QString &name, qint64 forMs, std::function<void(Result<void>)> done);

    // drain.lua's answers for a spooled batch.
    enum DrainStatus : qint64 { TakenBefore = 0, Taken = 1, TakenIntoRecreatedQueue = 2, QueueDeletedOnPurpose = 3 };
    // Delivers a spooled batch of the spool `identity` (taken once however often it is sent);
    // completes with the DrainStatus.
    void drain(const QByteArray &identity, const PublishSpool::Batch &batch, Completion<qint64> done);

private:
    using ScriptDone = std::function<void(Result<Redis::RedisReply>)>;

    QByteArray key(const QString &queue, const char *part) const;
    // The keys a script of `queue` declares (its meta key first: it routes the call): every fixed
    // key of the queue, or what publish.lua and consume.lua may touch; and the queue's name in
    // UTF-8, which every script is given.
    struct QueueKeys
    {
        QByteArrayList all, publish, consume;
        QByteArray name;
    };
    const QueueKeys &keysOf(const QString &queue);
    // create.lua for `name`; `generation` is the cluster registry entry's (empty on one server).
    void create(const QString &name, const QueueConfig &config, const QByteArray &generation, Completion<QueueInfo> done);
    void drainEnrolled(const QByteArray &identity, const PublishSpool::Batch &batch, const QByteArray &generation,
                       Completion<qint64> done);
    // On a cluster: whether queue `a`'s scripts cannot reach queue `b`'s keys (another slot).
    bool apart(const QString &a, const QString &b) const;
    // The queue's configuration from what is known, asking Redis when it is not.
    void withConfig(const QString &name, std::function<void(Result<QueueConfig>)> then);
    // The registry's names (with their cluster generations; empty on one server).
    void registryEntries(std::function<void(Result<QList<std::pair<QString, QByteArray>>>)> done);
    // Runs `script` for `queue`; the reply's events go to the listener before `done` gets the
    // payload (the reply's first element).
    void run(const Redis::Script &script, const QString &queue, QByteArrayList args, ResilientScriptRunner::Retry retry,
             ScriptDone done, const QString &user = {});
    // The queue's kind from what is known, asking Redis when it is not.
    void withKind(const QString &name, std::function<void(Result<QueueKind>)> then);
    // Runs `step` for every queue in the registry at once; `done` gets what the steps gave, by name.
    template<typename Step>
    void forEachQueue(Step step, Completion<QList<QueueInfo>> done);
    // Cluster: hands over what the deleted (or leftover) queue `name` sent away, then removes its
    // registry entry if it still holds `generation`.
    void withdrawOnceHandedOver(const QString &name, const QByteArray &generation);
    void settle(const QString &name, const MessageRef &ref, const char *action, qint64 ms, ScriptDone done);
    // A publish waiting in its queue's line (publish()).
    struct QueuedPublish
    {
        PreparedPublish prepared;
        QString publisher;
        Completion<PublishResult> done;
        qsizetype bytes = 0; // messageBytes(prepared), once it waits
    };
    struct PublishLine
    {
        bool sending = false; // a call of the queue's publishes is on its way
        std::vector<QueuedPublish> waiting; // in the order they came
        qsizetype waitingBytes = 0;         // messageBytes() of `waiting`
    };
    // publish.lua for one publish (its line `sending`).
    void sendAlone(const QString &name, QueuedPublish publish);
    // Sends what waits in `name`'s line: the first publish and those behind it within
    // MaxGroupedMessages and MaxGroupedBytes.
    void sendWaiting(const QString &name, PublishLine &line);
    // A publish Redis took: the queue's size, its events, its completion.
    void published(const QString &name, QueuedPublish &publish, qint64 queueSize);
    // The line's call was answered: frees the line when nothing waits (true), before the call's
    // publishes complete.
    bool releaseIdleLine(const QString &name);
    // The call was answered (`failure`: how it failed) and its publishes completed, with others
    // waiting: they go, or fail unsent when Redis did not answer.
    void publishesAnswered(const QString &name, const std::optional<Error> &failure);
    // The bytes of a publish's messages and due times.
    static qsizetype messageBytes(const PreparedPublish &prepared);
    // browse.lua run in `queue` for `name`'s messages (`forOrigin`: `queue` is name's dead-letter
    // queue in another slot, read for the messages it has from `name`).
    void browseIn(const QString &queue, const QString &name, bool forOrigin, const BrowseQuery &query,
                  Completion<BrowsePage> done);
    void act(const QString &name, const MessageAction &action, Completion<MessageActionResult> done);
    // redrive.lua run in `queue` for `name` (`forOrigin` as for browseIn); `present`: the queues
    // that exist, one per line (cluster).
    void redriveFrom(const QString &queue, const QString &name, bool forOrigin, const QByteArray &present,
                     const RedriveRequest &request, Completion<RedriveResult> done);

    ResilientScriptRunner &m_runner;
    const QueueTypeCatalog &m_types;
    const Clock &m_clock;
    NodeIdGenerator &m_ids;
    KnownQueues &m_known;
    RedisEventRelay &m_events;
    const QByteArray m_prefix;
    const int m_maintenanceBatch;
    // Reaper rounds so far: every HeldCheckRounds-th also checks each queue's held count.
    quint64 m_maintenanceRounds = 0;
    const RedisScripts::Set m_script;
    static constexpr qsizetype MaxCachedKeyLists = 4096;
    QHash<QString, QueueKeys> m_keys; // keysOf()
    // A call of more than one publish holds at most this many messages (max_batch's default) and
    // bytes of them (a request body's default bound); a larger publish goes alone. What waits in a
    // line is bounded too: a publish beyond MaxWaitingBytes fails unsent (the spool takes it).
    static constexpr qsizetype MaxGroupedMessages = 1000;
    static constexpr qsizetype MaxGroupedBytes = 1 << 20;
    static constexpr qsizetype MaxWaitingBytes = 64 << 20;
    QHash<QString, PublishLine> m_publishLines; // publish(): the queues published to, idle ones cleared out past MaxCachedKeyLists
    std::optional<ClusterQueueRegistry> m_cluster; // set on a cluster
    std::optional<ClusterTransfers> m_transfers;   // set on a cluster
};

} // namespace Broker
