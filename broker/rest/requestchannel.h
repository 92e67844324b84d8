// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
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

// A connection's way into QHttpServer and its responses' way out, with no network of its own:
// the guard hands QHttpServer one channel per client connection, and loads it with one complete
// request at a time, the next only once the response to the last has come back. A channel
// therefore never sees a pipelined request, a partial body, or a client that went away: the
// guard deals with those on the real socket. Kept for the whole connection, so that QHttpServer
// sets up its side once, not per request. QHttpServer deletes the channel once it is closed.
class RequestChannel : public QTcpSocket
{
    Q_OBJECT
public:
    RequestChannel(const QHostAddress &peerAddress, quint16 peerPort, QObject *parent = nullptr);
    ~RequestChannel() override;

    // Makes `request` (one complete request) the channel's next input; the previous one must have
    // been answered.
    void load(QByteArray request, RequestMeta meta);
    const RequestMeta &meta() const { return m_meta; }
    // Counts the requests loaded: an answer is taken only for the request it belongs to.
    quint64 requestNumber() const { return m_requestNumber; }
    bool isAnswerable(quint64 requestNumber) const { return !m_finished && requestNumber == m_requestNumber; }
    // Makes the loaded request readable (emits readyRead).
    void deliver();
    // The response is complete: hands it to the guard.
    void finishResponse(bool closeConnection = false);
    // The connection is done with the channel: closed now when no answer is awaited, else once
    // it has come.
    void release();
    // The connection closes after this response (the server is draining).
    void preventKeepAlive() { m_meta.keepAlive = false; }
    // The client closed its connection: the response will go nowhere.
    void markClientGone() { m_clientGone = true; }
    bool isClientGone() const { return m_clientGone; }

    // A random-access device to QIODevice: QHttpServer's transactional reads then take the request
    // in exact-size pieces instead of copying it through a 16 KiB ring buffer, and a single
    // byte comes from QIODevice's buffer without a call into the channel. The requests of a
    // connection follow one another in the device's address space (writes move its position too).
    bool isSequential() const override { return false; }
    qint64 size() const override { return m_base + m_request.size(); }
    bool seek(qint64 position) override;
    void disconnectFromHost() override;

Q_SIGNALS:
    // The whole response, once per request. `closeConnection`: the server wants the connection
    // closed after it.
    void responseReady(const QByteArray &response, bool closeConnection);
    // QHttpServer closed the channel without a response (it could not parse the request).
    void abandoned();

protected:
    qint64 readData(char *data, qint64 maxSize) override;
    qint64 readLineData(char *data, qint64 maxSize) override;
    qint64 writeData(const char *data, qint64 size) override;

private:
    QByteArray m_request;
    qint64 m_base = 0;          // the device position of the loaded request's first byte
    qsizetype m_readPos = 0;    // within m_request
    QByteArray m_response;
    RequestMeta m_meta;
    quint64 m_requestNumber = 0;
    bool m_finished = true;     // no request awaits its answer
    bool m_released = false;
    bool m_clientGone = false;
};

} // namespace Broker::Rest
