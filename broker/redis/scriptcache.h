// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "redisclient.h"

#include <QByteArray>
#include <QString>

#include <memory>

namespace Broker::Redis {

// A Redis function library (Redis 7+, Valkey): Lua source that begins "#!lua name=<name>" and
// registers functions; FUNCTION LOAD makes them once per node, and a primary's replicas get it.
struct FunctionLibrary
{
    QByteArray name;
    QByteArray source;
};

// A Lua script, identified to Redis by the SHA-1 of its source; on servers with functions also
// a function of a library, called by name.
struct Script
{
    QString name;
    QByteArray source;
    QByteArray sha1; // lowercase hex
    std::shared_ptr<const FunctionLibrary> library; // none: EVALSHA only
    QByteArray function;                            // its name in `library`

    // Reads `path` (usually ":/redis/<name>.lua" from the resources); an empty source if missing.
    static Script fromFile(const QString &path);
};

// Runs scripts as functions where they have a library and the server has FUNCTION (FCALL), else
// with EVALSHA, so that only a name or the 40-byte hash travels per call. (The store's connections
// also load the library when they connect: ConnectionOptions::firstCommand.) When the server does
// not know the function (never loaded there, a restart, FUNCTION FLUSH), the library is loaded with
// FUNCTION LOAD where the call went and the call made again; "already exists" means another broker
// loaded it first; a call that still finds no function (on a cluster, ASK sent it to a node the
// load did not reach) and a load refused for another reason (OOM, BUSY) go by EVALSHA, that call
// alone. When the server has no FUNCTION (before Redis 7, the command renamed or not permitted to
// run), this runner uses EVALSHA from then on. When Redis does not know a script (a restart, SCRIPT
// FLUSH, a failover), the NOSCRIPT reply is answered by EVAL with the source, which loads it again.
// Callers never see either.
//
// Writes (`write`) with a replica wait set are followed by WAIT on the same connection (the same
// key), and their reply is held until WAIT answers: when fewer replicas than asked had the write
// within the timeout, the caller gets the error reply "NOREPLICAS …" instead. The write was made
// on the primary then, but may not survive its failover. A WAIT that answers before its write
// (the write was redirected to another node) is asked again after it.
class ScriptRunner
{
public:
    explicit ScriptRunner(RedisClient &client) : m_client(client) {}

    void setReplicaWait(ReplicaWait wait) { m_wait = wait; }
    const ReplicaWait &replicaWait() const { return m_wait; }

    // All keys of one call must share a hash tag (Redis Cluster runs a script in one slot); the
    // first one routes the call. The reload goes where the call went, so on a cluster each node
    // loads the scripts it is asked to run.
    void run(const Script &script, const QByteArrayList &keys, const QByteArrayList &args, CommandCallback done,
             bool write = false);
    // One command routed by `key`, waited for like a script when `write`.
    void command(const QByteArrayList &args, CommandCallback done, const QByteArray &key, bool write);

    enum class Functions { Untried, InUse, Unavailable };
    Functions functions() const { return m_functions; }
    qint64 reloads() const { return m_reloads; }             // libraries loaded, NOSCRIPT replies answered by EVAL
    qint64 unreplicated() const { return m_unreplicated; }   // writes answered NOREPLICAS

private:
    struct Replicated;
    // `call` is the whole command (FCALL name numkeys keys… args…).
    void callFunction(const Script &script, QByteArrayList call, const QByteArray &key, bool write, bool loaded,
                      CommandCallback done);
    // The same call, its first two elements made EVALSHA and the script's hash.
    void evalSha(const Script &script, QByteArrayList call, const QByteArray &key, bool write, CommandCallback done);
    void sendWait(const std::shared_ptr<Replicated> &write, const QByteArray &key);
    void finish(Replicated &write, const CommandResult *waited);

    RedisClient &m_client;
    ReplicaWait m_wait;
    Functions m_functions = Functions::Untried;
    qint64 m_reloads = 0;
    qint64 m_unreplicated = 0;
};

} // namespace Broker::Redis
