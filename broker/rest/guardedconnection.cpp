// SPDX-License-Identifier: GPL-3.0-or-later
#include "guardedconnection.h"

#include "clientstream.h"

#include "guardedtcpserver.h"
#include "rawresponse.h"
#include "requestchannel.h"

#include <QRandomGenerator>

namespace Broker::Rest {

namespace {

// An incoming X-Request-ID is echoed when it is short and plain; anything else is replaced.
bool isValidRequestId(QByteArrayView id)
{
    if (id.isEmpty() || id.size() > 128)
        return false;
    for (char c : id) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-'
            || c == '_' || c == '.' || c == ':';
        if (!ok)
            return false;
    }
    return true;
}

QByteArray newRequestId()
{
    return QByteArray::number(QRandomGenerator::global()->generate64(), 16).rightJustified(16, '0');
}

} // namespace

GuardedConnection::GuardedConnection(ClientStream *socket, GuardedTcpServer &server)
    : m_socket(socket), m_server(server)
{
    m_socket->setParent(this);
    connect(&m_timers, &ConnectionTimers::expired, this, [this](ConnectionTimers::Kind kind) {
        switch (kind) {
        case ConnectionTimers::Idle: return close();
        case ConnectionTimers::Head: return headTimedOut();
        case ConnectionTimers::Request:
            ++m_server.statsForUpdate().requestTimeouts;
            return refuse(408, "Request timeout");
        case ConnectionTimers::Drain: return outputStalled();
        }
    });
    connect(m_socket, &ClientStream::readable, this, &GuardedConnection::readSocket);
    connect(m_socket, &ClientStream::closed, this, &GuardedConnection::peerLeft);
    connect(m_socket, &ClientStream::outputDrained, this, &GuardedConnection::outputDrained);
    connect(m_socket, &ClientStream::outputProgressed, this, &GuardedConnection::outputProgressed);
    // A new connection holds a slot: it gets the head timeout, not the idle one, to send its
    // first request, so that connections opened and left silent are gone within seconds.
    m_timers.start(ConnectionTimers::Head, m_server.options().headTimeoutMs);
}

GuardedConnection::~GuardedConnection()
{
    releaseChannel();
}

void GuardedConnection::releaseChannel()
{
    if (!m_channel)
        return;
    disconnect(m_channel, nullptr, this, nullptr);
    m_channel->setOutputGauge({});
    m_channel->release();
    m_channel = nullptr;
}

void GuardedConnection::armIdle()
{
    m_timers.start(ConnectionTimers::Idle, m_server.options().idleTimeoutMs);
}

void GuardedConnection::readSocket()
{
    // Takes what the kernel has, in bounded steps, until a request has been handed on (then back
    // to the event loop, so that a fast client cannot keep the others waiting), the framer refuses
    // the input, or there is nothing more to read.
    const quint64 servedBefore = m_dispatched;
    while (!m_inRequest && !m_closing && !m_waitingForOutput && !m_resumeScheduled && m_dispatched == servedBefore) {
        const qint64 got = m_socket->readInto(m_buffer, m_server.options().socketReadBufferBytes);
        if (got <= 0)
            return;
        process();
    }
}

void GuardedConnection::process()
{
    while (!m_inRequest && !m_closing && !m_waitingForOutput) {
        if (m_buffer.isEmpty() && !m_framer) {
            if (m_draining)
                close();
            return;
        }
        if (!m_framer) {
            // Backpressure: the next request waits until the client has read enough of the answers.
            if (outputBlocked()) {
                waitForOutput();
                return;
            }
            m_framer.emplace(m_server.options().limits);
            m_timers.stop(ConnectionTimers::Idle);
            if (!m_timers.isActive(ConnectionTimers::Head))
                m_timers.start(ConnectionTimers::Head, m_server.options().headTimeoutMs);
            m_timers.start(ConnectionTimers::Request, m_server.options().requestTimeoutMs);
            m_continueSent = false;
        }
        const RequestFramer::Status status = m_framer->progress(m_buffer);
        if (m_framer->headComplete())
            m_timers.stop(ConnectionTimers::Head);
        switch (status) {
        case RequestFramer::Status::NeedMore:
            if (m_framer->headComplete() && m_framer->head().expectContinue && !m_continueSent) {
                m_socket->write("HTTP/1.1 100 Continue\r\n\r\n");
                m_continueSent = true;
            }
            return;
        case RequestFramer::Status::Error:
            refuse(m_framer->errorStatus(), m_framer->errorReason());
            return;
        case RequestFramer::Status::Complete:
            dispatch();
            // Answered at once: the next pipelined request waits for the next pass of the event
            // loop, so that a client with thousands of them queued does not hold up the others.
            if (!m_inRequest && !m_closing && !m_buffer.isEmpty())
                scheduleResume();
            return;
        }
    }
}

