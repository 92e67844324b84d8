// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A small HTTPS server for client tests, while brokerd's own TLS is built elsewhere: a QSslServer
// on 127.0.0.1 (free port) with a certificate chain and key from files, answering each request
// with the canned body for its path (404 for others), one request per connection. Lives in the
// test thread; answers while the test's event loop runs.
#include <QFile>
#include <QHash>
#include <QSslCertificate>
#include <QSslKey>
#include <QSslServer>
#include <QSslSocket>

namespace Broker::Test {

class HttpsTestServer : public QObject
{
public:
    // False when the files cannot be read or the server cannot listen.
    bool start(const QString &certFile, const QString &keyFile)
    {
        QFile key(keyFile);
        if (!key.open(QIODevice::ReadOnly))
            return false;
        QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
        tls.setLocalCertificateChain(QSslCertificate::fromPath(certFile));
        tls.setPrivateKey(QSslKey(key.readAll(), QSsl::Ec));
        if (tls.localCertificate().isNull() || tls.privateKey().isNull())
            return false;
        m_server.setSslConfiguration(tls);
        // A client that refuses the certificate ends the handshake: counted, not answered.
        connect(&m_server, &QSslServer::errorOccurred, this, [this](QSslSocket *, QAbstractSocket::SocketError) {
            ++handshakeFailures;
        });
        connect(&m_server, &QSslServer::pendingConnectionAvailable, this, [this] {
            while (QSslSocket *socket = qobject_cast<QSslSocket *>(m_server.nextPendingConnection()))
                serve(socket);
        });
        return m_server.listen(QHostAddress::LocalHost, 0);
    }
    quint16 port() const { return m_server.serverPort(); }
    void answer(const QByteArray &path, const QByteArray &json) { m_bodies.insert(path, json); }

    int handshakeFailures = 0;
    int requests = 0;

private:
    void serve(QSslSocket *socket)
    {
        connect(socket, &QSslSocket::disconnected, socket, &QObject::deleteLater);
        connect(socket, &QSslSocket::readyRead, socket, [this, socket] {
            m_pending[socket] += socket->readAll();
            const QByteArray &request = m_pending[socket];
            if (!request.contains("\r\n\r\n"))
                return;
            ++requests;
            const QByteArray path = request.split(' ').value(1).split('?').value(0);
            const bool known = m_bodies.contains(path);
            const QByteArray body = known ? m_bodies.value(path) : QByteArray(R"({"error":"Not found"})");
            socket->write((known ? "HTTP/1.1 200 OK\r\n" : "HTTP/1.1 404 Not Found\r\n")
                          + QByteArray("Content-Type: application/json\r\nConnection: close\r\nContent-Length: ")
                          + QByteArray::number(body.size()) + "\r\n\r\n" + body);
            socket->disconnectFromHost();
            m_pending.remove(socket);
        });
    }

    QSslServer m_server;
    QHash<QByteArray, QByteArray> m_bodies;
    QHash<QSslSocket *, QByteArray> m_pending;
};

} // namespace Broker::Test
