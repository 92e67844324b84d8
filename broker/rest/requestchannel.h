// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QElapsedTimer>
#include <QHostAddress>
#include <QTcpSocket>

namespace Broker::Rest {

// What the guard learnt about a request that QHttpServer does not keep.
struct RequestMeta
{
    QByteArray requestId;  // echoed if the client sent a valid X-Request-ID, else generated
    bool head = false;     // HEAD: answer like GET without the body
    bool keepAlive = true;
    QHostAddress peerAddress;
    quint16 peerPort = 0;
};

// One request's way into QHttpServer and its response's way out, with no network of its own:
// the guard hands QHttpServer one channel per request, preloaded with the complete request bytes,
// and receives the response bytes when the responder is done. A channel therefore never sees a
// second (pipelined) request, a partial body, or a client that went away: the guard deals with
// those on the real socket. QHttpServer deletes the channel once it is closed.
class RequestChannel : public QTcpSocket
{
    Q_OBJECT
public:
    RequestChannel(QByteArray request, RequestMeta meta, QObject *parent = nullptr);
    ~RequestChannel() override;

    const RequestMeta &meta() const { return m_meta; }
    qint64 elapsedNs() const { return m_received.nsecsElapsed(); }
    // Makes the preloaded request readable (emits readyRead).
    void deliver();
    // The response is complete: hands it to the guard and closes the channel.
    void finishResponse(bool closeConnection = false);
    bool isFinished() const { return m_finished; }
    // The connection closes after this response (the server is draining).
    void preventKeepAlive() { m_meta.keepAlive = false; }
    // The client closed its connection: the response will go nowhere.
    void markClientGone() { m_clientGone = true; }
    bool isClientGone() const { return m_clientGone; }

    // A random-access device to QIODevice: QHttpServer's transactional readAll() then reads the
    // request in one exact-size piece instead of copying it through a 16 KiB ring buffer.
    bool isSequential() const override { return false; }
    qint64 size() const override { return m_request.size(); }
    bool seek(qint64 position) override;
    void disconnectFromHost() override;

Q_SIGNALS:
    // The whole response, once. `closeConnection`: the server wants the connection closed after it.
    void responseReady(const QByteArray &response, bool closeConnection);
    // QHttpServer closed the channel without a response (it could not parse the request).
    void abandoned();

protected:
    qint64 readData(char *data, qint64 maxSize) override;
    qint64 readLineData(char *data, qint64 maxSize) override;
    qint64 writeData(const char *data, qint64 size) override;

private:
    QByteArray m_request;
    qsizetype m_readPos = 0;
    QByteArray m_response;
    RequestMeta m_meta;
    QElapsedTimer m_received;
    bool m_finished = false;
    bool m_clientGone = false;
};

} // namespace Broker::Rest
