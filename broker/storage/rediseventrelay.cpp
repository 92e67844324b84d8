// SPDX-License-Identifier: GPL-3.0-or-later
#include "rediseventrelay.h"

#include "knownqueues.h"
#include "redisscripts.h"

#include "core/messageid.h"
#include "errors/logging.h"

namespace Broker {

void RedisEventRelay::emitEvent(MessageEventKind kind, const QString &queue, quint64 sequence, int deliveries,
                                const QString &user, const QString &detail)
{
    if (!m_listener)
        return;
    MessageEvent event;
    event.timeMs = m_clock.nowMs();
    event.kind = kind;
    event.deliveryCount = deliveries;
    event.sequence = sequence;
    event.queue = queue;
    event.user = user;
    event.detail = detail;
    m_listener->messageEvent(event);
}

void RedisEventRelay::relay(const Redis::RedisReply &events, const QString &user, const KnownQueues &known)
{
    for (const RedisScripts::ScriptEvent &e : RedisScripts::events(events)) {
        const bool byUser =
            e.kind == MessageEventKind::Acked || e.kind == MessageEventKind::Nacked || e.kind == MessageEventKind::Redriven;
        emitEvent(e.kind, e.queue, MessageId::parse(e.id).value_or(0), e.deliveries, byUser ? user : QString(), e.detail);
        if (e.kind == MessageEventKind::Redriven)
            available(e.queue);
        if (e.kind == MessageEventKind::DeadLettered && m_listener) {
            const QueueConfig *config = known.config(e.queue);
            if (config && !config->deadLetterQueue.isEmpty())
                available(config->deadLetterQueue);
        }
    }
}

void RedisEventRelay::available(const QString &queue)
{
    if (m_listener)
        m_listener->messagesAvailable(queue);
}

void RedisEventRelay::report(StoreIncident::Level level, const QString &code, const QString &message)
{
    if (m_listener)
        m_listener->storeIncident({level, code, message});
    else
        qCWarning(lcStorage).noquote() << message;
}

} // namespace Broker
