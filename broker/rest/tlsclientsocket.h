// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "clientstream.h"

#include <QSslConfiguration>
#include <QTimer>

class QSslSocket;

namespace Broker::Rest {

// A client's TLS connection (QSslSocket in server mode) behind the guard's ClientStream. The
// handshake starts at once and must finish within `handshakeTimeoutMs`, so that half-done
// handshakes cannot hold connection slots; requests written before it finishes wait for it.
// QSslSocket keeps at most `readBufferBytes` of decrypted input: while reading is paused the rest
// stays in the kernel, as with plain TCP. What QSslSocket decrypted while reading was paused waits
// in its buffer, where no notifier sees it: it is signalled again when reading resumes. The
// socket's pending output counts both what waits to be encrypted and what waits for the kernel.
class TlsClientSocket final : public ClientStream
{
    Q_OBJECT
public:
    // Takes ownership of the connected socket `descriptor`.
    TlsClientSocket(qintptr descriptor, const QSslConfiguration &configuration, int handshakeTimeoutMs,
                    qint64 readBufferBytes, QObject *parent = nullptr);
    ~TlsClientSocket() override;

    QHostAddress peerAddress() const override { return m_peerAddress; }
    quint16 peerPort() const override { return m_peerPort; }
    bool isOpen() const override { return !m_closed; }
    qint64 readInto(QByteArray &buffer, qint64 maxBytes) override;
    void write(const QByteArray &data) override;
    qint64 pendingOutput() const override;
    void setReadingPaused(bool paused) override;
    void closeGracefully() override;
    void abort() override;

    bool isEncrypted() const { return m_encrypted; }

Q_SIGNALS:
    // The handshake failed (`timedOut`: it did not finish in time); closed() follows. `reason`
    // names what went wrong and is safe to log (no certificate contents).
    void handshakeFailed(const QString &reason, bool timedOut);

private:
    void onEncrypted();
    void onReadyRead();
    void onEncryptedBytesWritten();
    void onError();
    void onHandshakeTimeout();
    void finishClose();
    // readable() and the output signals in a later pass of the event loop, for what happened
    // while reading was paused or inside write().
    void scheduleNotice();
    void deliverNotice();

    QSslSocket *m_socket;
    QHostAddress m_peerAddress;
    quint16 m_peerPort = 0;
    QTimer m_handshakeTimer;
    QTimer m_linger;
    bool m_encrypted = false;
    bool m_paused = false;
    bool m_closing = false;
    bool m_closed = false;
    bool m_writing = false;          // inside write(): QSslSocket signals synchronously from flush()
    bool m_outputNoticePending = false;
    bool m_noticeScheduled = false;
};

} // namespace Broker::Rest
