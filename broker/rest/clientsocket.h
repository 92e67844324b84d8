// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "clientstream.h"

#include <QTimer>

class QSocketNotifier;

namespace Broker::Rest {

// Makes an accepted socket non-blocking with Nagle off, and reads whom it is connected to.
void prepareClientSocket(int fd, QHostAddress &peerAddress, quint16 &peerPort);

enum class InputState { None, Waiting, Ended }; // Ended: the peer closed or the connection failed
// Reads and drops what has arrived (a closing connection lingers until the peer closes).
InputState discardInput(int fd);
// Whether input waits in the kernel, left there (reading is paused).
InputState peekInput(int fd);

// A client's plain TCP connection, on the bare non-blocking socket: reads go straight into the
// caller's buffer, writes straight to the kernel, and paused reading leaves unread bytes in the
// kernel. QTcpSocket would copy every request through ring buffers of 16-32 KiB allocated per
// request. Closing is graceful: pending output first, then a half-close, then lingering (reading
// and discarding) briefly so that the last response is not destroyed by a reset.
class ClientSocket final : public ClientStream
{
    Q_OBJECT
public:
    // Takes ownership of the connected socket `descriptor`.
    explicit ClientSocket(qintptr descriptor, QObject *parent = nullptr);
    ~ClientSocket() override;

    QHostAddress peerAddress() const override { return m_peerAddress; }
    quint16 peerPort() const override { return m_peerPort; }
    bool isOpen() const override { return m_fd >= 0; }
    qint64 readInto(QByteArray &buffer, qint64 maxBytes) override;
    void write(const QByteArray &data) override;
    qint64 pendingOutput() const override { return m_output.size(); }
    void setReadingPaused(bool paused) override;
    void closeGracefully() override;
    void abort() override;

private:
    void onReadable();
    void onWritable();
    void flush();
    void finishClose();

    int m_fd = -1;
    QHostAddress m_peerAddress;
    quint16 m_peerPort = 0;
    QSocketNotifier *m_readNotifier = nullptr;
    QSocketNotifier *m_writeNotifier = nullptr;
    QByteArray m_output;
    QTimer m_linger;
    bool m_paused = false;
    bool m_closing = false;
    bool m_halfClosed = false;
};

} // namespace Broker::Rest
