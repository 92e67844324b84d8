// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "redisclient.h"

#include <QByteArray>
#include <QString>

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
class ScriptRunner
{
public:
    explicit ScriptRunner(RedisClient &client) : m_client(client) {}

    // All keys of one call must share a hash tag (Redis Cluster runs a script in one slot); the
    // first one routes the call. The reload goes where the call went, so on a cluster each node
    // loads the scripts it is asked to run.
    void run(const Script &script, const QByteArrayList &keys, const QByteArrayList &args, CommandCallback done);

    qint64 reloads() const { return m_reloads; } // NOSCRIPT replies answered by EVAL

private:
    RedisClient &m_client;
    qint64 m_reloads = 0;
};

} // namespace Broker::Redis