void GuardedConnection::dispatch()
{
    ++m_dispatched;
    m_timers.stop(ConnectionTimers::Head);
    m_timers.stop(ConnectionTimers::Request);
    RequestMeta meta;
    meta.body = m_framer->body(m_buffer);
    meta.head = m_framer->takeHead();
    const QByteArrayView incomingId = meta.head.field("x-request-id");
    meta.requestId = isValidRequestId(incomingId) ? incomingId.toByteArray() : newRequestId();
    meta.keepAlive = meta.head.keepAlive && !m_draining;

    // One channel for the connection, handed to QHttpServer with its first request.
    const bool first = !m_channel;
    if (first) {
        m_channel = new RequestChannel(m_socket->peerAddress(), m_socket->peerPort());
        connect(m_channel, &RequestChannel::responseReady, this, &GuardedConnection::respond);
        connect(m_channel, &RequestChannel::responsePart, this, &GuardedConnection::respondInPart);
        m_channel->setOutputGauge([this] { return m_peerGone ? 0 : m_socket->pendingOutput(); });
        connect(m_channel, &RequestChannel::abandoned, this, [this] { refuse(400, "Malformed request"); });
    }
    RequestChannel *channel = m_channel;
    channel->load(std::move(meta));
    m_buffer.remove(0, m_framer->messageBytes());
    m_framer.reset();
    m_inRequest = true;
    m_socket->setReadingPaused(true);
    m_dispatching = true;
    if (first)
        m_server.hand(channel);
    channel->deliver();
    m_dispatching = false;
}

void GuardedConnection::respond(const QByteArray &response, bool closeConnection)
{
    const bool keepAlive = m_channel && m_channel->meta().keepAlive;
    m_inRequest = false;
    if (m_peerGone) {
        finishIfDone();
        return;
    }
    m_socket->write(response);
    if (closeConnection || !keepAlive || m_draining) {
        close();
        return;
    }
    armIdle();
    m_socket->setReadingPaused(false);
    if (m_dispatching)
        return; // answered at once: process() schedules what follows
    process();
    readSocket();
}

void GuardedConnection::respondInPart(const QByteArray &part)
{
    // A streamed response stays the connection's request until it ends: nothing more is read
    // meanwhile (a client that sends more waits, as behind any unanswered request), and the
    // stream bounds its own unsent output (see RequestChannel::pendingOutput).
    if (!m_peerGone && !m_closing)
        m_socket->write(part);
}

void GuardedConnection::scheduleResume()
{
    if (m_resumeScheduled)
        return;
    m_resumeScheduled = true;
    m_socket->setReadingPaused(true); // what is buffered comes first; the rest waits in the kernel
    QMetaObject::invokeMethod(this, &GuardedConnection::resume, Qt::QueuedConnection);
}

void GuardedConnection::resume()
{
    m_resumeScheduled = false;
    if (m_inRequest || m_closing || m_waitingForOutput)
        return;
    m_socket->setReadingPaused(false);
    const quint64 servedBefore = m_dispatched;
    process();
    if (m_dispatched == servedBefore)
        readSocket(); // nothing complete was buffered: more has to come from the kernel
}

bool GuardedConnection::answeringHead() const
{
    // A refusal answers the request being read (or QHttpServer's, when it gave up on it); a
    // response to HEAD has no body (RFC 9110, 9.3.2), whatever its status.
    if (m_inRequest)
        return m_channel->meta().head.isHead();
    if (m_framer && m_framer->headComplete())
        return m_framer->head().isHead();
    return m_buffer.startsWith("HEAD ");
}

