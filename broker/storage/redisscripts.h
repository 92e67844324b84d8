// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/messageevent.h"
#include "core/queueinfo.h"
#include "core/result.h"
#include "redis/redisreply.h"
#include "redis/scriptcache.h"

#include <optional>

// The Redis store's Lua scripts (resources/redis) and how their replies read.
namespace Broker::RedisScripts {

// Every script, loaded from the resources with lib.lua in front of it.
struct Set
{
    Set();
    Redis::Script create, update, remove, publish, consume, settle, maintain, info, browse, purge, redrive, messageAction;
    Redis::Script withdraw; // the cluster registry's conditional removal (ClusterQueueRegistry)
    Redis::Script receive, giveback; // the cluster's transfers between slots (ClusterTransfers)
    Redis::Script streamConsume, streamSettle, streamMaintain, drain;
    Redis::Script await; // a long poll's wait, for other brokers' wake-ups (RedisWakeups)
    Redis::Script publishGroups; // publishes that waited for an earlier one, in one call (RedisOperations::publish)
};

// The one function library that holds every script of the Set (FUNCTION LOAD).
std::shared_ptr<const Redis::FunctionLibrary> library();

// A reply's integer, whether Redis sent it as an integer or as text.
qint64 integerOf(const Redis::RedisReply &reply);
// The kind named in a script's event list ("Acked", "DeadLettered", ...).
std::optional<MessageEventKind> eventKind(const QByteArray &name);
// One entry of a script's event list (lib.lua's event(): five strings per event).
struct ScriptEvent
{
    MessageEventKind kind = MessageEventKind::Published;
    QString queue;
    QString id;
    int deliveries = 0;
    QString detail;
};
// A script's event list (its reply's second element), in order; kinds this broker does not know
// are left out, and so is an incomplete entry at the end.
QList<ScriptEvent> events(const Redis::RedisReply &list);
// info.lua's reply as a QueueInfo (rates are the engine's business).
QueueInfo queueInfo(const QString &name, const Redis::RedisReply &reply);
// The detail of the QueueNotFound that drain.lua answers on a cluster for a queue it must
// create again before the registry knows it (NOT_ENROLLED).
inline const QString NotEnrolled = QStringLiteral("not enrolled");
// What a script's error reply ("QUEUE_FULL …") means for a client; ok when it is no error.
Result<void> replyError(const Redis::RedisReply &reply);

} // namespace Broker::RedisScripts
