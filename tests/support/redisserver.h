// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Test servers for the Redis layer: a real redis-server on a free loopback port in a temporary
// directory (in clear text, or TLS only), and a "black hole" that accepts connections and never
// answers.

#include "tlscertificates.h"

#include <QDir>
#include <QElapsedTimer>
#include <QProcess>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>

#include <memory>
#include <vector>

#include <csignal>
#include <sys/prctl.h>
#include <sys/types.h>

namespace Broker::Testing {

inline quint16 freeLoopbackPort()
{
    QTcpServer probe;
    probe.listen(QHostAddress::LocalHost, 0);
    return probe.serverPort();
}

class RedisServer
{
public:
    // redis-server, or the server BROKER_TEST_REDIS_SERVER names (valkey-server: the same suites on
    // Valkey). Empty when it is not installed.
    static QString program() { return qEnvironmentVariable("BROKER_TEST_REDIS_SERVER", QStringLiteral("redis-server")); }
    static QString executable() { return QStandardPaths::findExecutable(program()); }

    RedisServer() = default;
    ~RedisServer() { stop(); }
    RedisServer(const RedisServer &) = delete;
    RedisServer &operator=(const RedisServer &) = delete;

    // Before start(): serve TLS only (--port 0, --tls-port on the free port) with the fixture's
    // server certificate; `requireClientCertificates` is --tls-auth-clients. cli() and the
    // readiness check then speak TLS with the fixture's CA and client certificate.
    void useTls(const TlsCertificates &certificates, bool requireClientCertificates)
    {
        m_tlsArgs = QStringList{QStringLiteral("--port"), QStringLiteral("0"),
                                QStringLiteral("--tls-cert-file"), certificates.serverCertFile(),
                                QStringLiteral("--tls-key-file"), certificates.serverKeyFile(),
                                QStringLiteral("--tls-ca-cert-file"), certificates.caFile(),
                                QStringLiteral("--tls-auth-clients"),
                                requireClientCertificates ? QStringLiteral("yes") : QStringLiteral("no")};
        m_cliTlsArgs = QStringList{QStringLiteral("--tls"), QStringLiteral("--cacert"), certificates.caFile(),
                                   QStringLiteral("--cert"), certificates.clientCertFile(),
                                   QStringLiteral("--key"), certificates.clientKeyFile()};
    }
    bool tls() const { return !m_tlsArgs.isEmpty(); }

    // Before start(): a cluster node, its bus on a free port of its own (--cluster-port) rather
    // than port + 10000, which is above 65535 for a fifth of the free ports and may be taken.
    void useClusterBus() { m_clusterBus = true; }

    // Starts redis-server (no RDB snapshots; `extraArgs` e.g. {"--appendonly", "yes"}) and waits
    // until it answers PING. Starting again after stop() or kill() reuses the ports and directory.
    // A first start that fails (a free port taken by another process meanwhile) is tried again on
    // other ports.
    bool start(const QStringList &extraArgs = {})
    {
        if (executable().isEmpty()) {
            m_error = QStringLiteral("%1 is not installed (Debian package %1)").arg(program());
            return false;
        }
        m_extraArgs = extraArgs;
        const bool firstStart = m_port == 0;
        for (int attempt = 0; attempt < (firstStart ? 3 : 1); ++attempt) {
            if (firstStart) {
                m_port = freeLoopbackPort();
                m_busPort = m_clusterBus ? freeLoopbackPort() : 0;
            }
            if (launch())
                return true;
        }
        return false;
    }

    void stop()
    {
        if (m_process && m_process->state() != QProcess::NotRunning) {
            m_process->terminate();
            if (!m_process->waitForFinished(5000))
                m_process->kill();
            m_process->waitForFinished(5000);
        }
    }

    // kill -9: no shutdown, no final save.
    void kill()
    {
        if (m_process && m_process->state() != QProcess::NotRunning) {
            m_process->kill();
            m_process->waitForFinished(5000);
        }
    }

    bool restart() { return start(m_extraArgs); }
    // Starts again with nothing (no AOF, no RDB): what a Redis without persistence, or one whose
    // disk was replaced, comes back with. Only while stopped.
    bool restartEmpty()
    {
        if (isRunning())
            return false;
        QDir dir(m_dir.path());
        if (!dir.removeRecursively() || !dir.mkpath(QStringLiteral(".")))
            return false;
        return restart();
    }
    // SIGSTOP / SIGCONT: a server that keeps its connections but stops answering, then resumes.
    void pause() { signal(SIGSTOP); }
    void resume() { signal(SIGCONT); }
    bool isRunning() const { return m_process && m_process->state() == QProcess::Running; }

