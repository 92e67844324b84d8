// SPDX-License-Identifier: GPL-3.0-or-later
#include "guardedtcpserver.h"

#include "clientsocket.h"
#include "guardedconnection.h"
#include "rawresponse.h"
#include "requestchannel.h"


namespace Broker::Rest {

GuardedTcpServer::GuardedTcpServer(const GuardOptions &options, QObject *parent)
    : QTcpServer(parent), m_options(options)
{
    // QHttpServer takes every channel the moment it is handed over; the queue never grows.
    setMaxPendingConnections(1 << 20);
}

GuardedTcpServer::~GuardedTcpServer()
{
    for (GuardedConnection *connection : std::as_const(m_connections))
        disconnect(connection, nullptr, this, nullptr);
    qDeleteAll(m_connections);
}

void GuardedTcpServer::incomingConnection(qintptr descriptor)
{
    auto *socket = new ClientSocket(descriptor);
    if (m_stopping || int(m_connections.size()) >= m_options.maxConnections) {
        ++m_refused;
        const QByteArray body = problemJson(503, QStringLiteral("Service Unavailable"),
                                            m_stopping ? QStringLiteral("The broker is shutting down")
                                                       : QStringLiteral("Too many connections"),
                                            QByteArray());
        socket->write(buildResponse(503, {{"Content-Type", "application/problem+json"},
                                          {"Connection", "close"},
                                          {"Retry-After", "1"}},
                                    body));
        connect(socket, &ClientSocket::closed, socket, &QObject::deleteLater);
        socket->closeGracefully();
        return;
    }
    auto *connection = new GuardedConnection(socket, *this);
    m_connections.insert(connection);
    connect(connection, &QObject::destroyed, this, [this, connection] { forget(connection); });
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
    const QSet<GuardedConnection *> connections = m_connections;
    for (GuardedConnection *connection : connections)
        connection->drain();
}

void GuardedTcpServer::forget(GuardedConnection *connection)
{
    m_connections.remove(connection);
    if (m_stopping && m_connections.isEmpty())
        Q_EMIT drained();
}

} // namespace Broker::Rest
