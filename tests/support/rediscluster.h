// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A real Redis Cluster for tests: 3 primaries with a replica each (by default) on free loopback
// ports, made with `redis-cli --cluster create`, a node timeout of 1 s so that a failover takes
// about two. Every process is stopped by its PID when the fixture goes.

#include "redisserver.h"

#include <QThread>


namespace Broker::Testing {

class RedisCluster
{
public:
    RedisCluster() = default;
    RedisCluster(const RedisCluster &) = delete;
    RedisCluster &operator=(const RedisCluster &) = delete;

    // Starts primaries * (1 + replicas) nodes and creates the cluster; waits until every node
    // says cluster_state:ok.
    bool start(int primaries = 3, int replicas = 1)
    {
        if (RedisServer::executable().isEmpty() || QStandardPaths::findExecutable(QStringLiteral("redis-cli")).isEmpty()) {
            m_error = QStringLiteral("redis-server and redis-cli are needed (Debian packages redis-server, redis-tools)");
            return false;
        }
        const QStringList args{QStringLiteral("--cluster-enabled"), QStringLiteral("yes"),
                               QStringLiteral("--cluster-config-file"), QStringLiteral("nodes.conf"),
                               QStringLiteral("--cluster-node-timeout"), QString::number(NodeTimeoutMs),
                               QStringLiteral("--repl-diskless-sync-delay"), QStringLiteral("0"),
                               QStringLiteral("--appendonly"), QStringLiteral("no")};
        QStringList addresses;
        for (int i = 0; i < primaries * (1 + replicas); ++i) {
            auto &server = m_servers.emplace_back(std::make_unique<RedisServer>());
            server->useClusterBus();
            if (!server->start(args)) {
                m_error = server->errorString();
                return false;
            }
            addresses << QStringLiteral("127.0.0.1:%1").arg(server->port());
        }
        QProcess create;
        create.setProcessChannelMode(QProcess::MergedChannels);
        create.start(QStringLiteral("redis-cli"), QStringList{QStringLiteral("--cluster"), QStringLiteral("create")}
                                                       + addresses
                                                       + QStringList{QStringLiteral("--cluster-replicas"),
                                                                     QString::number(replicas),
                                                                     QStringLiteral("--cluster-yes")});
        if (!create.waitForFinished(30'000) || create.exitCode() != 0) {
            m_error = QStringLiteral("redis-cli --cluster create failed: ") + QString::fromLocal8Bit(create.readAll());
            return false;
        }
        return waitHealthy();
    }

    // Until every running node says cluster_state:ok, knows the same primaries and each of them
    // with slots, and every replica is in sync with its primary (so that it can take over).
    bool waitHealthy(int timeoutMs = 20'000)
    {
        QElapsedTimer timer;
        timer.start();
        while (timer.elapsed() < timeoutMs) {
            bool ok = true;
            for (const auto &server : m_servers) {
                if (!server->isRunning())
                    continue;
                if (!server->cli({QStringLiteral("CLUSTER"), QStringLiteral("INFO")}).contains("cluster_state:ok"))
                    ok = false;
                const QByteArray replication = server->cli({QStringLiteral("INFO"), QStringLiteral("replication")});
                if (replication.contains("role:slave") && !replication.contains("master_link_status:up"))
                    ok = false;
            }
            if (ok && agreeOnPrimaries())
                return true;
            QThread::msleep(50);
        }
        m_error = QStringLiteral("the cluster did not become healthy within %1 ms").arg(timeoutMs);
        return false;
    }

    int size() const { return int(m_servers.size()); }
    RedisServer &node(int index) { return *m_servers[std::size_t(index)]; }
    QList<quint16> ports() const
    {
        QList<quint16> out;
        for (const auto &server : m_servers)
            out << server->port();
        return out;
    }
    // Empties every primary (replicas follow), so that a test starts from nothing.
    void flushPrimaries()
    {
        for (int i = 0; i < size(); ++i)
            if (node(i).cli({QStringLiteral("ROLE")}).startsWith("master"))
                node(i).cli({QStringLiteral("FLUSHALL")});
    }
    // The index of the node serving `key` as primary, -1 when none is known.
    int primaryFor(const QByteArray &key)
    {
        for (int i = 0; i < size(); ++i) {
            if (!node(i).isRunning())
                continue;
            const QByteArray slot = node(i).cli({QStringLiteral("CLUSTER"), QStringLiteral("KEYSLOT"), QString::fromUtf8(key)});
            return primaryForSlot(slot.toInt());
        }
        return -1;
    }
    int primaryForSlot(int slot)
    {
        for (int i = 0; i < size(); ++i) {
            if (!node(i).isRunning())
                continue;
            // "<id> <ip:port@bus> <flags> <primary> <ping> <pong> <epoch> <link> <slot ranges...>"
            const QList<QByteArray> lines = node(i).cli({QStringLiteral("CLUSTER"), QStringLiteral("NODES")}).split('\n');
            for (const QByteArray &line : lines) {
                const QList<QByteArray> f = line.trimmed().split(' ');
                if (f.size() < 9 || !f[2].contains("master") || f[2].contains("fail"))
                    continue;
                for (qsizetype r = 8; r < f.size(); ++r) {
                    const QList<QByteArray> range = f[r].split('-');
                    if (range[0].startsWith('['))
                        continue; // a slot being migrated or imported
                    const int first = range[0].toInt();
                    const int last = range.size() > 1 ? range[1].toInt() : first;
                    if (slot >= first && slot <= last)
                        return indexOfPort(f[1].left(f[1].indexOf('@')).split(':').value(1).toInt());
                }
            }
            return -1;
        }
        return -1;
    }
    // The index of a running replica of primary `primary`, -1 when it has none.
    int replicaOf(int primary)
    {
        const QByteArray id = node(primary).cli({QStringLiteral("CLUSTER"), QStringLiteral("MYID")});
        for (const QByteArray &line : node(primary).cli({QStringLiteral("CLUSTER"), QStringLiteral("NODES")}).split('\n')) {
            const QList<QByteArray> f = line.trimmed().split(' ');
            if (f.size() >= 8 && f[2].contains("slave") && f[3] == id && !f[2].contains("fail"))
                return indexOfPort(f[1].left(f[1].indexOf('@')).split(':').value(1).toInt());
        }
        return -1;
    }
    QString errorString() const { return m_error; }

    static constexpr int NodeTimeoutMs = 1000;

private:
    int indexOfPort(int port) const
    {
        for (std::size_t i = 0; i < m_servers.size(); ++i)
            if (m_servers[i]->port() == port)
                return int(i);
        return -1;
    }
    bool agreeOnPrimaries()
    {
        QByteArray first;
        for (const auto &server : m_servers) {
            if (!server->isRunning())
                continue;
            QList<QByteArray> primaries;
            for (const QByteArray &line : server->cli({QStringLiteral("CLUSTER"), QStringLiteral("NODES")}).split('\n')) {
                const QList<QByteArray> f = line.trimmed().split(' ');
                if (f.size() < 8 || !f[2].contains("master") || f[2].contains("fail"))
                    continue;
                // A primary without slots is a replica this node has not yet heard of as one.
                if (f.size() == 8)
                    return false;
                primaries << f[1] + ' ' + f.mid(8).join(' ');
            }
            std::sort(primaries.begin(), primaries.end());
            const QByteArray view = primaries.join('\n');
            if (first.isEmpty())
                first = view;
            else if (view != first)
                return false;
        }
        return !first.isEmpty();
    }

    std::vector<std::unique_ptr<RedisServer>> m_servers;
    QString m_error;
};

} // namespace Broker::Testing
