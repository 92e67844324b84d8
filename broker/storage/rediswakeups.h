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
// A broker whose consumer waits on queue Q sets the marker P{Q}:waiting (a TTL covering the
// wait). The scripts that make messages ready (resources/redis/lib.lua, wake) publish Q's name
// on the channel P + "wake" when the marker exists, once per script run and opening of Q — so a
// queue nobody waits on costs one EXISTS per change and no message. Every broker subscribes to that
// channel (Redis::Subscriber; a cluster's bus carries the message to every node) and reports
// each name to the listener as messagesAvailable.
//
// No wake-up is lost to a race: a publish that came before the marker was set is found by the
// consume that follows the marker's reply (available() once it is set); messages published
// while the subscription was down are made up for by available() for every queue waited on
// when it is back. Anything else is left to the reaper. Single-threaded: the store's thread.
class RedisWakeups
{
public:
    RedisWakeups(Redis::RedisClient &client, const Redis::ConnectionOptions &connection,
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
    // SET P{queue}:waiting for `lifeMs` (plus a margin); once answered, the queue is looked at.
    void setMarker(const QString &queue, qint64 lifeMs);
    void forgetExpired(qint64 now);

    Redis::RedisClient &m_client;
    const QString m_prefix;
    const Clock &m_clock;
    RedisEventRelay &m_events;
    std::unique_ptr<Redis::Subscriber> m_subscriber;
    QHash<QString, qint64> m_coveredUntil; // queue -> the marker surely lives until then (store clock)
    qsizetype m_sweepAt = 256;              // forgetExpired() when m_coveredUntil grows to this
    qint64 m_received = 0;
};

} // namespace Broker
