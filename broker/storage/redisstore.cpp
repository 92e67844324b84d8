// SPDX-License-Identifier: GPL-3.0-or-later
#include "redisstore.h"

#include "redismessage.h"
#include "redisscripts.h"
#include "storeerrors.h"

#include "core/messageid.h"
#include "errors/logging.h"

#include <QRandomGenerator>
#include <QSet>
#include <QTimer>

#include <algorithm>

namespace Broker {

using Redis::CommandResult;
using Redis::RedisReply;
using Redis::Script;

namespace {

using RedisScripts::integerOf;

// Message ids: milliseconds since 2025-01-01 (41 bits), this broker's node number (10 bits) and a
// counter within the millisecond (13 bits), so that brokers sharing a Redis never hand out the
// same id and need no round trip to get one.
constexpr qint64 IdEpochMs = 1'735'689'600'000;
constexpr int NodeBits = 10;
constexpr int CounterBits = 13;

} // namespace

RedisStore::RedisStore(RedisStoreOptions options, const QueueTypeCatalog &types, const Clock &clock)
    : m_options(std::move(options)), m_prefix(m_options.keyPrefix.toUtf8()), m_types(types), m_clock(clock),
      m_pool(std::make_unique<Redis::ConnectionPool>(m_options.connection, m_options.pool)),
      m_scripts(std::make_unique<Redis::ScriptRunner>(*m_pool)), m_script(std::make_unique<RedisScripts::Set>()),
      m_breaker(m_options.breaker, clock), m_random(QRandomGenerator::global()->generate64())
{
    m_node = m_random() & ((1u << NodeBits) - 1);
    m_drainTimer.setInterval(m_options.spoolDrainIntervalMs);
    QObject::connect(&m_drainTimer, &QTimer::timeout, [this] { drainSpool(); });
}

RedisStore::~RedisStore()
{
    // The spool's last completions run while every member they use is still here.
    m_listener = nullptr;
    m_spool.reset();
}

void RedisStore::flush()
{
    if (m_spool)
        m_spool->flush();
}

void RedisStore::start()
{
    m_pool->start();
    // A node number of our own, so that ids of brokers sharing this Redis never collide.
    m_pool->command({QByteArrayLiteral("INCR"), m_prefix + "nodes"}, [this](CommandResult result) {
        if (result && result->type == RedisReply::Type::Integer)
            m_node = quint64(result->integer) & ((1u << NodeBits) - 1);
    });
}

HealthStatus RedisStore::health() const
{
    const bool reachable = m_breaker.state() == CircuitBreaker::State::Closed && m_pool->readyCount() > 0;
    if (reachable && !(m_spool && m_spool->hasWork()))
        return HealthStatus::Healthy;
    // Publishes still land somewhere safe while the spool takes them.
    if (m_spool || m_breaker.state() == CircuitBreaker::State::Closed)
        return HealthStatus::Degraded;
    return HealthStatus::Unhealthy;
}

StoreStatus RedisStore::status() const
{
    StoreStatus status;
    status.breaker = CircuitBreaker::stateName(m_breaker.state());
    status.breakerOpened = m_breaker.timesOpened();
    status.breakerRetryAtMs = m_breaker.retryAtMs();
    status.connectionsReady = m_pool->readyCount();
    status.connections = m_pool->size();
    status.reconnects = m_pool->reconnects();
    if (m_spool) {
        status.spooledMessages = m_spool->messageCount();
        status.spooledBytes = m_spool->byteCount();
        status.spoolMaxMessages = std::max<qint64>(0, m_spool->limits().maxMessages);
        status.spoolMaxBytes = std::max<qint64>(0, m_spool->limits().maxBytes);
    }
    status.queuesRecreated = m_queuesRecreated;
    status.spoolDiscarded = m_spoolDiscarded;
    status.spoolBlocked = m_spoolBlocked;
    status.scriptReloads = m_scripts->reloads();
    status.lastError = m_pool->lastError();
    return status;
}

void RedisStore::setSpool(std::unique_ptr<PublishSpool> spool)
{
    m_spool = std::move(spool);
    if (m_spool && !m_spool->isEmpty()) {
        qCInfo(lcStorage).noquote() << QStringLiteral("publish spool %1: %2 messages wait for Redis")
                                           .arg(m_spool->path())
                                           .arg(m_spool->messageCount());
        m_drainTimer.start();
    }
}

QByteArray RedisStore::key(const QString &queue, const char *part) const
{
    return m_prefix + '{' + queue.toUtf8() + "}:" + part;
}

quint64 RedisStore::nextSequence()
{
    const qint64 now = std::max<qint64>(m_clock.nowMs() - IdEpochMs, 0);
    if (now > m_lastIdMs) {
        m_lastIdMs = now;
        m_idCounter = 0;
    } else if (++m_idCounter >= (1u << CounterBits)) {
        ++m_lastIdMs; // more than 8192 ids in one millisecond: borrow from the next one
        m_idCounter = 0;
    }
    return (quint64(m_lastIdMs) << (NodeBits + CounterBits)) | (m_node << CounterBits) | m_idCounter;
}

QString RedisStore::newReceipt()
{
    return QStringLiteral("%1").arg(quint64(m_random()), 16, 16, QLatin1Char('0'));
}

void RedisStore::run(const Script &script, const QString &queue, QByteArrayList args, Retry retry, ScriptDone done,
                     const QString &user)
{
    QByteArrayList keys{key(queue, "meta")};
    if (&script == &m_script->create || &script == &m_script->remove || &script == &m_script->drain)
        keys.append(m_prefix + "queues");
    args.prepend(QByteArray::number(m_clock.nowMs()));
    args.prepend(queue.toUtf8());
    args.prepend(m_prefix);
    attempt(script, queue, keys, args, retry, 1, [this, queue, user, done = std::move(done)](Result<RedisReply> reply) {
        if (!reply)
            return done(reply.error());
        if (const Result<void> refused = RedisScripts::replyError(*reply); !refused) {
            // A queue missing while the spool holds messages for it is created again when they
            // drain: its configuration stays known, so that publishes keep queueing behind them.
            const bool spooled = m_spool && m_spool->messageCount(queue) > 0;
            if ((refused.error().code == ErrorCode::QueueNotFound && !spooled) || refused.error().code == ErrorCode::Conflict)
                m_configs.remove(queue);
            return done(refused.error());
        }
        dispatchEvents(reply->elements.value(1), user);
        done(reply->elements.value(0));
    });
}

void RedisStore::attempt(const Script &script, const QString &queue, const QByteArrayList &keys,
                         const QByteArrayList &args, Retry retry, int attemptNumber, ScriptDone done)
{
    if (!m_breaker.allowRequest()) {
        const qint64 waitMs = std::max<qint64>(0, m_breaker.retryAtMs() - m_clock.nowMs());
        return done(Error{ErrorCode::Unavailable,
                          QStringLiteral("Redis is unavailable (circuit breaker open; next attempt in %1 s)")
                              .arg((waitMs + 999) / 1000),
                          Redis::NotSent});
    }
    const quint32 routing = quint32(qHash(queue));
    m_scripts->run(script, keys, args,
                   [this, &script, queue, keys, args, retry, attemptNumber, done = std::move(done)](CommandResult result) mutable {
                       const CircuitBreaker::State before = m_breaker.state();
                       if (result)
                           m_breaker.recordSuccess();
                       else
                           m_breaker.recordFailure();
                       logBreakerChange(before, result ? QString() : result.error().message);
                       if (result)
                           return done(std::move(result));
                       qCDebug(lcStorage) << "Redis call" << script.name << "failed:" << result.error().message;
                       if (retry == Retry::Never || !m_options.readRetry.allowsAnotherAttempt(attemptNumber))
                           return done(std::move(result));
                       const qint64 delay = m_options.readRetry.delayMs(attemptNumber, m_random);
                       QTimer::singleShot(int(delay), m_pool.get(),
                                          [this, &script, queue, keys, args, retry, attemptNumber, done]() mutable {
                                              attempt(script, queue, keys, args, retry, attemptNumber + 1, std::move(done));
                                          });
                   },
                   routing);
}

void RedisStore::logBreakerChange(CircuitBreaker::State before, const QString &failure)
{
    const CircuitBreaker::State after = m_breaker.state();
    if (after == before)
        return;
    if (after == CircuitBreaker::State::Open)
        qCWarning(lcStorage).noquote() << QStringLiteral("Redis is out of reach (%1): circuit breaker open, next probe in %2 s%3")
                                              .arg(failure)
                                              .arg(double(m_breaker.pauseMs()) / 1000.0)
                                              .arg(m_spool ? QStringLiteral(", publishes go to the spool") : QString());
    else if (after == CircuitBreaker::State::Closed)
        qCInfo(lcStorage).noquote() << QStringLiteral("Redis answers again: circuit breaker closed%1")
                                           .arg(m_spool && m_spool->hasWork()
                                                    ? QStringLiteral(", draining %1 spooled messages").arg(m_spool->messageCount())
                                                    : QString());
}

void RedisStore::dispatchEvents(const RedisReply &events, const QString &user)
{
    const QList<RedisReply> &e = events.elements;
    for (qsizetype i = 0; i + 4 < e.size(); i += 5) {
        const std::optional<MessageEventKind> kind = RedisScripts::eventKind(e[i].string);
        if (!kind)
            continue;
        const QString queue = QString::fromUtf8(e[i + 1].string);
        const bool byUser = *kind == MessageEventKind::Acked || *kind == MessageEventKind::Nacked
                            || *kind == MessageEventKind::Redriven;
        emitEvent(*kind, queue, QString::fromUtf8(e[i + 2].string), e[i + 3].string.toInt(), byUser ? user : QString(),
                  QString::fromUtf8(e[i + 4].string));
        if (m_listener && *kind == MessageEventKind::Redriven)
            m_listener->messagesAvailable(queue);
        if (m_listener && *kind == MessageEventKind::DeadLettered) {
            const QueueConfig config = m_configs.value(queue);
            if (!config.deadLetterQueue.isEmpty())
                m_listener->messagesAvailable(config.deadLetterQueue);
        }
    }
}

void RedisStore::emitEvent(MessageEventKind kind, const QString &queue, const QString &id, int deliveries,
                           const QString &user, const QString &detail)
{
    if (!m_listener)
        return;
    MessageEvent event;
    event.timeMs = m_clock.nowMs();
    event.kind = kind;
    event.deliveryCount = deliveries;
    event.sequence = MessageId::parse(id).value_or(0);
    event.queue = queue;
    event.user = user;
    event.detail = detail;
    m_listener->messageEvent(event);
}

void RedisStore::withKind(const QString &name, std::function<void(Result<QueueKind>)> then)
{
    const auto cached = m_configs.constFind(name);
    if (cached != m_configs.cend())
        return then(m_types.kindOf(cached->type));
    queueInfo(name, [this, then = std::move(then)](Result<QueueInfo> info) {
        if (!info)
            return then(info.error());
        then(m_types.kindOf(info->config.type));
    });
}

// Queues ---------------------------------------------------------------------------------------

void RedisStore::createQueue(const QString &name, const QueueConfig &config, Completion<QueueInfo> done)
{
    if (!m_types.contains(config.type))
        return done(Error{ErrorCode::InvalidArgument, QStringLiteral("Unknown queue type '%1'").arg(config.type)});
    if (config.type != QLatin1StringView("list") && config.type != QLatin1StringView("priority")
        && config.type != QLatin1StringView("stream"))
        return done(Error{ErrorCode::InvalidArgument,
                          QStringLiteral("Queue type '%1' is not available with the Redis backend").arg(config.type)});
    const qint64 now = m_clock.nowMs();
    QByteArrayList args{config.type.toUtf8(),
                        QByteArray::number(config.maxSize),
                        QByteArray::number(config.ttlSeconds),
                        QByteArray::number(config.visibilityTimeoutSeconds),
                        QByteArray::number(config.maxDeliveries),
                        config.deadLetterQueue.toUtf8()};
    run(m_script->create, name, args, Retry::Never, [this, name, config, now, done = std::move(done)](Result<RedisReply> reply) {
        if (!reply)
            return done(reply.error());
        m_configs.insert(name, config);
        m_lastSizes.insert(name, 0);
        QueueInfo info;
        info.name = name;
        info.config = config;
        info.created = double(now) / 1000.0;
        done(std::move(info));
    });
}

void RedisStore::deleteQueue(const QString &name, Completion<qint64> done)
{
    run(m_script->remove, name, {}, Retry::Never, [this, name, done = std::move(done)](Result<RedisReply> reply) {
        m_configs.remove(name);
        m_lastSizes.remove(name);
        if (!reply)
            return done(reply.error());
        done(integerOf(*reply));
    });
}

void RedisStore::purgeQueue(const QString &name, Completion<qint64> done)
{
    run(m_script->purge, name, {}, Retry::Never, [this, name, done = std::move(done)](Result<RedisReply> reply) {
        if (!reply)
            return done(reply.error());
        const qint64 purged = integerOf(*reply);
        emitEvent(MessageEventKind::Purged, name, {}, 0, {}, QString::number(purged));
        done(purged);
    });
}

void RedisStore::queueInfo(const QString &name, Completion<QueueInfo> done)
{
    run(m_script->info, name, {}, Retry::Reads, [this, name, done = std::move(done)](Result<RedisReply> reply) {
        if (!reply)
            return done(reply.error());
        QueueInfo info = RedisScripts::queueInfo(name, *reply);
        m_configs.insert(name, info.config);
        m_lastSizes.insert(name, info.depth + info.delayed + info.inFlight);
        done(std::move(info));
    });
}

void RedisStore::listQueues(Completion<QList<QueueInfo>> done)
{
    // The registry names the queues; one info script per queue, all in flight at once.
    forEachQueue([this](const QString &name, std::function<void(Result<QueueInfo>)> next) { queueInfo(name, next); },
                 std::move(done));
}

template<typename Step>
void RedisStore::forEachQueue(Step step, Completion<QList<QueueInfo>> done)
{
    if (!m_breaker.allowRequest())
        return done(Error{ErrorCode::Unavailable, QStringLiteral("Redis is unavailable (circuit breaker open)"),
                          Redis::NotSent});
    m_pool->command({QByteArrayLiteral("SMEMBERS"), m_prefix + "queues"},
                    [this, step, done = std::move(done)](CommandResult names) mutable {
                        if (!names) {
                            m_breaker.recordFailure();
                            return done(names.error());
                        }
                        m_breaker.recordSuccess();
                        struct Gather
                        {
                            QList<QueueInfo> infos;
                            std::optional<Error> failure;
                            qsizetype waiting = 0;
                            Completion<QList<QueueInfo>> done;
                        };
                        auto gather = std::make_shared<Gather>();
                        gather->waiting = names->elements.size();
                        gather->done = std::move(done);
                        const auto finish = [gather] {
                            if (gather->failure)
                                return gather->done(*gather->failure);
                            std::sort(gather->infos.begin(), gather->infos.end(),
                                      [](const QueueInfo &a, const QueueInfo &b) { return a.name < b.name; });
                            gather->done(std::move(gather->infos));
                        };
                        if (gather->waiting == 0)
                            return finish();
                        for (const RedisReply &name : names->elements) {
                            step(QString::fromUtf8(name.string), [gather, finish](Result<QueueInfo> info) {
                                if (info)
                                    gather->infos.append(std::move(info.value()));
                                else if (info.error().code != ErrorCode::QueueNotFound && !gather->failure)
                                    gather->failure = info.error(); // gone meanwhile: simply not listed
                                if (--gather->waiting == 0)
                                    finish();
                            });
                        }
                    });
}

// Messages -------------------------------------------------------------------------------------

void RedisStore::publish(const QString &name, const QList<NewMessage> &messages, const QString &publisher,
                         Completion<PublishResult> done)
{
    withKind(name, [this, name, messages, publisher, done = std::move(done)](Result<QueueKind> kind) mutable {
        if (!kind)
            return done(kind.error());
        const qint64 now = m_clock.nowMs();
        QByteArrayList args;
        args.reserve(messages.size() * 2);
        PublishResult result;
        result.messageIds.reserve(messages.size());
        bool anyReady = false;
        for (const NewMessage &message : messages) {
            if (*kind == QueueKind::Stream && message.delayMs > 0)
                return done(StoreErrors::delayOnStream());
            const QString id = MessageId::format(nextSequence());
            result.messageIds.append(id);
            anyReady |= message.delayMs <= 0;
            args << QByteArray::number(message.delayMs > 0 ? now + message.delayMs : 0)
                 << RedisMessage::encode(id, now * 1000, message, publisher);
        }
        // Behind a spool that still holds batches, so that the order of publishes holds.
        if (m_spool && m_spool->hasWork())
            return spoolPublish(name, args, std::move(result), publisher, std::move(done));
        run(m_script->publish, name, args, Retry::Never,
            [this, name, publisher, anyReady, args, result = std::move(result),
             done = std::move(done)](Result<RedisReply> reply) mutable {
                // It never reached Redis (not connected, breaker open): the spool takes it.
                if (!reply && m_spool && reply.error().detail == Redis::NotSent)
                    return spoolPublish(name, args, std::move(result), publisher, std::move(done));
                if (!reply)
                    return done(reply.error());
                result.queueSize = integerOf(*reply);
                m_lastSizes.insert(name, result.queueSize);
                for (const QString &id : std::as_const(result.messageIds))
                    emitEvent(MessageEventKind::Published, name, id, 0, publisher);
                if (anyReady && m_listener)
                    m_listener->messagesAvailable(name);
                done(std::move(result));
            });
    });
}

void RedisStore::consume(const QString &name, const ConsumeRequest &request, Completion<QList<Message>> done)
{
    withKind(name, [this, name, request, done = std::move(done)](Result<QueueKind> kind) mutable {
        if (!kind)
            return done(kind.error());
        // A waiting consumer that went away takes nothing.
        if (request.stillWanted && !request.stillWanted())
            return done(QList<Message>{});
        const bool stream = *kind == QueueKind::Stream;
        const QString group = request.group.isEmpty() ? QStringLiteral("default") : request.group;
        QByteArrayList args{QByteArray::number(request.count), request.acknowledge ? "1" : "0",
                            QByteArray::number(request.visibilityTimeoutMs)};
        if (stream)
            args << group.toUtf8() << (request.consumer.isEmpty() ? request.user : request.consumer).toUtf8();
        // Streams lease redelivered entries even for acknowledge=true (as the memory store does).
        if (!request.acknowledge || stream) {
            for (int i = 0; i < request.count; ++i)
                args << newReceipt().toLatin1();
        }
        run(stream ? m_script->streamConsume : m_script->consume, name, std::move(args), Retry::Never,
            [this, name, request, group, stream, done = std::move(done)](Result<RedisReply> reply) {
                if (!reply)
                    return done(reply.error());
                QList<Message> delivered;
                delivered.reserve(reply->elements.size());
                for (const RedisReply &item : reply->elements) {
                    Message message;
                    if (!RedisMessage::decode(item.elements.value(0).string, name, message)) {
                        qCWarning(lcStorage) << "Redis queue" << name << "holds a message this broker cannot read";
                        continue;
                    }
                    message.deliveryCount = int(integerOf(item.elements.value(1)));
                    message.receipt = QString::fromLatin1(item.elements.value(2).string);
                    message.leaseDeadlineMs = integerOf(item.elements.value(3));
                    if (stream)
                        message.group = group;
                    emitEvent(MessageEventKind::Delivered, name, message.id, message.deliveryCount, request.user,
                              stream ? group : QString());
                    if (message.receipt.isEmpty() && request.acknowledge)
                        emitEvent(MessageEventKind::Acked, name, message.id, message.deliveryCount, request.user,
                                  stream ? group : QString());
                    delivered.append(std::move(message));
                }
                // Delivered with acknowledge=true: gone from the queue (streams keep their entries).
                if (request.acknowledge && !stream && m_lastSizes.contains(name))
                    m_lastSizes[name] = std::max<qint64>(0, m_lastSizes[name] - delivered.size());
                done(std::move(delivered));
            });
    });
}

void RedisStore::settle(const QString &name, const MessageRef &ref, const char *action, qint64 ms, ScriptDone done)
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
        args << QByteArray::number(ms);
        if (stream)
            args << newReceipt().toLatin1();
        run(stream ? m_script->streamSettle : m_script->settle, name, std::move(args), Retry::Never, std::move(done),
            ref.user);
    });
}

