// SPDX-License-Identifier: GPL-3.0-or-later
// RedisOperations for publishes: ids and encoding, and the group commit that sends the publishes
// to one queue that arrive while an earlier one is on its way as one call. Apart from
// redisoperations.cpp so that each file keeps one concern.
#include "redisoperations.h"

#include "knownqueues.h"
#include "nodeidgenerator.h"
#include "rediseventrelay.h"
#include "redismessage.h"
#include "storeerrors.h"

#include "redis/respcodec.h"

namespace Broker {

using Redis::RedisReply;
using RedisScripts::integerOf;
using Retry = ResilientScriptRunner::Retry;

void RedisOperations::preparePublish(const QString &name, const QList<NewMessage> &messages,
                                     const QString &publisher, std::function<void(Result<PreparedPublish>)> done)
{
    withKind(name, [this, messages, publisher, done = std::move(done)](Result<QueueKind> kind) {
        if (!kind)
            return done(kind.error());
        const qint64 now = m_clock.nowMs();
        const RedisMessage::Encoder encoder(now * 1000, publisher.toUtf8());
        PreparedPublish prepared;
        prepared.args.reserve(messages.size() * 2);
        prepared.result.messageSequences.reserve(messages.size());
        for (const NewMessage &message : messages) {
            if (*kind == QueueKind::Stream && message.delayMs > 0)
                return done(StoreErrors::delayOnStream());
            const quint64 sequence = m_ids.nextSequence();
            prepared.result.messageSequences.append(sequence);
            prepared.anyReady |= message.delayMs <= 0;
            prepared.args << (message.delayMs > 0 ? QByteArray::number(now + message.delayMs) : QByteArrayLiteral("0"))
                          << encoder.encode(sequence, message);
        }
        done(std::move(prepared));
    });
}

void RedisOperations::publish(const QString &name, PreparedPublish prepared, const QString &publisher,
                              Completion<PublishResult> done)
{
    if (m_publishLines.size() >= MaxCachedKeyLists && !m_publishLines.contains(name)) {
        m_publishLines.removeIf([](const auto &line) { return !line.value().sending; }); // idle lines
    }
    PublishLine &line = m_publishLines[name];
    QueuedPublish publish{std::move(prepared), publisher, std::move(done)};
    if (!line.sending) {
        line.sending = true;
        return sendAlone(name, std::move(publish));
    }
    // As the connection's bound on unsent output did when each publish was a command of its own.
    const qsizetype bytes = publish.bytes = messageBytes(publish.prepared);
    if (line.waitingBytes + bytes > MaxWaitingBytes) {
        return publish.done(Error{ErrorCode::Unavailable,
                                  QStringLiteral("Too many publishes to queue '%1' wait for Redis").arg(name), Redis::NotSent});
    }
    line.waitingBytes += bytes;
    line.waiting.push_back(std::move(publish));
}

void RedisOperations::publish(const QString &name, const QList<NewMessage> &messages, const QString &publisher,
                              Completion<PublishResult> done)
{
    preparePublish(name, messages, publisher,
                   [this, name, publisher, done = std::move(done)](Result<PreparedPublish> prepared) mutable {
                       if (!prepared)
                           return done(prepared.error());
                       publish(name, std::move(*prepared), publisher, std::move(done));
                   });
}

void RedisOperations::sendAlone(const QString &name, QueuedPublish publish)
{
    const QByteArrayList args = publish.prepared.args;
    run(m_script.publish, name, args, Retry::Never,
        [this, name, publish = std::move(publish)](Result<RedisReply> reply) mutable {
            const bool released = releaseIdleLine(name);
            std::optional<Error> failure;
            if (!reply)
                publish.done(*(failure = reply.error()));
            else
                published(name, publish, integerOf(*reply));
            if (!released)
                publishesAnswered(name, failure);
        });
}

void RedisOperations::sendWaiting(const QString &name, PublishLine &line)
{
    // The first publish that waits, and those behind it while the call stays within
    // MaxGroupedMessages and MaxGroupedBytes.
    std::size_t taken = 0;
    qsizetype messages = 0;
    qsizetype bytes = 0;
    for (; taken < line.waiting.size(); ++taken) {
        const QueuedPublish &next = line.waiting[taken];
        const qsizetype size = next.prepared.args.size() / 2;
        const qsizetype nextBytes = next.bytes;
        if (taken > 0 && (messages + size > MaxGroupedMessages || bytes + nextBytes > MaxGroupedBytes))
            break;
        messages += size;
        bytes += nextBytes;
    }
    line.waitingBytes -= bytes;
    const auto end = line.waiting.begin() + qsizetype(taken);
    // `line` is not touched past here: the call may be answered before run() returns.
    if (taken == 1) {
        QueuedPublish publish = std::move(line.waiting.front());
        line.waiting.erase(line.waiting.begin());
        return sendAlone(name, std::move(publish));
    }
    std::vector<QueuedPublish> call(std::make_move_iterator(line.waiting.begin()), std::make_move_iterator(end));
    line.waiting.erase(line.waiting.begin(), end);
    QByteArrayList args;
    args.reserve(qsizetype(call.size()) + 2 * messages);
    for (const QueuedPublish &publish : call)
        args << Redis::decimal(publish.prepared.args.size() / 2) << publish.prepared.args;
    run(m_script.publishGroups, name, std::move(args), Retry::Never,
        [this, name, call = std::move(call)](Result<RedisReply> reply) mutable {
            const bool released = releaseIdleLine(name);
            // The call's failure is each publish's; else one answer per publish, in order.
            if (reply && reply->elements.size() != qsizetype(call.size()))
                reply = Error{ErrorCode::Internal, QStringLiteral("Redis answered a publish of %1 groups with %2 answers")
                                                       .arg(call.size()).arg(reply->elements.size())};
            for (std::size_t i = 0; i < call.size(); ++i) {
                QueuedPublish &publish = call[i];
                const qint64 after = reply ? integerOf(reply->elements.at(qsizetype(i))) : 0;
                if (!reply)
                    publish.done(reply.error());
                else if (after < 0)
                    publish.done(StoreErrors::queueFull());
                else
                    published(name, publish, after);
            }
            if (!released)
                publishesAnswered(name, reply ? std::nullopt : std::optional<Error>(reply.error()));
        });
}

void RedisOperations::published(const QString &name, QueuedPublish &publish, qint64 queueSize)
{
    PublishResult &result = publish.prepared.result;
    result.queueSize = queueSize;
    m_known.setSize(name, queueSize);
    for (const quint64 sequence : std::as_const(result.messageSequences))
        m_events.emitEvent(MessageEventKind::Published, name, sequence, 0, publish.publisher);
    if (publish.prepared.anyReady)
        m_events.available(name);
    publish.done(std::move(result));
}

bool RedisOperations::releaseIdleLine(const QString &name)
{
    // Before the answered publishes' completions: a publish one of them makes then goes at once
    // when nothing waits (a client that publishes again as soon as it has its answer, over the same
    // connection, meets a free line).
    PublishLine &line = m_publishLines[name];
    if (!line.waiting.empty())
        return false;
    line.sending = false;
    return true;
}

void RedisOperations::publishesAnswered(const QString &name, const std::optional<Error> &failure)
{
    // After the answered publishes' completions (the line was not released: publishes waited), so
    // that a publish one of them made waits behind those that came before it. An idle line stays
    // (its list keeps its capacity) until publish() clears idle lines out.
    PublishLine &line = m_publishLines[name];
    // Redis did not answer the call (not sent, no connection, no answer in time): those behind it
    // are not sent either, so that they fail now rather than each after a deadline of its own, and
    // a spool takes them after the call's own publishes, in order.
    if (failure && (failure->code == ErrorCode::Unavailable || failure->code == ErrorCode::Timeout)) {
        std::vector<QueuedPublish> unsent;
        unsent.swap(line.waiting);
        line.waitingBytes = 0;
        line.sending = false;
        const Error notSent{ErrorCode::Unavailable,
                            QStringLiteral("Not sent: Redis did not answer the publishes before it (%1)").arg(failure->message),
                            Redis::NotSent};
        for (QueuedPublish &publish : unsent) // a publish these completions make starts a new call
            publish.done(notSent);
        return;
    }
    sendWaiting(name, line); // the line stays `sending`
}

qsizetype RedisOperations::messageBytes(const PreparedPublish &prepared)
{
    qsizetype bytes = 0;
    for (const QByteArray &arg : prepared.args)
        bytes += arg.size();
    return bytes;
}

} // namespace Broker
