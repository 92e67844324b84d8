// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "connectiontimers.h"
#include "guardoptions.h"
#include "requestframer.h"

#include <QObject>
#include <QPointer>

#include <optional>

namespace Broker::Rest {

class ClientStream;
class GuardedTcpServer;
class RequestChannel;

// One client connection, read and answered one request at a time: while a request is with
// QHttpServer nothing more is read (the bytes wait in the kernel, so TCP pushes back), and
// responses go out in request order. The same holds while the client does not read its
// responses: with more than maxPendingOutputBytes unsent, nothing more is read or answered until
// the output has drained, and a client that lets it stall for outputDrainTimeoutMs is cut off.
// Refuses what breaks the limits with 4xx and closes; closes idle and slow connections (a head
// must be complete within headTimeoutMs, a whole request within requestTimeoutMs); answers
// "Expect: 100-continue"; keeps a request's channel alive until its response arrives even when
// the client has left.
class GuardedConnection : public QObject
{
    Q_OBJECT
public:
    GuardedConnection(ClientStream *socket, GuardedTcpServer &server);
    ~GuardedConnection() override;

    // Close when idle, or after the response now being prepared.
    void drain();
    // Unsent output plus received input not yet handed on.
    qint64 bufferedBytes() const;

private:
    void readSocket();
    void process();
    void dispatch();
    void respond(const QByteArray &response, bool closeConnection);
    void respondInPart(const QByteArray &part);
    void refuse(int status, const QByteArray &reason);
    void close();
    void peerLeft();
    void finishIfDone();
    void releaseChannel();
    void armIdle();
    void scheduleResume();
    void resume();
    bool outputBlocked() const;
    void waitForOutput();
    void outputDrained();
    void outputProgressed();
    void outputStalled();
    void headTimedOut();
    bool answeringHead() const;

    ClientStream *m_socket;
    GuardedTcpServer &m_server;
    QByteArray m_buffer;                 // received, not yet handed on
    std::optional<RequestFramer> m_framer;
    QPointer<RequestChannel> m_channel;  // this connection's way into QHttpServer, from its first request on
    bool m_inRequest = false;            // a request is with QHttpServer: its answer has not come back
    ConnectionTimers m_timers;
    quint64 m_dispatched = 0;            // requests handed to QHttpServer so far
    bool m_continueSent = false;
    bool m_waitingForOutput = false;
    bool m_resumeScheduled = false;     // reading paused until the client takes its responses
    bool m_dispatching = false;
    bool m_closing = false;
    bool m_draining = false;
    bool m_peerGone = false;
};

} // namespace Broker::Rest
