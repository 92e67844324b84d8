// SPDX-License-Identifier: GPL-3.0-or-later
#include "requestchannel.h"

#include <cstring>

namespace Broker::Rest {

RequestChannel::RequestChannel(QByteArray request, RequestMeta meta, QObject *parent)
    : QTcpSocket(parent), m_request(std::move(request)), m_meta(std::move(meta))
{
    m_received.start();
    setPeerAddress(m_meta.peerAddress);
    setPeerPort(m_meta.peerPort);
    setSocketState(QAbstractSocket::ConnectedState);
    setOpenMode(QIODevice::ReadWrite);
}

RequestChannel::~RequestChannel()
{
    // Leave QAbstractSocket nothing to abort: there is no socket engine behind this channel.
    setSocketState(QAbstractSocket::UnconnectedState);
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
    m_readPos = qsizetype(qMin<qint64>(position, m_request.size()));
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
    Q_EMIT responseReady(m_response, closeConnection);
    m_response.clear();
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