    quint16 port() const { return m_port; }
    QString errorString() const { return m_error; }
    QString directory() const { return m_dir.path(); }

    // Runs one command through redis-cli and returns its raw output (--no-raw off: plain values).
    QByteArray cli(const QStringList &args, const QString &password = {}) const
    {
        QProcess process;
        QStringList all{QStringLiteral("-h"), QStringLiteral("127.0.0.1"), QStringLiteral("-p"),
                        QString::number(m_port)};
        if (!password.isEmpty())
            process.setEnvironment(QProcess::systemEnvironment() << QStringLiteral("REDISCLI_AUTH=") + password);
        process.start(QStringLiteral("redis-cli"), all + m_cliTlsArgs + args);
        process.waitForFinished(10'000);
        return process.readAllStandardOutput().trimmed();
    }

private:
    bool launch()
    {
        m_process = std::make_unique<QProcess>();
        m_process->setProcessChannelMode(QProcess::MergedChannels);
        // Dies with the test, also when the test aborts before its destructors run.
        m_process->setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGKILL); });
        QStringList busArgs;
        if (m_busPort != 0)
            busArgs = QStringList{QStringLiteral("--cluster-port"), QString::number(m_busPort)};
        m_process->start(executable(), QStringList{QStringLiteral("--port"), QString::number(m_port),
                                                   QStringLiteral("--bind"), QStringLiteral("127.0.0.1"),
                                                   QStringLiteral("--save"), QString(),
                                                   QStringLiteral("--dir"), m_dir.path(),
                                                   QStringLiteral("--daemonize"), QStringLiteral("no")}
                                           + tlsPortArgs() + busArgs + m_extraArgs);
        if (!m_process->waitForStarted(5000)) {
            m_error = m_process->errorString();
            return false;
        }
        QElapsedTimer timer;
        timer.start();
        while (timer.elapsed() < 10'000) {
            if (ping())
                return true;
            // Also lets QProcess see an exit, which a plain sleep would hide until the deadline.
            if (m_process->waitForFinished(20)) {
                m_error = QStringLiteral("redis-server exited: ") + QString::fromLocal8Bit(m_process->readAll()).right(400);
                return false;
            }
        }
        m_error = QStringLiteral("redis-server did not answer PING within 10 s: ") + QString::fromLocal8Bit(m_process->readAll()).right(400);
        m_process->kill();
        m_process->waitForFinished(5000);
        return false;
    }

    void signal(int number)
    {
        if (m_process && m_process->state() == QProcess::Running)
            ::kill(pid_t(m_process->processId()), number);
    }

    QStringList tlsPortArgs() const
    {
        if (!tls())
            return {};
        return QStringList{QStringLiteral("--tls-port"), QString::number(m_port)} + m_tlsArgs;
    }

    bool ping() const
    {
        if (tls()) {
            const QByteArray answer = cli({QStringLiteral("PING")});
            return answer.contains("PONG") || answer.contains("NOAUTH");
        }
        QTcpSocket socket;
        socket.connectToHost(QHostAddress::LocalHost, m_port);
        if (!socket.waitForConnected(200))
            return false;
        socket.write("PING\r\n");
        if (!socket.waitForBytesWritten(200) || !socket.waitForReadyRead(500))
            return false;
        const QByteArray answer = socket.readAll();
        return answer.startsWith("+PONG") || answer.startsWith("-NOAUTH");
    }

    QTemporaryDir m_dir;
    quint16 m_port = 0;
    quint16 m_busPort = 0;
    bool m_clusterBus = false;
    QStringList m_extraArgs;
    QStringList m_tlsArgs;
    QStringList m_cliTlsArgs;
    std::unique_ptr<QProcess> m_process;
    QString m_error;
};

// Accepts TCP connections and never reads or answers: for deadlines and the circuit breaker.
class BlackHoleServer
{
public:
    BlackHoleServer()
    {
        m_server.listen(QHostAddress::LocalHost, 0);
        QObject::connect(&m_server, &QTcpServer::newConnection, &m_server, [this] {
            while (QTcpSocket *socket = m_server.nextPendingConnection())
                m_sockets.emplace_back(socket);
        });
    }
    quint16 port() const { return m_server.serverPort(); }
    int accepted() const { return int(m_sockets.size()); }

private:
    QTcpServer m_server;
    std::vector<std::unique_ptr<QTcpSocket>> m_sockets;
};

} // namespace Broker::Testing
