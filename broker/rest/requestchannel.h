// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "requestframer.h"

#include <QByteArray>
#include <QHostAddress>
#include <QString>
#include <QTcpSocket>

#include <functional>

namespace Broker::Rest {

// What the guard learnt about a request that QHttpServer is not given.
struct RequestMeta
{
    QByteArray requestId;  // echoed if the client sent a valid X-Request-ID, else generated
    RequestHead head;      // the request line and every field, as the guard read and checked them
    QByteArray body;       // the whole body, a chunked one decoded
    bool keepAlive = true;
};

// What a connection remembers of the last API key that authenticated on it, so that the
// requests that follow on the same connection with the same key skip hashing it. Lives and dies
// with the connection: no key outlives the connection that sent it.
struct KeyMemo
{
    QByteArray key;
    QString userId;
    quint64 directoryGeneration = 0; // the user directory's, when the key was checked
};

// Where QHttpServer 6.4 is adapted (with RestServer::handleRequest, which receives what it
// parsed, and Exchange's constructor, which takes it over): a connection's way into QHttpServer
// and its responses' way out, with no network of its own. The guard hands QHttpServer one
// channel per client connection, and loads it with one complete request at a time, the next
// only once the response to the last has come back. A channel therefore never sees a pipelined
// request, a partial body, or a client that went away: the guard deals with those on the real
// socket. Kept for the whole connection, so that QHttpServer sets up its side once, not per
// request. QHttpServer deletes the channel once it is closed.
//
// QHttpServer 6.4 reads a head one byte at a time (QIODevice::read of one char, ~80 instructions
// each, plus an append) and copies a body three times on its way through QIODevice's buffer, so
// the channel gives it the request line and nothing else: QHttpServer parses the method and the
// URL and calls RestServer::handleRequest, while the fields and the body, which the guard has
// already read, bounded and checked (a chunked body decoded), travel beside it in RequestMeta.
// A newer Qt that parses heads cheaply, or takes parsed requests, changes this class (and
// Exchange's constructor) and nothing around it.
class RequestChannel : public QTcpSocket
{
    Q_OBJECT
public:
    RequestChannel(const QHostAddress &peerAddress, quint16 peerPort, QObject *parent = nullptr);
    ~RequestChannel() override;

    // Makes the request of `meta` the channel's next input; the previous one must have been
    // answered.
    void load(RequestMeta meta);
    const RequestMeta &meta() const { return m_meta; }
    // The client as per-client limits see it ("192.0.2.7", "2001:db8:1:2::/64"), worked out once.
    const QString &clientLabel() const { return m_clientLabel; }
    KeyMemo &keyMemo() { return m_keyMemo; }
    // Counts the requests loaded: an answer is taken only for the request it belongs to.
    quint64 requestNumber() const { return m_requestNumber; }
    bool isAnswerable(quint64 requestNumber) const { return !m_finished && requestNumber == m_requestNumber; }
    // Makes the loaded request readable (emits readyRead).
    void deliver();
    // The response is complete: hands it to the guard.
    void finishResponse(bool closeConnection = false);
    // A response written in pieces (an event stream): what was written so far goes to the guard
    // now, and the response stays open until finishResponse().
    void flushPart();
    // The client's output not yet taken by the client (0 once it left), as the guard measures it.
    qint64 pendingOutput() const { return m_outputGauge ? m_outputGauge() : 0; }
    void setOutputGauge(std::function<qint64()> gauge) { m_outputGauge = std::move(gauge); }
    // The connection is done with the channel: closed now when no answer is awaited, else once
    // it has come.
    void release();
    // The connection closes after this response (the server is draining).
    void preventKeepAlive() { m_meta.keepAlive = false; }
    // The client closed its connection: the response will go nowhere.
    void markClientGone();
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
    // Part of a response still open (flushPart()).
    void responsePart(const QByteArray &bytes);
    // QHttpServer closed the channel without a response (it could not parse the request).
    void abandoned();
    // The client closed its connection while a response was awaited (markClientGone()).
    void clientLeft();

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
    QString m_clientLabel;
    KeyMemo m_keyMemo;
    std::function<qint64()> m_outputGauge;
    quint64 m_requestNumber = 0;
    bool m_finished = true;     // no request awaits its answer
    bool m_released = false;
    bool m_clientGone = false;
};

} // namespace Broker::Rest
