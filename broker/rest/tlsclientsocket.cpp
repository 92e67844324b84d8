// SPDX-License-Identifier: GPL-3.0-or-later
#include "tlsclientsocket.h"

#include <QSslSocket>

#include <utility>

namespace Broker::Rest {

namespace {
// How long a closing connection may keep sending before it is cut off (as for plain TCP).
constexpr int LingerMs = 2000;
} // namespace

TlsClientSocket::TlsClientSocket(qintptr descriptor, const QSslConfiguration &configuration, int handshakeTimeoutMs,
                                 qint64 readBufferBytes, QObject *parent)
    : ClientStream(parent), m_socket(new QSslSocket(this))
{
    m_socket->setSslConfiguration(configuration);
    m_socket->setReadBufferSize(readBufferBytes);
    if (!m_socket->setSocketDescriptor(descriptor)) {
        m_closed = true;
        QMetaObject::invokeMethod(this, &ClientStream::closed, Qt::QueuedConnection);
        return;
    }
    m_socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
    m_peerAddress = m_socket->peerAddress();
    m_peerPort = m_socket->peerPort();
    connect(m_socket, &QSslSocket::encrypted, this, &TlsClientSocket::onEncrypted);
    connect(m_socket, &QSslSocket::readyRead, this, &TlsClientSocket::onReadyRead);
    connect(m_socket, &QSslSocket::encryptedBytesWritten, this, &TlsClientSocket::onEncryptedBytesWritten);
    connect(m_socket, &QSslSocket::errorOccurred, this, &TlsClientSocket::onError);
    connect(m_socket, &QSslSocket::disconnected, this, &TlsClientSocket::finishClose);
    m_handshakeTimer.setSingleShot(true);
    connect(&m_handshakeTimer, &QTimer::timeout, this, &TlsClientSocket::onHandshakeTimeout);
    m_handshakeTimer.start(handshakeTimeoutMs);
    m_linger.setSingleShot(true);
    connect(&m_linger, &QTimer::timeout, this, &TlsClientSocket::abort);
    m_socket->startServerEncryption();
}

TlsClientSocket::~TlsClientSocket()
{
    // The QSslSocket is a child: its own destructor closes the descriptor. Nothing is signalled.
    disconnect(m_socket, nullptr, this, nullptr);
}

qint64 TlsClientSocket::readInto(QByteArray &buffer, qint64 maxBytes)
{
    if (m_closed || m_closing)
        return -1;
    if (!m_encrypted)
        return 0;
    const qint64 available = qMin(m_socket->bytesAvailable(), maxBytes);
    if (available <= 0) {
        if (m_socket->state() != QAbstractSocket::ConnectedState) {
            finishClose();
            return -1;
        }
        return 0;
    }
    const qsizetype before = buffer.size();
    buffer.resize(before + qsizetype(available));
    const qint64 got = m_socket->read(buffer.data() + before, available);
    buffer.resize(before + qsizetype(qMax<qint64>(got, 0)));
    if (got < 0) {
        finishClose();
        return -1;
    }
    return got;
}

void TlsClientSocket::write(const QByteArray &data)
{
    if (m_closed || m_closing)
        return;
    const bool outputWaited = pendingOutput() > 0;
    m_writing = true;
    m_socket->write(data); // before the handshake is done, QSslSocket keeps it until then
    // QSslSocket encrypts on a queued call and its TCP socket sends on the next write
    // notification: two more trips through the event loop per response. flush() encrypts and
    // hands the record to the kernel now; it also reads and decrypts what has arrived, and
    // signals both at once, which the guard is told of later (scheduleNotice).
    if (m_encrypted)
        m_socket->flush();
    m_writing = false;
    // Output that went to the kernel at once never waited for the peer: as with plain TCP,
    // nothing is signalled (a notice per response would cost a pass of the event loop and a
    // wake-up). Output that waited before, or waits now, is signalled as it moves.
    if (std::exchange(m_outputNoticePending, false) && (outputWaited || pendingOutput() > 0)) {
        m_outputNoticePending = true;
        scheduleNotice();
    }
}

qint64 TlsClientSocket::pendingOutput() const
{
    return m_closed ? 0 : m_socket->bytesToWrite() + m_socket->encryptedBytesToWrite();
}

void TlsClientSocket::setReadingPaused(bool paused)
{
    const bool resumed = m_paused && !paused;
    m_paused = paused;
    if (resumed && m_encrypted && m_socket->bytesAvailable() > 0)
        scheduleNotice();
}

void TlsClientSocket::closeGracefully()
{
    if (m_closed || m_closing)
        return;
    m_closing = true;
    m_linger.start(LingerMs);
    // Pending output first, then close_notify; disconnected() follows. During the handshake what
    // was written (a refusal's 503) can only go once it is done: the close waits for it.
    if (m_encrypted)
        m_socket->disconnectFromHost();
}

void TlsClientSocket::abort()
{
    if (m_closed)
        return;
    m_socket->abort();
    finishClose();
}

void TlsClientSocket::onEncrypted()
{
    m_encrypted = true;
    m_handshakeTimer.stop();
    if (m_closing) {
        m_socket->disconnectFromHost();
        return;
    }
    if (m_socket->bytesAvailable() > 0)
        onReadyRead();
}

void TlsClientSocket::onReadyRead()
{
    if (m_closing) {
        m_socket->skip(m_socket->bytesAvailable()); // lingering: read and discard
        return;
    }
    if (!m_encrypted || m_paused)
        return; // resuming signals what is still unread
    if (m_writing) {
        scheduleNotice();
        return;
    }
    Q_EMIT readable();
}

void TlsClientSocket::onEncryptedBytesWritten()
{
    if (m_closed || m_closing)
        return;
    if (m_writing) {
        m_outputNoticePending = true; // write() decides whether the guard hears of it
        return;
    }
    if (pendingOutput() == 0)
        Q_EMIT outputDrained();
    else
        Q_EMIT outputProgressed();
}

void TlsClientSocket::onError()
{
    if (m_closed)
        return;
    if (!m_encrypted) {
        m_handshakeTimer.stop();
        Q_EMIT handshakeFailed(m_socket->errorString(), false);
    }
    // A peer that closes after its last request is an error here too (RemoteHostClosedError).
    m_socket->abort();
    finishClose();
}

void TlsClientSocket::onHandshakeTimeout()
{
    if (m_closed || m_encrypted)
        return;
    Q_EMIT handshakeFailed(QStringLiteral("no TLS handshake within the handshake timeout"), true);
    abort();
}

void TlsClientSocket::scheduleNotice()
{
    if (m_noticeScheduled)
        return;
    m_noticeScheduled = true;
    QMetaObject::invokeMethod(this, &TlsClientSocket::deliverNotice, Qt::QueuedConnection);
}

void TlsClientSocket::deliverNotice()
{
    m_noticeScheduled = false;
    if (std::exchange(m_outputNoticePending, false))
        onEncryptedBytesWritten();
    if (!m_closed && !m_closing && m_encrypted && !m_paused && m_socket->bytesAvailable() > 0)
        Q_EMIT readable();
}

void TlsClientSocket::finishClose()
{
    if (m_closed)
        return;
    m_closed = true;
    m_handshakeTimer.stop();
    m_linger.stop();
    Q_EMIT closed();
}

} // namespace Broker::Rest
