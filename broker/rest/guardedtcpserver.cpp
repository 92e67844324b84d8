// SPDX-License-Identifier: GPL-3.0-or-later
#include "guardedtcpserver.h"

#include "clientsocket.h"
#include "guardedconnection.h"
#include "rawresponse.h"
#include "requestchannel.h"
#include "tlsclientsocket.h"

namespace Broker::Rest {

GuardedTcpServer::GuardedTcpServer(const GuardOptions &options, QObject *parent)
    : QTcpServer(parent),
      m_options(options),
      m_quota({options.maxConnections, options.maxConnectionsPerAddress, options.maxConnectionsPerLoopbackAddress})
{
    // QHttpServer takes every channel the moment it is handed over; the queue never grows.
    setMaxPendingConnections(1 << 20);
    // The kernel's queue of connections not yet accepted (Qt's default is 50): a burst of them,
    // hostile or not, would otherwise have SYNs dropped and legitimate clients wait a second or
    // more for the retry. The kernel caps it at net.core.somaxconn.
    setListenBacklogSize(1024);
}

GuardedTcpServer::~GuardedTcpServer()
{
    const QList<GuardedConnection *> connections = m_connections.keys();
    for (GuardedConnection *connection : connections)
        disconnect(connection, nullptr, this, nullptr);
    qDeleteAll(connections);
}

void GuardedTcpServer::setTls(std::shared_ptr<const TlsIdentity> identity, int handshakeTimeoutMs)
{
    m_tls = std::move(identity);
    m_handshakeTimeoutMs = handshakeTimeoutMs;
}

ClientStream *GuardedTcpServer::accept(qintptr descriptor)
{
    // Parented, so that a refused socket still lingering when the server goes is deleted with it;
    // an admitted one is adopted by its connection.
    if (!m_tls)
        return new ClientSocket(descriptor, this);
    auto *socket = new TlsClientSocket(descriptor, m_tls->context, m_handshakeTimeoutMs, this);
    connect(socket, &TlsClientSocket::handshakeFailed, this, [this](const QString &, bool timedOut) {
        ++(timedOut ? m_stats.tlsHandshakeTimeouts : m_stats.tlsHandshakeFailures);
    });
    return socket;
}

void GuardedTcpServer::incomingConnection(qintptr descriptor)
{
    ClientStream *socket = accept(descriptor);
    const QHostAddress peer = socket->peerAddress();
    QString refusal;
    if (m_stopping) {
        ++m_stats.refusedStopping;
        refusal = QStringLiteral("The broker is shutting down");
    } else {
        switch (m_quota.admit(peer)) {
        case ConnectionQuota::Verdict::Admitted: break;
        case ConnectionQuota::Verdict::ServerFull:
            ++m_stats.refusedServerFull;
            refusal = QStringLiteral("Too many connections");
            break;
        case ConnectionQuota::Verdict::AddressFull:
            ++m_stats.refusedAddressFull;
            refusal = QStringLiteral("Too many connections from your address (at most %1)").arg(m_quota.capFor(peer));
            break;
        }
    }
    if (!refusal.isEmpty()) {
        const QByteArray body = problemJson(503, QStringLiteral("Service Unavailable"), refusal, QByteArray());
        socket->write(buildResponse(503, {{"Content-Type", "application/problem+json"},
                                          {"Connection", "close"},
                                          {"Retry-After", "1"}},
                                    body));
        if (m_lingeringRefusals >= MaxLingeringRefusals) {
            // A flood of refused connections: each lingering one holds a file descriptor, and
            // descriptors are what the journal, the spool and Redis need too. Close at once (the
            // 503 may be lost to a reset; the client retries either way).
            connect(socket, &ClientStream::closed, socket, &QObject::deleteLater);
            socket->abort();
            return;
        }
        ++m_lingeringRefusals;
        connect(socket, &ClientStream::closed, this, [this, socket] {
            --m_lingeringRefusals;
            socket->deleteLater();
        });
        socket->closeGracefully();
        return;
    }
    auto *connection = new GuardedConnection(socket, *this);
    m_connections.insert(connection, peer);
    connect(connection, &QObject::destroyed, this, [this, connection] { forget(connection); });
}

qint64 GuardedTcpServer::bufferedBytes() const
{
    qint64 total = 0;
    for (auto it = m_connections.cbegin(); it != m_connections.cend(); ++it)
        total += it.key()->bufferedBytes();
    return total;
}

void GuardedTcpServer::hand(RequestChannel *channel)
{
    addPendingConnection(channel); // QHttpServer picks it up at once (pendingConnectionAvailable)
}

void GuardedTcpServer::stopAccepting()
{
    m_stopping = true;
    close();
    if (m_connections.isEmpty()) {
        Q_EMIT drained();
        return;
    }
    const QList<GuardedConnection *> connections = m_connections.keys();
    for (GuardedConnection *connection : connections)
        connection->drain();
}

void GuardedTcpServer::forget(GuardedConnection *connection)
{
    const auto it = m_connections.constFind(connection);
    if (it == m_connections.cend())
        return;
    m_quota.release(it.value());
    m_connections.erase(it);
    if (m_stopping && m_connections.isEmpty())
        Q_EMIT drained();
}

} // namespace Broker::Rest
