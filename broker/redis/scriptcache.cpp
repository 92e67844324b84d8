// SPDX-License-Identifier: GPL-3.0-or-later
#include "scriptcache.h"

#include <QCryptographicHash>
#include <QFile>

#include <optional>

namespace Broker::Redis {

Script Script::fromFile(const QString &path)
{
    Script script;
    script.name = path.section(QLatin1Char('/'), -1).section(QLatin1Char('.'), 0, 0);
    QFile file(path);
    if (file.open(QIODevice::ReadOnly))
        script.source = file.readAll();
    script.sha1 = QCryptographicHash::hash(script.source, QCryptographicHash::Sha1).toHex();
    return script;
}

struct ScriptRunner::Replicated
{
    std::optional<CommandResult> reply; // the write's, once it came
    bool waitCameFirst = false;         // a WAIT answered before the write: it did not cover it
    bool finished = false;
    CommandCallback done;
};

void ScriptRunner::run(const Script &script, const QByteArrayList &keys, const QByteArrayList &args,
                       CommandCallback done, bool write)
{
    const QByteArray key = keys.value(0);
    QByteArrayList tail;
    tail.reserve(1 + keys.size() + args.size());
    tail << QByteArray::number(keys.size()) << keys << args;
    const QByteArrayList evalsha = QByteArrayList{QByteArrayLiteral("EVALSHA"), script.sha1} + tail;
    // The source is captured by value so that a reload works however long the reply takes.
    command(
        evalsha,
        [this, source = script.source, tail = std::move(tail), done = std::move(done), key, write](
            CommandResult result) mutable {
            if (!result || result->errorCode() != "NOSCRIPT") {
                done(std::move(result));
                return;
            }
            ++m_reloads;
            command(QByteArrayList{QByteArrayLiteral("EVAL"), source} + tail, std::move(done), key, write);
        },
        key, write);
}

void ScriptRunner::command(const QByteArrayList &args, CommandCallback done, const QByteArray &key, bool write)
{
    if (!write || m_wait.replicas <= 0)
        return m_client.command(args, std::move(done), key);
    auto replicated = std::make_shared<Replicated>();
    replicated->done = std::move(done);
    m_client.command(
        args,
        [this, replicated, key](CommandResult reply) {
            // Nothing was written when it failed or was refused (NOSCRIPT included): no wait.
            const bool wrote = reply && !reply->isError();
            replicated->reply = std::move(reply);
            if (!wrote)
                return finish(*replicated, nullptr);
            if (replicated->waitCameFirst)
                sendWait(replicated, key);
        },
        key);
    sendWait(replicated, key); // pipelined behind the write, on its connection
}

void ScriptRunner::sendWait(const std::shared_ptr<Replicated> &replicated, const QByteArray &key)
{
    replicated->waitCameFirst = false;
    m_client.command(
        {QByteArrayLiteral("WAIT"), QByteArray::number(m_wait.replicas), QByteArray::number(m_wait.timeoutMs)},
        [this, replicated](CommandResult waited) {
            if (replicated->finished)
                return;
            if (!replicated->reply) {
                replicated->waitCameFirst = true;
                return;
            }
            finish(*replicated, &waited);
        },
        key, m_wait.timeoutMs + m_client.commandTimeoutMs());
}

void ScriptRunner::finish(Replicated &replicated, const CommandResult *waited)
{
    replicated.finished = true;
    if (!waited)
        return replicated.done(std::move(*replicated.reply));
    if (!*waited) // the write was made; whether a replica has it is not known
        return replicated.done(waited->error());
    const qint64 acknowledged = (*waited)->type == RedisReply::Type::Integer ? (*waited)->integer : 0;
    if (acknowledged >= m_wait.replicas)
        return replicated.done(std::move(*replicated.reply));
    ++m_unreplicated;
    RedisReply refused;
    refused.type = RedisReply::Type::Error;
    refused.string = QStringLiteral("NOREPLICAS written to the primary, but %1 of %2 replicas had it after %3 ms")
                         .arg(acknowledged)
                         .arg(m_wait.replicas)
                         .arg(m_wait.timeoutMs)
                         .toUtf8();
    replicated.done(std::move(refused));
}

} // namespace Broker::Redis
