// SPDX-License-Identifier: GPL-3.0-or-later
#include "redisscripts.h"

#include "storeerrors.h"

#include <QCryptographicHash>
#include <QHash>

namespace Broker::RedisScripts {

using Redis::RedisReply;
using Redis::FunctionLibrary;
using Redis::Script;

namespace {

constexpr const char *Names[] = {"create",   "update",  "delete",         "publish",        "consume",
                                 "settle",   "maintain", "info",          "browse",         "purge",
                                 "redrive",  "message_action", "withdraw", "receive",       "giveback",
                                 "stream_consume", "stream_settle", "stream_maintain", "drain", "await",
                                 "publish_groups"};

// A function's flags beyond allow-cross-slot-keys. Without flags Redis refuses a whole FCALL
// once used memory passes maxmemory (EVAL refused only the commands that grow memory there): the
// reads are marked no-writes and the scripts that free memory allow-oom, so that an admin can
// still see and empty a full Redis.
QByteArray flagsOf(const QByteArray &name)
{
    if (name == "info" || name == "browse")
        return ", 'no-writes'";
    if (name == "purge" || name == "delete")
        return ", 'allow-oom'";
    return {};
}

QByteArray text(const QString &path)
{
    return Script::fromFile(path).source;
}

QByteArray sha1Hex(const QByteArray &bytes)
{
    return QCryptographicHash::hash(bytes, QCryptographicHash::Sha1).toHex();
}

// Every script's texts, and the one library that holds them all as functions (lib.lua in front,
// made once per node). The library's name and its functions' names carry a hash of the whole, so
// that brokers of different versions on one Redis each call their own.
struct Sources
{
    QHash<QByteArray, Script> scripts;

