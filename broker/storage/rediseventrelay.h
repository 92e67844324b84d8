// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/queuestore.h"

#include "core/clock.h"
#include "redis/redisreply.h"

namespace Broker {

class KnownQueues;

// The one way the Redis store's parts talk to its StoreListener: message events (those a
// script reports in its reply and those the store knows of itself), messages that became
// deliverable, and incidents for the operator. The listener is not owned and may be null (then
// events go nowhere and incidents to the log). Event times come from the injected clock, which
// must outlive the relay. Single-threaded: the store's thread.
class RedisEventRelay
{
public:
    explicit RedisEventRelay(const Clock &clock) : m_clock(clock) {}

    void setListener(StoreListener *listener) { m_listener = listener; }

    // `sequence`: the message id's number (MessageId), 0 for events of no one message.
    void emitEvent(MessageEventKind kind, const QString &queue, quint64 sequence, int deliveries, const QString &user,
                   const QString &detail = {});
    // A script's event list (its reply's second element). `user` is who called: it is recorded
    // for the steps a user takes (ack, nack, redrive), not for those the broker takes itself
    // (expiry, dead-lettering). Redriven messages and dead-lettered ones (by `known`'s
    // configuration of their queue) are announced as deliverable where they went.
    void relay(const Redis::RedisReply &events, const QString &user, const KnownQueues &known);
    void available(const QString &queue);
    void report(StoreIncident::Level level, const QString &code, const QString &message);

private:
    const Clock &m_clock;
    StoreListener *m_listener = nullptr;
};

} // namespace Broker
