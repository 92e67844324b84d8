// SPDX-License-Identifier: GPL-3.0-or-later
#include "tlsclientsocket.h"

#include "clientsocket.h"
#include "tlsservercontext.h"

#include <QSocketNotifier>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <climits>
#include <sys/socket.h>
#include <unistd.h>

namespace Broker::Rest {

namespace {
// How long a closing connection may keep sending before it is cut off (as for plain TCP).
constexpr int LingerMs = 2000;
} // namespace

TlsClientSocket::TlsClientSocket(qintptr descriptor, std::shared_ptr<const TlsServerContext> context,
                                 int handshakeTimeoutMs, QObject *parent)
    : ClientStream(parent), m_fd(int(descriptor)), m_context(std::move(context))
{
    prepareClientSocket(m_fd, m_peerAddress, m_peerPort);
    m_ssl = m_context->newConnection(m_fd);
    m_readNotifier = new QSocketNotifier(m_fd, QSocketNotifier::Read, this);
    m_writeNotifier = new QSocketNotifier(m_fd, QSocketNotifier::Write, this);
    m_writeNotifier->setEnabled(false);
    connect(m_readNotifier, &QSocketNotifier::activated, this, &TlsClientSocket::onReadable);
    connect(m_writeNotifier, &QSocketNotifier::activated, this, &TlsClientSocket::onWritable);
    m_handshakeTimer.setSingleShot(true);
    connect(&m_handshakeTimer, &QTimer::timeout, this, &TlsClientSocket::onHandshakeTimeout);
    m_linger.setSingleShot(true);
    connect(&m_linger, &QTimer::timeout, this, &TlsClientSocket::finishClose);
    if (!m_ssl) {
        m_readNotifier->setEnabled(false);
        QMetaObject::invokeMethod(this, [this] {
            Q_EMIT handshakeFailed(takeTlsError("OpenSSL cannot make a connection"), false);
            finishClose();
        }, Qt::QueuedConnection);
        return;
    }
    m_handshakeTimer.start(handshakeTimeoutMs);
}

TlsClientSocket::~TlsClientSocket()
{
    if (m_ssl)
        SSL_free(m_ssl);
    if (m_fd >= 0)
        ::close(m_fd);
}

qint64 TlsClientSocket::readInto(QByteArray &buffer, qint64 maxBytes)
{
    if (m_fd < 0 || m_closing)
        return -1;
    if (!m_encrypted || m_readWantsWrite)
        return 0;
    const qsizetype before = buffer.size();
    const int want = int(qMin<qint64>(maxBytes, INT_MAX));
    buffer.resize(before + want);
    ERR_clear_error();
    const int got = SSL_read(m_ssl, buffer.data() + before, want);
    buffer.resize(before + qMax(got, 0));
    if (got > 0)
        return got;
    switch (SSL_get_error(m_ssl, got)) {
    case SSL_ERROR_WANT_READ:
        return 0;
    case SSL_ERROR_WANT_WRITE: // a key update to answer first: on with it once the socket takes it
        m_readWantsWrite = true;
        m_readNotifier->setEnabled(false); // readInto could not take more until then
        m_writeNotifier->setEnabled(true);
        return 0;
    default: // close_notify, a reset, or a record that does not decrypt
        ERR_clear_error();
        finishClose();
        return -1;
    }
}

void TlsClientSocket::write(const QByteArray &data)
{
    if (m_fd < 0 || m_halfClosed)
        return;
    m_output += data;
    if (m_encrypted)
        flush(); // before the handshake is done, it waits for it
}

void TlsClientSocket::flush()
{
    m_writeWantsRead = false;
    while (!m_output.isEmpty()) {
        ERR_clear_error();
        const int sent = SSL_write(m_ssl, m_output.constData(), int(qMin<qsizetype>(m_output.size(), INT_MAX)));
        if (sent > 0) {
            m_output.remove(0, sent);
            continue;
        }
        switch (SSL_get_error(m_ssl, sent)) {
        case SSL_ERROR_WANT_WRITE:
            m_writeNotifier->setEnabled(true);
            return;
        case SSL_ERROR_WANT_READ:
            m_writeWantsRead = true; // onReadable tries again, paused or not
            m_readNotifier->setEnabled(true);
            return;
        default:
            ERR_clear_error();
            finishClose();
            return;
        }
    }
    if (!m_readWantsWrite)
        m_writeNotifier->setEnabled(false);
    if (m_closing && !m_halfClosed)
        sendCloseNotify();
}

void TlsClientSocket::sendCloseNotify()
{
    ERR_clear_error();
    SSL_shutdown(m_ssl); // close_notify; the peer's own is not waited for
    ERR_clear_error();
    ::shutdown(m_fd, SHUT_WR);
    m_halfClosed = true;
    m_writeNotifier->setEnabled(false);
    m_readNotifier->setEnabled(true); // linger: read and discard until the peer closes
}

void TlsClientSocket::handshake()
{
    ERR_clear_error();
    const int done = SSL_do_handshake(m_ssl);
    if (done == 1) {
        m_encrypted = true;
        m_handshakeTimer.stop();
        m_writeNotifier->setEnabled(false);
        if (!m_output.isEmpty() || m_closing)
            flush(); // a refusal written during the handshake, and its close
        if (m_fd < 0)
            return;
        // The client's first request may have come with its last handshake message, and been
        // read ahead with it: no notifier will see it.
        if (!m_closing && !m_paused)
            Q_EMIT readable();
        return;
    }
    switch (SSL_get_error(m_ssl, done)) {
    case SSL_ERROR_WANT_READ:
        m_writeNotifier->setEnabled(false);
        return;
    case SSL_ERROR_WANT_WRITE:
        m_writeNotifier->setEnabled(true);
        return;
    default: {
        const QString reason = takeTlsError("the client closed the connection during the TLS handshake");
        m_handshakeTimer.stop();
        Q_EMIT handshakeFailed(reason, false);
        finishClose();
    }
    }
}

void TlsClientSocket::onReadable()
{
    if (m_fd < 0)
        return;
    if (!m_encrypted) {
        handshake(); // a refusal waiting to be sent needs it finished too
        return;
    }
    if (m_closing) { // the output goes first; meanwhile (and lingering after it) input is dropped
        if (discardInput(m_fd) == InputState::Ended)
            finishClose();
        return;
    }
    if (m_writeWantsRead) {
        flushAndReport();
        if (m_fd < 0)
            return;
    }
    if (m_paused) {
        // Data waits in the kernel; only a closed connection is of interest now.
        const InputState state = peekInput(m_fd);
        if (state == InputState::Ended)
            finishClose();
        else if (state == InputState::Waiting && !m_writeWantsRead)
            m_readNotifier->setEnabled(false); // until reading resumes
        return;
    }
    Q_EMIT readable();
}

void TlsClientSocket::onWritable()
{
    if (m_fd < 0)
        return;
    if (!m_encrypted) {
        handshake();
        return;
    }
    if (m_readWantsWrite) {
        m_readWantsWrite = false;
        m_readNotifier->setEnabled(true);
        if (m_output.isEmpty())
            m_writeNotifier->setEnabled(false);
        scheduleNotice(); // SSL_read can go on (and sends what it had to)
    }
    flushAndReport();
}

void TlsClientSocket::flushAndReport()
{
    const qsizetype before = m_output.size();
    flush();
    if (m_fd < 0 || m_closing || before == 0)
        return;
    if (m_output.isEmpty())
        Q_EMIT outputDrained();
    else if (m_output.size() < before)
        Q_EMIT outputProgressed();
}

void TlsClientSocket::setReadingPaused(bool paused)
{
    const bool resumed = m_paused && !paused;
    m_paused = paused;
    if (!resumed || m_fd < 0 || m_closing)
        return;
    if (!m_readNotifier->isEnabled())
        m_readNotifier->setEnabled(true);
    if (m_encrypted && inputHeld())
        scheduleNotice();
}

bool TlsClientSocket::inputHeld() const
{
    return SSL_has_pending(m_ssl) == 1;
}

void TlsClientSocket::closeGracefully()
{
    if (m_fd < 0 || m_closing)
        return;
    if (!m_encrypted && m_output.isEmpty()) {
        finishClose(); // nothing to send, no session to end
        return;
    }
    m_closing = true;
    m_linger.start(LingerMs);
    // Pending output first, then close_notify and a half-close. During the handshake what was
    // written (a refusal's 503) can only go once it is done: the close waits for it.
    if (m_encrypted)
        flush();
}

void TlsClientSocket::abort()
{
    finishClose();
}

void TlsClientSocket::onHandshakeTimeout()
{
    if (m_fd < 0 || m_encrypted)
        return;
    Q_EMIT handshakeFailed(QStringLiteral("no TLS handshake within the handshake timeout"), true);
    finishClose();
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
    if (m_fd >= 0 && !m_closing && m_encrypted && !m_paused)
        Q_EMIT readable();
}

void TlsClientSocket::finishClose()
{
    if (m_fd < 0)
        return;
    m_handshakeTimer.stop();
    m_linger.stop();
    delete m_readNotifier;
    delete m_writeNotifier;
    m_readNotifier = m_writeNotifier = nullptr;
    if (m_ssl) {
        SSL_free(m_ssl);
        m_ssl = nullptr;
    }
    ::close(m_fd);
    m_fd = -1;
    m_output.clear();
    Q_EMIT closed();
}

} // namespace Broker::Rest