void GuardedConnection::refuse(int status, const QByteArray &reason)
{
    if (m_closing)
        return;
    const bool headRequest = answeringHead();
    if (m_inRequest) { // QHttpServer could not parse what the framer let through; it closes the channel
        disconnect(m_channel, nullptr, this, nullptr);
        m_channel = nullptr;
        m_inRequest = false;
    }
    const QByteArray requestId = newRequestId();
    const QString text = QString::fromLatin1(reason);
    const QByteArray body = problemJson(status, text, text, requestId);
    if (!m_peerGone) {
        m_socket->write(buildResponse(status, {{"Content-Type", "application/problem+json"},
                                               {"X-Request-ID", requestId},
                                               {"Connection", "close"}},
                                      body, headRequest));
    }
    close();
}

void GuardedConnection::headTimedOut()
{
    ++m_server.statsForUpdate().headTimeouts;
    if (!m_framer && m_buffer.isEmpty()) {
        close(); // nothing was asked: nothing to answer
        return;
    }
    refuse(408, "Request timeout");
}

bool GuardedConnection::outputBlocked() const
{
    return m_socket->pendingOutput() > m_server.options().maxPendingOutputBytes;
}

void GuardedConnection::waitForOutput()
{
    m_waitingForOutput = true;
    m_timers.stop(ConnectionTimers::Idle);
    m_socket->setReadingPaused(true);
    if (!m_timers.isActive(ConnectionTimers::Drain))
        m_timers.start(ConnectionTimers::Drain, m_server.options().outputDrainTimeoutMs);
}

void GuardedConnection::outputDrained()
{
    m_timers.stop(ConnectionTimers::Drain);
    if (!m_waitingForOutput || m_closing)
        return;
    m_waitingForOutput = false;
    m_socket->setReadingPaused(false);
    process();
    if (!m_inRequest && !m_closing && !m_waitingForOutput && !m_framer)
        armIdle();
    readSocket();
}

void GuardedConnection::outputProgressed()
{
    if (!m_waitingForOutput || m_closing)
        return;
    // A client that reads, however slowly, is not stalled: below the bound it carries on, above
    // it the drain timeout starts over.
    if (!outputBlocked())
        return outputDrained();
    m_timers.start(ConnectionTimers::Drain, m_server.options().outputDrainTimeoutMs);
}

void GuardedConnection::outputStalled()
{
    // The client sends requests but does not read the answers: what it has not taken is dropped
    // with the connection, so that it holds neither memory nor its slot any longer.
    ++m_server.statsForUpdate().stalledOutputs;
    m_closing = true;
    m_timers.stopAll();
    m_buffer.clear();
    m_framer.reset();
    m_socket->abort(); // peerLeft() follows
}

void GuardedConnection::close()
{
    m_closing = true;
    m_timers.stopAll();
    m_buffer.clear();
    m_framer.reset();
    if (!m_socket->isOpen()) {
        finishIfDone();
        return;
    }
    m_socket->closeGracefully(); // sends what is queued first; peerLeft() follows
}

qint64 GuardedConnection::bufferedBytes() const
{
    return m_socket->pendingOutput() + m_buffer.size();
}

void GuardedConnection::drain()
{
    m_draining = true;
    if (m_inRequest)
        m_channel->preventKeepAlive();
    // A client that is not reading its answers gets no more of them: the requests it has queued
    // behind are not answered, and what it was sent goes out while the socket lingers.
    if (!m_inRequest && ((!m_framer && m_buffer.isEmpty()) || m_waitingForOutput))
        close();
}

void GuardedConnection::peerLeft()
{
    m_peerGone = true;
    if (m_inRequest)
        m_channel->markClientGone();
    m_closing = true;
    m_timers.stopAll();
    finishIfDone();
}

void GuardedConnection::finishIfDone()
{
    // A request still with QHttpServer keeps this object (and its channel's receiver) alive.
    if (m_inRequest || !(m_peerGone || !m_socket->isOpen()))
        return;
    releaseChannel();
    deleteLater();
}

} // namespace Broker::Rest
