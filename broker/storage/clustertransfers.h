// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "clusterqueueregistry.h"
#include "redisscripts.h"

#include <QHash>
#include <QString>

#include <functional>

namespace Broker {

class RedisEventRelay;

// Hands over the transfers waiting in queues' outboxes on a Redis Cluster: messages a queue's
// script dead-lettered, moved or redrove into a queue of another slot (resources/redis/lib.lua,
// "Transfers between slots"). One outbox is worked front to back, one transfer at a time, so
// messages reach their target in the order they left:
//   1. receive.lua on the target takes the message (once per transfer name: repeated after a
//      crash or a failover, it is answered "taken before"); a dead-letter queue still to be made
//      is enrolled in the registry first;
//   2. the entry leaves the outbox (LREM): until then a crash only means step 1 again.
// A move or redrive target that is gone gives the message back to where it came from (giveback.lua).
// A round hands over at most one batch (100 entries); a fuller outbox takes more rounds. A
// failure to reach Redis ends the round; the reaper finds the outbox still waiting (maintain.lua
// answers its length, and a deleted queue's registry entry stays until its outbox is empty) and
// a later round goes on from there. Nothing is lost, nothing taken twice.
class ClusterTransfers
{
public:
    using ScriptDone = std::function<void(Result<Redis::RedisReply>)>;
    // Runs a script for a queue the way RedisOperations does (prefix, queue and time first, the
    // events to the listener, the payload to `done`).
    using RunScript = std::function<void(const Redis::Script &, const QString &queue, QByteArrayList args, ScriptDone)>;

    // Nothing is owned; everything must outlive the transfers.
    ClusterTransfers(ResilientScriptRunner &runner, const RedisScripts::Set &scripts, ClusterQueueRegistry &registry,
                     RedisEventRelay &events, QByteArray keyPrefix, RunScript runScript);

    // Called when a round ends: `emptied` when the outbox was found empty at its end.
    using RoundDone = std::function<void(bool emptied)>;
    // Hands over what waits in `queue`'s outbox, then calls `then` when the first round that
    // starts after this call ends (also when it ended early for want of Redis: what is left
    // waits for a later round). A call while a round runs makes another one follow it.
    void deliver(const QString &queue, RoundDone then = {});
    int roundsRunning() const { return int(m_running.size()); }
    qint64 handedOver() const { return m_handedOver; } // transfers taken by their target
    qint64 givenBack() const { return m_givenBack; }

private:
    struct Entry
    {
        QByteArray raw, kind, target, transfer, message;
    };
    void fetch(const QString &queue);
    void handOver(const QString &queue, QList<Entry> entries, qsizetype next);
    void receive(const QString &queue, QList<Entry> entries, qsizetype next, const QByteArray &generation);
    void remove(const QString &queue, QList<Entry> entries, qsizetype next);
    void giveBack(const QString &queue, QList<Entry> entries, qsizetype next);
    void start(const QString &queue);
    void finish(const QString &queue, bool emptied, const QString &failure = {});
    QByteArray outbox(const QString &queue) const { return m_prefix + '{' + queue.toUtf8() + "}:outbox"; }

    ResilientScriptRunner &m_runner;
    const RedisScripts::Set &m_scripts;
    ClusterQueueRegistry &m_registry;
    RedisEventRelay &m_events;
    const QByteArray m_prefix;
    const RunScript m_run;
    QHash<QString, QList<RoundDone>> m_running; // queues in a round, with the callers it answers
    QHash<QString, QList<RoundDone>> m_next;    // queues asked for again meanwhile, with their callers
    qint64 m_handedOver = 0;
    qint64 m_givenBack = 0;
};

} // namespace Broker
