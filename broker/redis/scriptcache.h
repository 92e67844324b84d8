// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "redisclient.h"

#include <QByteArray>
#include <QString>

#include <memory>

namespace Broker::Redis {

// A Lua script, identified to Redis by the SHA-1 of its source.
struct Script
{
    QString name;
    QByteArray source;
    QByteArray sha1; // lowercase hex

    // Reads `path` (usually ":/redis/<name>.lua" from the resources); an empty source if missing.
    static Script fromFile(const QString &path);
};

// Runs scripts with EVALSHA, so that only the 40-byte hash travels per call. When Redis does not
// know the script (a restart, SCRIPT FLUSH, a failover), the NOSCRIPT reply is answered by EVAL
// with the source, which loads it again; callers never see NOSCRIPT.
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

    qint64 reloads() const { return m_reloads; }             // NOSCRIPT replies answered by EVAL
    qint64 unreplicated() const { return m_unreplicated; }   // writes answered NOREPLICAS

private:
    struct Replicated;
    void sendWait(const std::shared_ptr<Replicated> &write, const QByteArray &key);
    void finish(Replicated &write, const CommandResult *waited);

    RedisClient &m_client;
    ReplicaWait m_wait;
    qint64 m_reloads = 0;
    qint64 m_unreplicated = 0;
};

} // namespace Broker::Redis
