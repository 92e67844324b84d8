// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "rediseventrelay.h"

#include "core/clock.h"
#include "redis/redisclient.h"
#include "redis/subscriber.h"

#include <QHash>

#include <memory>

namespace Broker {

// Wakes this broker's long polls when another broker sharing the Redis server (or cluster)
// makes messages deliverable, within a round trip instead of at the next reaper run.
//
// A broker whose consumer waits on queue Q moves the field `waiting` of Q's meta hash to the end
// of the wait (plus a margin for the time the call takes; await.lua, by Redis's clock, so that
// brokers' clocks need not agree; it never moves the field back: a shorter wait does not end a
// longer one's wake-ups; a wait outlives its queue's delete for the queue made again). The scripts that make messages ready
// (resources/redis/lib.lua, wake) read it with the queue's options and publish Q's name on the
// channel P + "wake" while it lies ahead, once per script run and opening of Q — so a queue nobody
// waits on costs one more field read per change and no message. Every broker subscribes to that
// channel (Redis::Subscriber; a cluster's bus carries the message to every node) and reports
// each name to the listener as messagesAvailable.
//
// No wake-up is lost to a race: a publish that came before the wait was set is found by the
// consume that follows the wait's reply (available() once it is set); messages published
// while the subscription was down are made up for by available() for every queue waited on
// when it is back. Anything else is left to the reaper. Single-threaded: the store's thread.
class RedisWakeups
{
public:
    // Sets a wait of `forMs` from now in Redis (await.lua, run by the store's scripts): `done(true)`
    // once it is set.
    using Arm = std::function<void(const QString &queue, qint64 forMs, std::function<void(bool set)> done)>;

    RedisWakeups(Arm arm, const Redis::ConnectionOptions &connection,
                 Redis::Subscriber::Candidates candidates, const QString &keyPrefix, const Clock &clock,
                 RedisEventRelay &events);
    ~RedisWakeups();

    void start();
    void stop();
    void awaitMessages(const QString &queue, qint64 untilMs);

    const Redis::Subscriber &subscriber() const { return *m_subscriber; }
    qint64 wakeupsReceived() const { return m_received; }

private:
    void resubscribed();
    // Arms the wait on `queue` for `lifeMs` (plus a margin); once answered, the queue is looked at.
    void setWait(const QString &queue, qint64 lifeMs);
    void forgetExpired(qint64 now);

    const Arm m_arm;
    const Clock &m_clock;
    RedisEventRelay &m_events;
    std::unique_ptr<Redis::Subscriber> m_subscriber;
    QHash<QString, qint64> m_coveredUntil; // queue -> the wait set in Redis lasts until then (store clock)
    qsizetype m_sweepAt = 256;              // forgetExpired() when m_coveredUntil grows to this
    qint64 m_received = 0;
};

} // namespace Broker
