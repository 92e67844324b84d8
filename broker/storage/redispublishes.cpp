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
    PublishLine &line = m_publishLines[name];
    line.waiting.push_back(QueuedPublish{std::move(prepared), publisher, std::move(done)});
    if (!line.sending)
        sendPublishes(name);
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

void RedisOperations::sendPublishes(const QString &name)
{
    PublishLine &line = m_publishLines[name];
    // The first publish that waits, and those behind it while the call stays within MaxGroupedMessages.
    std::vector<QueuedPublish> call;
    qsizetype messages = 0;
    while (!line.waiting.empty()) {
        const qsizetype size = line.waiting.front().prepared.args.size() / 2;
        if (!call.empty() && messages + size > MaxGroupedMessages)
            break;
        messages += size;
        call.push_back(std::move(line.waiting.front()));
        line.waiting.pop_front();
    }
    if (call.empty())
        return;
    line.sending = true; // `line` is not touched past here: the call may be answered before run() returns
    if (call.size() == 1) { // publish.lua: a publish alone, or a batch, as sent
        QueuedPublish publish = std::move(call.front());
        const QByteArrayList args = publish.prepared.args;
        run(m_script.publish, name, args, Retry::Never,
            [this, name, publish = std::move(publish)](Result<RedisReply> reply) mutable {
                if (!reply)
                    publish.done(reply.error());
                else
                    published(name, publish, integerOf(*reply));
                publishesAnswered(name);
            });
        return;
    }
    QByteArrayList args;
    args.reserve(qsizetype(call.size()) + 2 * messages);
    for (const QueuedPublish &publish : call)
        args << Redis::decimal(publish.prepared.args.size() / 2) << publish.prepared.args;
    run(m_script.publishGroups, name, std::move(args), Retry::Never,
        [this, name, call = std::move(call)](Result<RedisReply> reply) mutable {
            // The call's failure is each publish's; else one answer per publish, in order.
            for (std::size_t i = 0; i < call.size(); ++i) {
                QueuedPublish &publish = call[i];
                const qint64 after = reply ? integerOf(reply->elements.value(qsizetype(i))) : 0;
                if (!reply)
                    publish.done(reply.error());
                else if (after < 0)
                    publish.done(StoreErrors::queueFull());
                else
                    published(name, publish, after);
            }
            publishesAnswered(name);
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

void RedisOperations::publishesAnswered(const QString &name)
{
    // After the answered publishes' completions: a publish one of them made waits behind those
    // that came before it, and a publish the spool takes after a failed call is spooled before the
    // publishes that waited behind it can fail the same way.
    const auto line = m_publishLines.find(name);
    if (line == m_publishLines.end())
        return;
    line->sending = false;
    if (line->waiting.empty())
        m_publishLines.erase(line);
    else
        sendPublishes(name);
}

} // namespace Broker
