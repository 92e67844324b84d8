// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QHostAddress>
#include <QObject>

namespace Broker::Rest {

// A client's connection as the guard needs it: plain TCP (ClientSocket) or TLS (TlsClientSocket).
// Reading can be paused so that unread bytes stay in the kernel (TCP pushes back); closing is
// graceful (pending output first).
class ClientStream : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;

    virtual QHostAddress peerAddress() const = 0;
    virtual quint16 peerPort() const = 0;
    virtual bool isOpen() const = 0;

    // Appends up to `maxBytes` of what has arrived to `buffer`. Returns the number of bytes read;
    // 0 when there is nothing now; -1 when the peer closed the connection or it failed (closed()
    // follows).
    virtual qint64 readInto(QByteArray &buffer, qint64 maxBytes) = 0;
    // Sends what the peer takes now and keeps the rest until it can take more.
    virtual void write(const QByteArray &data) = 0;
    virtual qint64 pendingOutput() const = 0;
    // While paused, readable() is not emitted for data; a peer that closes is still noticed. Data
    // that arrived while paused and is still unread is signalled again after reading resumes (in a
    // later pass of the event loop, as a level-triggered socket notifier does). readable(),
    // outputDrained() and outputProgressed() are never emitted from inside write().
    virtual void setReadingPaused(bool paused) = 0;
    // Sends what is pending, then closes. closed() follows.
    virtual void closeGracefully() = 0;
    // Closes at once and drops what is pending (a peer that does not read). closed() follows.
    virtual void abort() = 0;

Q_SIGNALS:
    void readable();
    void closed();
    // Output that had to wait for the peer has all been sent.
    void outputDrained();
    // The peer took some of the output that had to wait for it (more may remain).
    void outputProgressed();
};

} // namespace Broker::Rest
