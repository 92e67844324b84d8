// SPDX-License-Identifier: GPL-3.0-or-later
#include "clientsocket.h"

#include <QSocketNotifier>

#include <cerrno>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

namespace Broker::Rest {

namespace {
// How long a closing connection may keep sending before it is cut off.
constexpr int LingerMs = 2000;

InputState stateAfter(ssize_t got)
{
    if (got > 0)
        return InputState::Waiting;
    if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return InputState::None;
    return InputState::Ended; // 0: the peer closed; < 0: the connection failed
}
} // namespace

InputState discardInput(int fd)
{
    char sink[16 * 1024];
    return stateAfter(::recv(fd, sink, sizeof sink, 0));
}

InputState peekInput(int fd)
{
    char probe;
    return stateAfter(::recv(fd, &probe, 1, MSG_PEEK));
}

void prepareClientSocket(int fd, QHostAddress &peerAddress, quint16 &peerPort)
{
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    sockaddr_storage address{};
    socklen_t length = sizeof address;
    if (::getpeername(fd, reinterpret_cast<sockaddr *>(&address), &length) == 0) {
        peerAddress.setAddress(reinterpret_cast<const sockaddr *>(&address));
        if (address.ss_family == AF_INET)
            peerPort = ntohs(reinterpret_cast<const sockaddr_in *>(&address)->sin_port);
        else if (address.ss_family == AF_INET6)
            peerPort = ntohs(reinterpret_cast<const sockaddr_in6 *>(&address)->sin6_port);
    }
}

ClientSocket::ClientSocket(qintptr descriptor, QObject *parent) : ClientStream(parent), m_fd(int(descriptor))
{
    prepareClientSocket(m_fd, m_peerAddress, m_peerPort);
    m_readNotifier = new QSocketNotifier(m_fd, QSocketNotifier::Read, this);
    m_writeNotifier = new QSocketNotifier(m_fd, QSocketNotifier::Write, this);
    m_writeNotifier->setEnabled(false);
    connect(m_readNotifier, &QSocketNotifier::activated, this, &ClientSocket::onReadable);
    connect(m_writeNotifier, &QSocketNotifier::activated, this, &ClientSocket::onWritable);
    m_linger.setSingleShot(true);
    connect(&m_linger, &QTimer::timeout, this, &ClientSocket::finishClose);
}

ClientSocket::~ClientSocket()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

qint64 ClientSocket::readInto(QByteArray &buffer, qint64 maxBytes)
{
    if (m_fd < 0 || m_closing)
        return -1;
    const qsizetype before = buffer.size();
    buffer.resize(before + qsizetype(maxBytes));
    const ssize_t got = ::recv(m_fd, buffer.data() + before, size_t(maxBytes), 0);
    buffer.resize(before + qsizetype(qMax<ssize_t>(got, 0)));
    switch (stateAfter(got)) {
    case InputState::Waiting: return got;
    case InputState::None: return 0;
    case InputState::Ended: break;
    }
    finishClose();
    return -1;
}

void ClientSocket::onReadable()
{
    if (m_fd < 0)
        return;
    if (m_closing) { // lingering: read and discard until the peer closes
        if (discardInput(m_fd) == InputState::Ended)
            finishClose();
        return;
    }
    if (m_paused) {
        // Data waits in the kernel; only a closed connection is of interest now.
        const InputState state = peekInput(m_fd);
        if (state == InputState::Ended)
            finishClose();
        else if (state == InputState::Waiting)
            m_readNotifier->setEnabled(false); // until reading resumes
        return;
    }
    Q_EMIT readable();
}

void ClientSocket::setReadingPaused(bool paused)
{
    // The notifier is only switched off when data arrives while paused (see onReadable): switching
    // it for every request would re-register it with the event dispatcher each time.
    m_paused = paused;
    if (!paused && m_fd >= 0 && !m_closing && !m_readNotifier->isEnabled())
        m_readNotifier->setEnabled(true);
}

void ClientSocket::write(const QByteArray &data)
{
    if (m_fd < 0 || m_halfClosed)
        return;
    m_output += data;
    flush();
}

void ClientSocket::flush()
{
    while (!m_output.isEmpty()) {
        const ssize_t sent = ::send(m_fd, m_output.constData(), size_t(m_output.size()), MSG_NOSIGNAL);
        if (sent > 0) {
            m_output.remove(0, qsizetype(sent));
            continue;
        }
        if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            m_writeNotifier->setEnabled(true);
            return;
        }
        if (sent < 0 && errno == EINTR)
            continue;
        finishClose();
        return;
    }
    m_writeNotifier->setEnabled(false);
    if (m_closing && !m_halfClosed) {
        ::shutdown(m_fd, SHUT_WR);
        m_halfClosed = true;
        m_readNotifier->setEnabled(true);
    }
}

void ClientSocket::onWritable()
{
    if (m_fd < 0)
        return;
    const qsizetype before = m_output.size();
    flush();
    if (m_fd < 0 || m_closing)
        return;
    if (m_output.isEmpty())
        Q_EMIT outputDrained();
    else if (m_output.size() < before)
        Q_EMIT outputProgressed();
}

void ClientSocket::abort()
{
    finishClose();
}

void ClientSocket::closeGracefully()
{
    if (m_fd < 0 || m_closing)
        return;
    m_closing = true;
    m_linger.start(LingerMs);
    flush();
}

void ClientSocket::finishClose()
{
    if (m_fd < 0)
        return;
    m_linger.stop();
    delete m_readNotifier;
    delete m_writeNotifier;
    m_readNotifier = m_writeNotifier = nullptr;
    ::close(m_fd);
    m_fd = -1;
    m_output.clear();
    Q_EMIT closed();
}

} // namespace Broker::Rest