void RedisStore::ack(const QString &name, const MessageRef &ref, Completion<void> done)
{
    settle(name, ref, "ack", 0, [done = std::move(done)](Result<RedisReply> reply) {
        if (!reply)
            return done(reply.error());
        done({});
    });
}

void RedisStore::nack(const QString &name, const MessageRef &ref, qint64 delayMs, Completion<NackResult> done)
{
    settle(name, ref, "nack", delayMs, [this, name, delayMs, done = std::move(done)](Result<RedisReply> reply) {
        if (!reply)
            return done(reply.error());
        NackResult result;
        result.requeued = integerOf(reply->elements.value(0)) == 1;
        result.deadLettered = integerOf(reply->elements.value(1)) == 1;
        if (result.requeued && delayMs <= 0 && m_listener)
            m_listener->messagesAvailable(name);
        done(result);
    });
}

void RedisStore::extend(const QString &name, const MessageRef &ref, qint64 visibilityMs, Completion<qint64> done)
{
    settle(name, ref, "extend", visibilityMs, [done = std::move(done)](Result<RedisReply> reply) {
        if (!reply)
            return done(reply.error());
        done(integerOf(*reply));
    });
}

void RedisStore::browse(const QString &name, qint64 offset, qint64 limit, Completion<BrowsePage> done)
{
    run(m_script->browse, name, {QByteArray::number(offset), QByteArray::number(limit)}, Retry::Reads,
        [name, offset, done = std::move(done)](Result<RedisReply> reply) {
            if (!reply)
                return done(reply.error());
            BrowsePage page;
            page.total = integerOf(reply->elements.value(0));
            for (const RedisReply &item : reply->elements.value(1).elements) {
                Message message;
                if (!RedisMessage::decode(item.elements.value(0).string, name, message))
                    continue;
                message.deliveryCount = int(integerOf(item.elements.value(1)));
                page.messages.append(std::move(message));
            }
            const qint64 next = offset + page.messages.size();
            page.nextOffset = next < page.total ? next : -1;
            done(std::move(page));
        });
}

