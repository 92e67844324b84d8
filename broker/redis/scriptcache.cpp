// SPDX-License-Identifier: GPL-3.0-or-later
#include "scriptcache.h"

#include "respcodec.h"

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

namespace {

bool functionMissing(const RedisReply &reply)
{
    return reply.isError() && reply.string.contains("Function not found");
}

// The server cannot run functions for this runner: no FCALL or FUNCTION (before Redis 7, a
// command renamed away), or the user may not run those commands. A NOPERM for the call's keys
// ("… to access one of the keys …") is not that: EVALSHA would be refused the same.
bool functionsRefused(const RedisReply &reply)
{
    if (!reply.isError())
        return false;
    if (reply.errorCode() == "NOPERM")
        return reply.string.contains("to run the");
    return reply.string.startsWith("ERR unknown command");
}

} // namespace

void ScriptRunner::run(const Script &script, const QByteArrayList &keys, const QByteArrayList &args,
                       CommandCallback done, bool write)
{
    // FCALL name numkeys keys… args… has the shape of EVALSHA sha1 … and EVAL source …: the one
    // list is made once, and a fallback changes its first two elements.
    const bool function = script.library && m_functions != Functions::Unavailable;
    QByteArrayList call;
    call.reserve(3 + keys.size() + args.size());
    call << (function ? QByteArrayLiteral("FCALL") : QByteArrayLiteral("EVALSHA"))
         << (function ? script.function : script.sha1) << decimal(keys.size());
    call += keys;
    call += args;
    if (function)
        return callFunction(script, std::move(call), keys.value(0), write, false, std::move(done));
    evalSha(script, std::move(call), keys.value(0), write, std::move(done));
}

void ScriptRunner::callFunction(const Script &script, QByteArrayList call, const QByteArray &key, bool write,
                                bool loaded, CommandCallback done)
{
    // The script is captured by value (its texts are shared, not copied) so that a load or the
    // fallback works however long the reply takes.
    command(
        call,
        [this, script, call, key, write, loaded, done = std::move(done)](CommandResult result) mutable {
            if (!result || !(functionMissing(*result) || functionsRefused(*result))) {
                if (result && !result->isError())
                    m_functions = Functions::InUse;
                return done(std::move(result));
            }
            if (functionsRefused(*result)) {
                m_functions = Functions::Unavailable;
                return evalSha(script, std::move(call), key, write, std::move(done));
            }
            // Still missing after a load: the call went elsewhere than the load (a slot being
            // migrated answers ASK, and FUNCTION LOAD, which names no key, reached the slot's
            // owner). EVALSHA/EVAL carries the script to wherever the call lands; this call only.
            if (loaded)
                return evalSha(script, std::move(call), key, write, std::move(done));
            ++m_reloads;
            m_client.command(
                {QByteArrayLiteral("FUNCTION"), QByteArrayLiteral("LOAD"), script.library->source},
                [this, script, call = std::move(call), key, write, done = std::move(done)](CommandResult load) mutable {
                    if (!load)
                        return done(std::move(load));
                    if (load->isError() && !load->string.contains("already exists")) {
                        // FUNCTION not there or not permitted: EVALSHA from now on. Any other
                        // refusal (OOM, a replica just promoted, BUSY) is this call's alone.
                        if (functionsRefused(*load))
                            m_functions = Functions::Unavailable;
                        return evalSha(script, std::move(call), key, write, std::move(done));
                    }
                    callFunction(script, std::move(call), key, write, true, std::move(done));
                },
                key);
        },
        key, write);
}

void ScriptRunner::evalSha(const Script &script, QByteArrayList call, const QByteArray &key, bool write,
                           CommandCallback done)
{
    call[0] = QByteArrayLiteral("EVALSHA");
    call[1] = script.sha1;
    // The source is captured by value so that a reload works however long the reply takes.
    command(
        call,
        [this, source = script.source, call, done = std::move(done), key, write](CommandResult result) mutable {
            if (!result || result->errorCode() != "NOSCRIPT") {
                done(std::move(result));
                return;
            }
            ++m_reloads;
            call[0] = QByteArrayLiteral("EVAL");
            call[1] = source;
            command(call, std::move(done), key, write);
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
