// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The Redis a store test runs on, started by the test: one redis-server, or a cluster when
// BROKER_TEST_STORE=redis-cluster; store options for it, and direct reads of what it holds.

#include "storage/redisstore.h"

#include "brokeronredis.h"
#include "rediscluster.h"
#include "redisserver.h"
#include "teststore.h"

#include <memory>

namespace Broker::Testing {

class RedisBackend
{
public:
    bool start()
    {
        if (testingRedisCluster()) {
            m_cluster = std::make_unique<RedisCluster>();
            return m_cluster->start();
        }
        m_server = std::make_unique<RedisServer>();
        return m_server->start();
    }
    QString errorString() const { return m_cluster ? m_cluster->errorString() : m_server->errorString(); }
    RedisStoreOptions options(int poolSize = 2) const
    {
        if (m_cluster)
            return clusterStoreOptions(*m_cluster, poolSize);
        RedisStoreOptions options;
        options.pool.size = poolSize;
        options.connection.port = m_server->port();
        return options;
    }
    // redis-cli ARGS[0] KEY ARGS[1..] on the server, or on the primary that holds KEY.
    QByteArray cli(const QByteArray &key, QStringList args)
    {
        args.insert(1, QString::fromUtf8(key));
        if (!m_cluster)
            return m_server->cli(args);
        return m_cluster->node(m_cluster->primaryFor(key)).cli(args);
    }
    void flush()
    {
        if (m_cluster)
            return m_cluster->flushPrimaries();
        m_server->cli({QStringLiteral("FLUSHALL")});
    }
    // How often `command` ("fcall") ran since the server started, over every primary.
    qint64 commandCalls(const QByteArray &command)
    {
        qint64 calls = 0;
        const QByteArray field = "cmdstat_" + command + ":calls=";
        for (RedisServer *server : primaries()) {
            const QByteArray stats = server->cli({QStringLiteral("INFO"), QStringLiteral("commandstats")});
            const qsizetype at = stats.indexOf(field);
            if (at >= 0)
                calls += stats.mid(at + field.size()).split(',').value(0).toLongLong();
        }
        return calls;
    }
    // Stops (SIGSTOP) or resumes every server the store talks to.
    void pause()
    {
        for (RedisServer *server : all())
            server->pause();
    }
    void resume()
    {
        for (RedisServer *server : all())
            server->resume();
    }

private:
    QList<RedisServer *> all()
    {
        if (!m_cluster)
            return {m_server.get()};
        QList<RedisServer *> out;
        for (int i = 0; i < m_cluster->size(); ++i)
            out << &m_cluster->node(i);
        return out;
    }
    QList<RedisServer *> primaries()
    {
        QList<RedisServer *> out;
        for (RedisServer *server : all())
            if (!m_cluster || server->cli({QStringLiteral("ROLE")}).startsWith("master"))
                out << server;
        return out;
    }

    std::unique_ptr<RedisServer> m_server;
    std::unique_ptr<RedisCluster> m_cluster;
};

} // namespace Broker::Testing
