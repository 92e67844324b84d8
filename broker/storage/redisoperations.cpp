// SPDX-License-Identifier: GPL-3.0-or-later
#include "redisoperations.h"

#include "knownqueues.h"
#include "nodeidgenerator.h"
#include "rediseventrelay.h"
#include "redismessage.h"
#include "storeerrors.h"

#include "core/messageid.h"
#include "redis/hashslot.h"
#include "redis/respcodec.h"
#include "errors/logging.h"

#include <algorithm>
#include <charconv>
#include <memory>
#include <optional>

namespace Broker {

using Redis::CommandResult;
using Redis::RedisReply;
using Redis::Script;
using RedisScripts::integerOf;
using Retry = ResilientScriptRunner::Retry;

RedisOperations::RedisOperations(ResilientScriptRunner &runner, const QueueTypeCatalog &types, const Clock &clock,
                                 NodeIdGenerator &ids, KnownQueues &known, RedisEventRelay &events,
                                 QByteArray keyPrefix, int maintenanceBatch, bool cluster)
    : m_runner(runner), m_types(types), m_clock(clock), m_ids(ids), m_known(known), m_events(events),
      m_prefix(std::move(keyPrefix)), m_maintenanceBatch(maintenanceBatch)
{
    if (!cluster)
        return;
    m_cluster.emplace(m_runner, m_script, m_clock, m_prefix);
    m_transfers.emplace(m_runner, m_script, *m_cluster, m_events, m_prefix,
                        [this](const Script &script, const QString &queue, QByteArrayList args,
                               ClusterTransfers::ScriptDone done) {
                            run(script, queue, std::move(args), Retry::Never, std::move(done));
                        });
}

namespace {

// Whether a script's events tell of messages that may wait in its queue's outbox (cluster).
bool leftForAnotherSlot(const RedisReply &events)
{
    for (qsizetype i = 0; i < events.elements.size(); i += 5) {
        const QByteArray &kind = events.elements[i].string;
        if (kind == "DeadLettered" || kind == "Moved" || kind == "Redriven")
            return true;
    }
    return false;
}

} // namespace

bool RedisOperations::apart(const QString &a, const QString &b) const
{
    return m_cluster && Redis::hashSlot(a.toUtf8()) != Redis::hashSlot(b.toUtf8());
}

void RedisOperations::withConfig(const QString &name, std::function<void(Result<QueueConfig>)> then)
{
    if (const QueueConfig *known = m_known.config(name))
        return then(*known);
    queueInfo(name, [then = std::move(then)](Result<QueueInfo> info) {
        if (!info)
            return then(info.error());
        then(info->config);
    });
}

QByteArray RedisOperations::key(const QString &queue, const char *part) const
{
    return m_prefix + '{' + queue.toUtf8() + "}:" + part;
}

const RedisOperations::QueueKeys &RedisOperations::keysOf(const QString &queue)
{
    // A queue's keys depend on its name alone: made once (a publish spent about 2,800
    // instructions making its two, a cluster call 16), kept for a bounded number of queues.
    if (const auto it = m_keys.constFind(queue); it != m_keys.cend())
        return *it;
    if (m_keys.size() >= MaxCachedKeyLists)
        m_keys.clear();
    // On one server every script may keep the registry (a dead-letter queue made on the way is
    // enrolled in the same step); on a cluster it is in another slot, kept apart, and the script
    // declares the queue's keys instead, so that while its slot moves to another node Redis
    // answers ASK or TRYAGAIN (the router follows or retries) rather than run it on the half of
    // the keys one node has.
    // A publish and a consume, the commonest calls, declare only the keys they may touch (each
    // declared key costs Redis about 1.4 k instructions to make a Lua string of). Every set holds
    // keys no queue has together (`ready` and `prios`: a priority queue's lists are ready:<n>), so
    // that Redis never runs a script of a queue whose slot is half-moved (docs/redis.md).
    const auto declared = [&](std::initializer_list<const char *> parts) {
        QByteArrayList keys{key(queue, "meta")};
        for (const char *part : parts)
            keys.append(key(queue, part));
        return keys;
    };
    QueueKeys made;
    made.name = queue.toUtf8();
    if (!m_cluster) {
        made.all = {key(queue, "meta"), m_prefix + "queues"};
        made.publish = made.consume = made.all;
    } else {
        made.all = declared({"ready", "prios", "delayed", "leases", "deadlines", "deliveries", "stream", "ids",
                             "g:names", "outbox", "transfers", "received", "waiting", "spooled", "deleted"});
        // publish.lua: the held count (heldCount: the ready lists, delayed, leases; a stream's length)
        // and where messages go (pushReady, delayed).
        made.publish = declared({"ready", "prios", "delayed", "leases", "stream", "ids"});
        // consume.lua (list and priority queues): the ready lists, a delivery's count and lease, and
        // an expired message dead-lettered into another slot (deadLetter: the outbox and its counter).
        made.consume = declared({"ready", "prios", "deliveries", "leases", "deadlines", "outbox", "transfers"});
    }
    return *m_keys.insert(queue, made);
}

void RedisOperations::run(const Script &script, const QString &queue, QByteArrayList args, Retry retry,
                          ScriptDone done, const QString &user)
{
    const QueueKeys queueKeys = keysOf(queue); // a copy: a callback may run before run() returns
    const bool publishing = &script == &m_script.publish || &script == &m_script.publishGroups;
    const QByteArrayList &keys = publishing ? queueKeys.publish : &script == &m_script.consume ? queueKeys.consume : queueKeys.all;
    char now[24];
    const auto nowEnd = std::to_chars(now, now + sizeof now, m_clock.nowMs()).ptr;
    QByteArrayList call;
    call.reserve(3 + args.size());
    call << m_prefix << queueKeys.name << QByteArray(now, nowEnd - now);
    call += args;
    // Routed by the queue's meta key: one queue's calls share a connection (and on a cluster
    // its node), so that they run in the order they were made.
    m_runner.run(script, keys, call, retry, [this, queue, user, done = std::move(done)](CommandResult reply) {
        if (!reply)
            return done(reply.error());
        if (const Result<void> refused = RedisScripts::replyError(*reply); !refused) {
            if (refused.error().code == ErrorCode::QueueNotFound)
                m_known.missing(queue);
            else if (refused.error().code == ErrorCode::Conflict)
                m_known.replaced(queue);
            return done(refused.error());
        }
        // {result, events}, {result}, or a number or text alone (lib.lua, answer).
        if (reply->type != RedisReply::Type::Array)
            return done(std::move(*reply));
        const RedisReply &events = reply->elements.value(1);
        m_events.relay(events, user, m_known);
        // On a cluster the answer waits until what the script sent to other slots got there (or
        // Redis failed meanwhile: then the reaper hands it over later), as on one server.
        if (m_transfers && leftForAnotherSlot(events))
            return m_transfers->deliver(queue, [done, payload = reply->elements.value(0)](bool) { done(payload); });
        done(reply->elements.value(0));
    });
}

void RedisOperations::withKind(const QString &name, std::function<void(Result<QueueKind>)> then)
{
    if (const QueueConfig *known = m_known.config(name))
        return then(m_types.kindOf(known->type));
    queueInfo(name, [this, then = std::move(then)](Result<QueueInfo> info) {
        if (!info)
            return then(info.error());
        then(m_types.kindOf(info->config.type));
    });
}

// Queues ---------------------------------------------------------------------------------------

void RedisOperations::createQueue(const QString &name, const QueueConfig &config, Completion<QueueInfo> done)
{
    // The engine has checked that the type is registered; the scripts implement only the built-in ones.
    if (!m_types.isBuiltIn(config.type))
        return done(Error{ErrorCode::InvalidArgument,
                          QStringLiteral("Queue type '%1' is not available with the Redis backend").arg(config.type)});
    if (!m_cluster)
        return create(name, config, {}, std::move(done));
    m_cluster->enroll(name, [this, name, config, done = std::move(done)](Result<QByteArray> generation) mutable {
        if (!generation)
            return done(generation.error());
        create(name, config, *generation, std::move(done));
    });
}

void RedisOperations::create(const QString &name, const QueueConfig &config, const QByteArray &generation,
                             Completion<QueueInfo> done)
{
    const qint64 now = m_clock.nowMs();
    QByteArrayList args{config.type.toUtf8(),
                        QByteArray::number(config.maxSize),
                        QByteArray::number(config.ttlSeconds),
                        QByteArray::number(config.visibilityTimeoutSeconds),
                        QByteArray::number(config.maxDeliveries),
                        config.deadLetterQueue.toUtf8(),
                        generation,
                        QByteArray::number(config.partitions)};
    run(m_script.create, name, args, Retry::Never, [this, name, config, now, done = std::move(done)](Result<RedisReply> reply) {
        if (!reply)
            return done(reply.error());
        m_known.remember(name, config, 0);
        QueueInfo info;
        info.name = name;
        info.config = config;
        info.created = double(now) / 1000.0;
        done(std::move(info));
    });
}

void RedisOperations::deleteQueue(const QString &name, Completion<qint64> done)
{
    run(m_script.remove, name, {}, Retry::Never, [this, name, done = std::move(done)](Result<RedisReply> reply) {
        m_known.forget(name);
        if (!reply)
            return done(reply.error());
        // On a cluster what the queue sent away before it went is handed over first, then its
        // registry entry goes. Should either fail, listing skips the entry and the reaper finishes
        // both (ClusterQueueRegistry, forEachQueue): the entry stays while the outbox has work.
        const QByteArray generation = reply->elements.value(1).string;
        if (m_cluster && !generation.isEmpty())
            withdrawOnceHandedOver(name, generation);
        done(integerOf(reply->elements.value(0)));
    });
}

void RedisOperations::withdrawOnceHandedOver(const QString &name, const QByteArray &generation)
{
    m_transfers->deliver(name, [this, name, generation](bool emptied) {
        if (emptied)
            m_cluster->withdraw(name, generation, [](Result<void>) {});
    });
}

void RedisOperations::purgeQueue(const QString &name, Completion<qint64> done)
{
    run(m_script.purge, name, {}, Retry::Never, [this, name, done = std::move(done)](Result<RedisReply> reply) {
        if (!reply)
            return done(reply.error());
        const qint64 purged = integerOf(*reply);
        m_events.emitEvent(MessageEventKind::Purged, name, 0, 0, {}, QString::number(purged));
        done(purged);
    });
}

void RedisOperations::queueInfo(const QString &name, Completion<QueueInfo> done)
{
    run(m_script.info, name, {}, Retry::Reads, [this, name, done = std::move(done)](Result<RedisReply> reply) {
        if (!reply)
            return done(reply.error());
        QueueInfo info = RedisScripts::queueInfo(name, *reply);
        m_known.remember(name, info.config, info.depth + info.delayed + info.inFlight);
        done(std::move(info));
    });
}

void RedisOperations::listQueues(Completion<QList<QueueInfo>> done)
{
    // The registry names the queues; one info script per queue, all in flight at once.
    forEachQueue([this](const QString &name, std::function<void(Result<QueueInfo>)> next) { queueInfo(name, next); },
                 std::move(done));
}

void RedisOperations::registryEntries(std::function<void(Result<QList<std::pair<QString, QByteArray>>>)> done)
{
    if (m_cluster)
        return m_cluster->entries(std::move(done));
    const QByteArray registry = m_prefix + "queues";
    m_runner.command(
        {QByteArrayLiteral("SMEMBERS"), registry},
        [done = std::move(done)](CommandResult names) {
            if (!names)
                return done(names.error());
            QList<std::pair<QString, QByteArray>> out;
            out.reserve(names->elements.size());
            for (const RedisReply &name : names->elements)
                out.append({QString::fromUtf8(name.string), QByteArray()});
            done(std::move(out));
        },
        registry);
}

template<typename Step>
void RedisOperations::forEachQueue(Step step, Completion<QList<QueueInfo>> done)
{
    registryEntries([this, step, done = std::move(done)](Result<QList<std::pair<QString, QByteArray>>> entries) mutable {
        if (!entries)
            return done(entries.error());
        struct Gather
        {
            QList<QueueInfo> infos;
            std::optional<Error> failure;
            qsizetype waiting = 0;
            Completion<QList<QueueInfo>> done;
        };
        auto gather = std::make_shared<Gather>();
        gather->waiting = entries->size();
        gather->done = std::move(done);
        if (m_cluster) {
            QSet<QString> registered;
            for (const auto &entry : *entries)
                registered.insert(entry.first);
            m_cluster->keepLeftovers(registered);
        }
        const auto finish = [gather] {
            if (gather->failure)
                return gather->done(*gather->failure);
            std::sort(gather->infos.begin(), gather->infos.end(),
                      [](const QueueInfo &a, const QueueInfo &b) { return a.name < b.name; });
            gather->done(std::move(gather->infos));
        };
        if (gather->waiting == 0)
            return finish();
        for (const auto &[name, generation] : *entries) {
            step(name, [this, gather, finish, name, generation](Result<QueueInfo> info) {
                if (info) {
                    gather->infos.append(std::move(info.value()));
                } else if (info.error().code == ErrorCode::QueueNotFound) {
                    // Gone meanwhile, or (cluster) an entry a crash left behind: not listed. A
                    // leftover is swept once the queue's outbox (a deleted queue's) is empty.
                    if (m_cluster && m_cluster->isLeftover(name, generation))
                        withdrawOnceHandedOver(name, generation);
                } else if (!gather->failure) {
                    gather->failure = info.error();
                }
                if (--gather->waiting == 0)
                    finish();
            });
        }
    });
}

// Messages -------------------------------------------------------------------------------------

void RedisOperations::consume(const QString &name, const ConsumeRequest &request, Completion<QList<Message>> done)
{
    withKind(name, [this, name, request, done = std::move(done)](Result<QueueKind> kind) mutable {
        if (!kind)
            return done(kind.error());
        // A waiting consumer that went away takes nothing.
        if (request.stillWanted && !request.stillWanted())
            return done(QList<Message>{});
        const bool stream = *kind == QueueKind::Stream;
        const QString group = request.group.isEmpty() ? QStringLiteral("default") : request.group;
        QByteArrayList args{Redis::decimal(request.count), request.acknowledge ? "1" : "0",
                            Redis::decimal(request.visibilityTimeoutMs)};
        if (stream)
            args << group.toUtf8() << (request.consumer.isEmpty() ? request.user : request.consumer).toUtf8();
        // Streams lease redelivered entries even for acknowledge=true (as the memory store does).
        if (!request.acknowledge || stream) {
            for (int i = 0; i < request.count; ++i)
                args << m_ids.newReceipt().toLatin1();
        }
        run(stream ? m_script.streamConsume : m_script.consume, name, std::move(args), Retry::Never,
            [this, name, user = request.user, acknowledge = request.acknowledge, group, stream,
             done = std::move(done)](Result<RedisReply> reply) {
                if (!reply)
                    return done(reply.error());
                // Four elements per message, flat: message, deliveries, receipt, lease deadline.
                const QList<RedisReply> &items = reply->elements;
                QList<Message> delivered;
                delivered.reserve(items.size() / 4);
                for (qsizetype at = 0; at + 3 < items.size(); at += 4) {
                    Message message;
                    if (!RedisMessage::decode(items.at(at).string, name, message)) {
                        qCWarning(lcStorage) << "Redis queue" << name << "holds a message this broker cannot read";
                        continue;
                    }
                    message.deliveryCount = int(integerOf(items.at(at + 1)));
                    message.receipt = QString::fromLatin1(items.at(at + 2).string);
                    message.leaseDeadlineMs = integerOf(items.at(at + 3));
                    if (stream)
                        message.group = group;
                    const quint64 sequence = MessageId::parse(message.id).value_or(0);
                    m_events.emitEvent(MessageEventKind::Delivered, name, sequence, message.deliveryCount,
                                       user, stream ? group : QString());
                    if (message.receipt.isEmpty() && acknowledge)
                        m_events.emitEvent(MessageEventKind::Acked, name, sequence, message.deliveryCount,
                                           user, stream ? group : QString());
                    delivered.append(std::move(message));
                }
                // Delivered with acknowledge=true: gone from the queue (streams keep their entries).
                if (acknowledge && !stream)
                    m_known.take(name, delivered.size());
                done(std::move(delivered));
            });
    });
}

void RedisOperations::awaitMessages(const QString &name, qint64 forMs, std::function<void(Result<void>)> done)
{
    run(m_script.await, name, {QByteArray::number(forMs)}, Retry::Never,
        [done = std::move(done)](Result<RedisReply> reply) {
            if (!reply)
                return done(reply.error());
            done({});
        });
}

void RedisOperations::settle(const QString &name, const MessageRef &ref, const char *action, qint64 ms,
                             ScriptDone done)
{
    if (!MessageId::parse(ref.id))
        return done(StoreErrors::messageNotFound());
    if (!ref.receipt.isEmpty()) {
        if (const Result<quint64> receipt = StoreErrors::parseReceipt(ref.receipt); !receipt)
            return done(receipt.error());
    }
    withKind(name, [this, name, ref, action, ms, done = std::move(done)](Result<QueueKind> kind) mutable {
        if (!kind)
            return done(kind.error());
        QByteArrayList args{QByteArray(action), ref.id.toLatin1(), ref.receipt.toLatin1().toLower()};
        const bool stream = *kind == QueueKind::Stream;
        if (stream)
            args << ref.group.toUtf8();
        args << Redis::decimal(ms);
        if (stream)
            args << m_ids.newReceipt().toLatin1();
        run(stream ? m_script.streamSettle : m_script.settle, name, std::move(args), Retry::Never, std::move(done),
            ref.user);
    });
}

void RedisOperations::ack(const QString &name, const MessageRef &ref, Completion<void> done)
{
    settle(name, ref, "ack", 0, [done = std::move(done)](Result<RedisReply> reply) {
        if (!reply)
            return done(reply.error());
        done({});
    });
}

void RedisOperations::nack(const QString &name, const MessageRef &ref, qint64 delayMs, Completion<NackResult> done)
{
    settle(name, ref, "nack", delayMs, [this, name, delayMs, done = std::move(done)](Result<RedisReply> reply) {
        if (!reply)
            return done(reply.error());
        NackResult result;
        result.requeued = integerOf(reply->elements.value(0)) == 1;
        result.deadLettered = integerOf(reply->elements.value(1)) == 1;
        if (result.requeued && delayMs <= 0)
            m_events.available(name);
        done(result);
    });
}

void RedisOperations::extend(const QString &name, const MessageRef &ref, qint64 visibilityMs, Completion<qint64> done)
{
    settle(name, ref, "extend", visibilityMs, [done = std::move(done)](Result<RedisReply> reply) {
        if (!reply)
            return done(reply.error());
        done(integerOf(*reply));
    });
}

void RedisOperations::runMaintenance(Completion<qint64> done)
{
    // The reaper runs on every broker; each queue's step is one atomic script, so brokers that
    // reap the same queue at once simply find nothing left to do.
    struct Gather
    {
        qint64 next = 0;
    };
    auto gather = std::make_shared<Gather>();
    // The held count behind max_size is checked against the lists (three more reads per queue)
    // every few rounds: a count is only ever wrong after a script failed half-way, or while a
    // broker of an earlier version shares the Redis.
    constexpr quint64 HeldCheckRounds = 10;
    const QByteArray checkHeld = m_maintenanceRounds++ % HeldCheckRounds == 0 ? "1" : "0";
    forEachQueue(
        [this, gather, checkHeld](const QString &name, std::function<void(Result<QueueInfo>)> next) {
            withKind(name, [this, name, gather, checkHeld, next = std::move(next)](Result<QueueKind> kind) mutable {
                if (!kind)
                    return next(kind.error());
                const Script &script = *kind == QueueKind::Stream ? m_script.streamMaintain : m_script.maintain;
                run(script, name, {QByteArray::number(m_maintenanceBatch), checkHeld}, Retry::Never,
                    [this, name, gather, next = std::move(next)](Result<RedisReply> reply) {
                        if (!reply)
                            return next(reply.error());
                        const qint64 due = integerOf(reply->elements.value(0));
                        if (due != 0 && (gather->next == 0 || due < gather->next))
                            gather->next = due;
                        if (integerOf(reply->elements.value(1)) == 1)
                            m_events.available(name);
                        if (m_transfers && integerOf(reply->elements.value(2)) > 0)
                            m_transfers->deliver(name); // left from a round that failed
                        if (integerOf(reply->elements.value(3)) == 1)
                            qCWarning(lcStorage) << "Redis queue" << name
                                                 << "had a wrong held count (max_size); mended from its lists";
                        next(QueueInfo{});
                    });
            });
        },
        [gather, done = std::move(done)](Result<QList<QueueInfo>> all) {
            if (!all)
                return done(all.error());
            done(gather->next);
        });
}

// The spool's way back --------------------------------------------------------------------------

void RedisOperations::drain(const QByteArray &identity, const PublishSpool::Batch &batch, Completion<qint64> done)
{
    // On a cluster a queue drain.lua must create again is enrolled first, then the batch is sent again.
    drainEnrolled(identity, batch, {}, [this, identity, batch, done = std::move(done)](Result<qint64> status) mutable {
        if (status || !m_cluster || status.error().detail != RedisScripts::NotEnrolled)
            return done(std::move(status));
        m_cluster->enroll(batch.queue, [this, identity, batch, done = std::move(done)](Result<QByteArray> generation) mutable {
            if (!generation)
                return done(generation.error());
            drainEnrolled(identity, batch, *generation, std::move(done));
        });
    });
}

void RedisOperations::drainEnrolled(const QByteArray &identity, const PublishSpool::Batch &batch,
                                    const QByteArray &generation, Completion<qint64> done)
{
    const QueueConfig config = batch.config.value_or(QueueConfig{});
    QByteArrayList args{identity,
                        QByteArray::number(batch.number),
                        batch.config ? "1" : "0",
                        config.type.toUtf8(),
                        QByteArray::number(config.maxSize),
                        QByteArray::number(config.ttlSeconds),
                        QByteArray::number(config.visibilityTimeoutSeconds),
                        QByteArray::number(config.maxDeliveries),
                        config.deadLetterQueue.toUtf8(),
                        generation,
                        QByteArray::number(config.partitions)};
    for (const PublishSpool::Message &message : batch.messages)
        args << QByteArray::number(message.dueMs) << message.stored;
    run(m_script.drain, batch.queue, std::move(args), Retry::Never, [done = std::move(done)](Result<RedisReply> reply) {
        if (!reply)
            return done(reply.error());
        done(integerOf(*reply));
    });
}

} // namespace Broker
