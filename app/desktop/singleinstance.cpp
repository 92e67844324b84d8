// SPDX-License-Identifier: GPL-3.0-or-later
#include "singleinstance.h"

#include <QCryptographicHash>
#include <QLocalSocket>

#include <unistd.h>

namespace Broker::Desktop {

SingleInstance::SingleInstance(const QString &key, QObject *parent) : QObject(parent)
{
    // Socket names are short; the key (a config path) is hashed into one per user.
    const QByteArray hash = QCryptographicHash::hash(key.toUtf8(), QCryptographicHash::Sha256).toHex().left(16);
    m_name = QStringLiteral("brokerdesk-%1-%2").arg(::getuid()).arg(QString::fromLatin1(hash));
    connect(&m_server, &QLocalServer::newConnection, this, [this] {
        while (QLocalSocket *socket = m_server.nextPendingConnection()) {
            connect(socket, &QLocalSocket::readyRead, this, [this, socket] {
                if (socket->readAll().startsWith("show"))
                    Q_EMIT activationRequested();
                socket->disconnectFromServer();
            });
            connect(socket, &QLocalSocket::disconnected, socket, &QObject::deleteLater);
        }
    });
}

bool SingleInstance::handOverToRunning()
{
    // At start-up, before any window: a short blocking wait on a local socket is harmless here.
    QLocalSocket socket;
    socket.connectToServer(m_name);
    if (!socket.waitForConnected(500))
        return false;
    socket.write("show\n");
    socket.waitForBytesWritten(500);
    socket.waitForDisconnected(500);
    return true;
}

bool SingleInstance::listen()
{
    m_server.setSocketOptions(QLocalServer::UserAccessOption);
    if (m_server.listen(m_name))
        return true;
    // A stale socket file from a crashed instance: nobody answered handOverToRunning().
    QLocalServer::removeServer(m_name);
    return m_server.listen(m_name);
}

} // namespace Broker::Desktop