    Sources()
    {
        const QByteArray lib = text(QStringLiteral(":/redis/lib.lua"));
        QHash<QByteArray, QByteArray> bodies;
        QByteArray all = lib;
        for (const char *name : Names) {
            bodies.insert(name, text(QStringLiteral(":/redis/%1.lua").arg(QLatin1StringView(name))));
            all += bodies.value(name) + flagsOf(name); // flags are part of the library too
        }
        const QByteArray version = sha1Hex(all).left(12);
        auto library = std::make_shared<FunctionLibrary>();
        library->name = "brokerdesk_" + version;
        library->source = "#!lua name=" + library->name + "\n" + lib;
        for (const char *name : Names) {
            const QByteArray &body = bodies.value(name);
            Script script;
            script.name = QString::fromLatin1(name);
            // EVAL: KEYS and ARGV are globals there, read before lib.lua's locals hide them.
            script.source = "local callKeys, callArgs = KEYS, ARGV\n" + lib + "\nbegin(callKeys, callArgs)\n" + body;
            script.sha1 = sha1Hex(script.source);
            script.function = "bd" + version + "_" + name;
            // A DLQ, redrive and the registry reach keys of other slots on one server, as EVAL
            // scripts may (on a cluster the broker keeps those steps apart).
            library->source += "\nredis.register_function{function_name='" + script.function
                               + "', flags={'allow-cross-slot-keys'" + flagsOf(name) + "}, callback=function(keys, args)\nbegin(keys, args)\n"
                               + body + "\nend}\n";
            scripts.insert(name, script);
        }
        for (Script &script : scripts)
            script.library = library;
    }
};

Script load(const char *name)
{
    static const Sources sources;
    return sources.scripts.value(name);
}

} // namespace

std::shared_ptr<const FunctionLibrary> library()
{
    return load("publish").library;
}

Set::Set()
    : create(load("create")),
      update(load("update")),
      remove(load("delete")),
      publish(load("publish")),
      consume(load("consume")),
      settle(load("settle")),
      maintain(load("maintain")),
      info(load("info")),
      browse(load("browse")),
      purge(load("purge")),
      redrive(load("redrive")),
      messageAction(load("message_action")),
      withdraw(load("withdraw")),
      receive(load("receive")),
      giveback(load("giveback")),
      streamConsume(load("stream_consume")),
      streamSettle(load("stream_settle")),
      streamMaintain(load("stream_maintain")),
      drain(load("drain")),
      await(load("await")),
      publishGroups(load("publish_groups"))
{
}

qint64 integerOf(const RedisReply &reply)
{
    if (reply.type == RedisReply::Type::Integer)
        return reply.integer;
    return reply.string.toLongLong();
}

std::optional<MessageEventKind> eventKind(const QByteArray &name)
{
    static const QHash<QByteArray, MessageEventKind> kinds{
        {"Acked", MessageEventKind::Acked},           {"Nacked", MessageEventKind::Nacked},
        {"LeaseExpired", MessageEventKind::LeaseExpired}, {"Expired", MessageEventKind::Expired},
        {"DeadLettered", MessageEventKind::DeadLettered}, {"Dropped", MessageEventKind::Dropped},
        {"Redriven", MessageEventKind::Redriven},     {"Delivered", MessageEventKind::Delivered},
        {"Deleted", MessageEventKind::Deleted},       {"Moved", MessageEventKind::Moved},
        {"Requeued", MessageEventKind::Requeued},
    };
    const auto it = kinds.constFind(name);
    return it == kinds.cend() ? std::nullopt : std::optional(it.value());
}

QList<ScriptEvent> events(const RedisReply &list)
{
    const QList<RedisReply> &e = list.elements;
    QList<ScriptEvent> out;
    out.reserve(e.size() / 5);
    for (qsizetype i = 0; i + 4 < e.size(); i += 5) {
        const std::optional<MessageEventKind> kind = eventKind(e[i].string);
        if (!kind)
            continue;
        out.append({*kind, QString::fromUtf8(e[i + 1].string), QString::fromUtf8(e[i + 2].string),
                    e[i + 3].string.toInt(), QString::fromUtf8(e[i + 4].string)});
    }
    return out;
}

QueueInfo queueInfo(const QString &name, const RedisReply &reply)
{
    QueueInfo info;
    info.name = name;
    QHash<QByteArray, QByteArray> meta;
    const QList<RedisReply> &pairs = reply.elements.value(0).elements;
    for (qsizetype i = 0; i + 1 < pairs.size(); i += 2)
        meta.insert(pairs[i].string, pairs[i + 1].string);
    QueueConfig &config = info.config;
    config.type = QString::fromUtf8(meta.value("type"));
    config.maxSize = meta.value("max_size").toLongLong();
    config.ttlSeconds = meta.value("ttl").toLongLong();
    config.visibilityTimeoutSeconds = meta.value("visibility_timeout").toLongLong();
    config.maxDeliveries = meta.value("max_deliveries").toInt();
    config.deadLetterQueue = QString::fromUtf8(meta.value("dead_letter_queue"));
    config.partitions = qMax(1, meta.value("partitions", "1").toInt());
    info.created = meta.value("created_ms").toDouble() / 1000.0;
    QueueCounters &c = info.counters;
    c.published = meta.value("published").toLongLong();
    c.delivered = meta.value("delivered").toLongLong();
    c.acked = meta.value("acked").toLongLong();
    c.nacked = meta.value("nacked").toLongLong();
    c.expired = meta.value("expired").toLongLong();
    c.deadLettered = meta.value("dead_lettered").toLongLong();
    c.dropped = meta.value("dropped").toLongLong();
    c.redriven = meta.value("redriven").toLongLong();
    info.depth = integerOf(reply.elements.value(1));
    info.delayed = integerOf(reply.elements.value(2));
    info.inFlight = integerOf(reply.elements.value(3));
    for (const RedisReply &group : reply.elements.value(4).elements) {
        ConsumerGroupInfo g;
        g.name = QString::fromUtf8(group.elements.value(0).string);
        g.pending = integerOf(group.elements.value(1));
        g.lag = integerOf(group.elements.value(2));
        for (const RedisReply &consumer : group.elements.value(3).elements)
            g.consumers.append(QString::fromUtf8(consumer.string));
        info.groups.append(g);
    }
    return info;
}

Result<void> replyError(const RedisReply &reply)
{
    if (!reply.isError())
        return {};
    const QByteArray code = reply.errorCode();
    if (code == "QUEUE_NOT_FOUND")
        return StoreErrors::queueNotFound();
    if (code == "NOREPLICAS") // storage.redis.wait_replicas not reached (Redis::ScriptRunner)
        return Error{ErrorCode::Unavailable,
                     QStringLiteral("Not stored durably: %1").arg(QString::fromUtf8(reply.string.mid(code.size() + 1)))};
    if (code == "NOT_ENROLLED")
        return Error{ErrorCode::QueueNotFound, QStringLiteral("Queue not found"), NotEnrolled};
    if (code == "QUEUE_EXISTS")
        return StoreErrors::queueExists();
    if (code == "QUEUE_FULL")
        return StoreErrors::queueFull();
    if (code == "MESSAGE_NOT_FOUND")
        return StoreErrors::messageNotFound();
    if (code == "STALE_RECEIPT")
        return StoreErrors::staleReceipt();
    if (code == "AMBIGUOUS")
        return StoreErrors::pendingInSeveralGroups();
    if (code == "TARGET_NOT_FOUND")
        return StoreErrors::targetNotFound();
    if (code == "NO_DLQ")
        return StoreErrors::noDeadLetterQueue();
    if (code == "WRONG_KIND")
        return Error{ErrorCode::Conflict, QStringLiteral("The queue was replaced by another broker; try again")};
    return Error{ErrorCode::Internal, QStringLiteral("Redis error: %1").arg(QString::fromUtf8(reply.string))};
}

} // namespace Broker::RedisScripts
