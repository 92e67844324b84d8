// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "clientstream.h"

#include <QTimer>

#include <memory>

class QSocketNotifier;
struct ssl_st;

namespace Broker::Rest {

class TlsServerContext;

// A client's TLS connection behind the guard's ClientStream: OpenSSL's record layer on the bare
// non-blocking socket, as ClientSocket does for plain TCP (QSslSocket would add its TCP socket's
// buffers, memory BIOs, a queued call per write and notifier switching: about 14,000
// instructions and five system calls per request, docs/rest.md). The handshake starts at once and
// must finish within `handshakeTimeoutMs`, so that half-done handshakes cannot hold connection
// slots; what is written before it finishes waits for it. While reading is paused, unread input
// stays in the kernel; what OpenSSL already holds (read ahead, or decrypted and not yet taken) is
// signalled again when reading resumes.
class TlsClientSocket final : public ClientStream
{
    Q_OBJECT
public:
    // Takes ownership of the connected socket `descriptor`.
    TlsClientSocket(qintptr descriptor, std::shared_ptr<const TlsServerContext> context, int handshakeTimeoutMs,
                    QObject *parent = nullptr);
    ~TlsClientSocket() override;

    QHostAddress peerAddress() const override { return m_peerAddress; }
    quint16 peerPort() const override { return m_peerPort; }
    bool isOpen() const override { return m_fd >= 0; }
    qint64 readInto(QByteArray &buffer, qint64 maxBytes) override;
    void write(const QByteArray &data) override;
    qint64 pendingOutput() const override { return m_output.size(); }
    void setReadingPaused(bool paused) override;
    void closeGracefully() override;
    void abort() override;

    bool isEncrypted() const { return m_encrypted; }

Q_SIGNALS:
    // The handshake failed (`timedOut`: it did not finish in time); closed() follows. `reason`
    // names what went wrong and is safe to log (OpenSSL's reason, no certificate contents).
    void handshakeFailed(const QString &reason, bool timedOut);

private:
    void onReadable();
    void onWritable();
    void handshake();
    void flush();
    // flush(), then outputDrained() or outputProgressed() for output that had waited.
    void flushAndReport();
    void sendCloseNotify();
    void onHandshakeTimeout();
    void finishClose();
    // readable() in a later pass of the event loop, for input OpenSSL holds where no notifier sees it.
    void scheduleNotice();
    void deliverNotice();
    bool inputHeld() const;

    int m_fd = -1;
    ssl_st *m_ssl = nullptr;
    std::shared_ptr<const TlsServerContext> m_context; // outlives m_ssl, which it made
    QHostAddress m_peerAddress;
    quint16 m_peerPort = 0;
    QSocketNotifier *m_readNotifier = nullptr;
    QSocketNotifier *m_writeNotifier = nullptr;
    QByteArray m_output; // not yet taken by SSL_write
    QTimer m_handshakeTimer;
    QTimer m_linger;
    bool m_encrypted = false;
    bool m_paused = false;
    bool m_closing = false;
    bool m_halfClosed = false;
    bool m_readWantsWrite = false;  // SSL_read needs the socket writable first (a key update)
    bool m_writeWantsRead = false;  // SSL_write needs input first
    bool m_noticeScheduled = false;
};

} // namespace Broker::Rest
