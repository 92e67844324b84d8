// SPDX-License-Identifier: GPL-3.0-or-later
#include "requestchannel.h"

#include "connectionquota.h"

#include <cstring>
#include <utility>

namespace Broker::Rest {

RequestChannel::RequestChannel(const QHostAddress &peerAddress, quint16 peerPort, QObject *parent)
    : QTcpSocket(parent), m_clientLabel(ConnectionQuota::clientLabel(peerAddress))
{
    setPeerAddress(peerAddress);
    setPeerPort(peerPort);
    setSocketState(QAbstractSocket::ConnectedState);
    setOpenMode(QIODevice::ReadWrite);
}

RequestChannel::~RequestChannel()
{
    // Leave QAbstractSocket nothing to abort: there is no socket engine behind this channel.
    setSocketState(QAbstractSocket::UnconnectedState);
}

void RequestChannel::load(RequestMeta meta)
{
    Q_ASSERT(m_finished);
    m_base = pos();
    // What QHttpServer needs and no more (see the class comment). It learns no Host: it then
    // names the server 127.0.0.1 in its URL, which nothing here reads; the body is meta's.
    // The target goes without its query and fragment, which Exchange reads from meta: each byte
    // given is one QIODevice::read of one byte in QHttpServer, and one more thing its QUrl parses.
    // (A target that is nothing else goes whole, for QHttpServer to judge as before.)
    const RequestHead &head = meta.head;
    QByteArrayView target = head.target();
    for (qsizetype i = 1; i < target.size(); ++i) {
        if (target[i] == '?' || target[i] == '#') {
            target.truncate(i);
            break;
        }
    }
    QByteArray request;
    request.reserve(head.method().size() + target.size() + 16);
    request.append(head.method()).append(' ').append(target).append(head.minorVersion == 0 ? " HTTP/1.0\r\n\r\n" : " HTTP/1.1\r\n\r\n");
    m_request = std::move(request);
    m_readPos = 0;
    m_meta = std::move(meta);
    ++m_requestNumber;
    m_finished = false;
}

void RequestChannel::deliver()
{
    Q_EMIT readyRead();
}

bool RequestChannel::seek(qint64 position)
{
    // Writing moves QIODevice's position past the request, so any position is accepted; reads
    // from beyond the request find nothing.
    if (position < 0)
        return false;
    m_readPos = qsizetype(qBound<qint64>(0, position - m_base, m_request.size()));
    return QIODevice::seek(position);
}

qint64 RequestChannel::readData(char *data, qint64 maxSize)
{
    const qint64 count = qMin<qint64>(maxSize, m_request.size() - m_readPos);
    if (count > 0) {
        std::memcpy(data, m_request.constData() + m_readPos, size_t(count));
        m_readPos += qsizetype(count);
    }
    return count;
}

qint64 RequestChannel::readLineData(char *data, qint64 maxSize)
{
    // QHttpServer reads the head line by line; QIODevice's default would do it a byte at a time.
    qsizetype count = qsizetype(qMin<qint64>(maxSize, m_request.size() - m_readPos));
    const qsizetype newline = m_request.indexOf('\n', m_readPos);
    if (newline >= 0 && newline - m_readPos + 1 < count)
        count = newline - m_readPos + 1;
    if (count <= 0)
        return 0;
    std::memcpy(data, m_request.constData() + m_readPos, size_t(count));
    m_readPos += count;
    return count;
}

qint64 RequestChannel::writeData(const char *data, qint64 size)
{
    if (m_finished)
        return -1;
    m_response.append(data, qsizetype(size));
    return size;
}

void RequestChannel::finishResponse(bool closeConnection)
{
    if (m_finished)
        return;
    m_finished = true;
    const QByteArray response = std::exchange(m_response, {});
    Q_EMIT responseReady(response, closeConnection);
    if (m_released)
        disconnectFromHost();
}

void RequestChannel::flushPart()
{
    if (m_finished || m_response.isEmpty())
        return;
    Q_EMIT responsePart(std::exchange(m_response, {}));
}

void RequestChannel::markClientGone()
{
    if (m_clientGone)
        return;
    m_clientGone = true;
    Q_EMIT clientLeft();
}

void RequestChannel::release()
{
    m_released = true;
    if (m_finished)
        disconnectFromHost();
}

void RequestChannel::disconnectFromHost()
{
    if (state() == QAbstractSocket::UnconnectedState)
        return;
    if (!m_finished) {
        m_finished = true;
        Q_EMIT abandoned();
    }
    setSocketState(QAbstractSocket::UnconnectedState);
    Q_EMIT stateChanged(QAbstractSocket::UnconnectedState);
    Q_EMIT disconnected();
}

} // namespace Broker::Rest