void RedisStore::redrive(const QString &name, qint64 limit, const QString &user, Completion<qint64> done)
{
    run(m_script->redrive, name, {QByteArray::number(limit)}, Retry::Never,
        [done = std::move(done)](Result<RedisReply> reply) {
            if (!reply)
                return done(reply.error());
            done(integerOf(*reply));
        },
        user);
}

void RedisStore::runMaintenance(Completion<qint64> done)
{
    // The reaper runs on every broker; each queue's step is one atomic script, so brokers that
    // reap the same queue at once simply find nothing left to do.
    struct Gather
    {
        qint64 next = 0;
        std::optional<Error> failure;
    };
    auto gather = std::make_shared<Gather>();
    forEachQueue(
        [this, gather](const QString &name, std::function<void(Result<QueueInfo>)> next) {
            withKind(name, [this, name, gather, next = std::move(next)](Result<QueueKind> kind) mutable {
                if (!kind)
                    return next(kind.error());
                const Script &script = *kind == QueueKind::Stream ? m_script->streamMaintain : m_script->maintain;
                run(script, name, {QByteArray::number(m_options.maintenanceBatch)}, Retry::Never,
                    [this, name, gather, next = std::move(next)](Result<RedisReply> reply) {
                        if (!reply)
                            return next(reply.error());
                        const qint64 due = integerOf(reply->elements.value(0));
                        if (due != 0 && (gather->next == 0 || due < gather->next))
                            gather->next = due;
                        if (integerOf(reply->elements.value(1)) == 1 && m_listener)
                            m_listener->messagesAvailable(name);
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

} // namespace Broker
