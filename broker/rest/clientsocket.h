// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QHostAddress>
#include <QObject>
#include <QTimer>

class QSocketNotifier;

namespace Broker::Rest {

// A client's TCP connection as the guard needs it, on the bare non-blocking socket: reads go
// straight into the caller's buffer, writes straight to the kernel, and reading can be paused so
// that unread bytes stay in the kernel (TCP pushes back). QTcpSocket would copy every request
// through ring buffers of 16-32 KiB allocated per request. Closing is graceful: pending output
// first, then a half-close, then lingering (reading and discarding) briefly so that the last
// response is not destroyed by a reset.
class ClientSocket : public QObject
{
    Q_OBJECT
public:
    // Takes ownership of the connected socket `descriptor`.
    explicit ClientSocket(qintptr descriptor, QObject *parent = nullptr);
    ~ClientSocket() override;

    QHostAddress peerAddress() const { return m_peerAddress; }
    quint16 peerPort() const { return m_peerPort; }
    bool isOpen() const { return m_fd >= 0; }

    // Appends up to `maxBytes` of what the kernel holds to `buffer`. Returns the number of bytes
    // read; 0 when there is nothing now; -1 when the peer closed the connection or it failed
    // (closed() follows).
    qint64 readInto(QByteArray &buffer, qint64 maxBytes);
    // Sends what the kernel takes now and keeps the rest until it can take more.
    void write(const QByteArray &data);
    qint64 pendingOutput() const { return m_output.size(); }
    // While paused, readable() is not emitted for data; a peer that closes is still noticed.
    void setReadingPaused(bool paused);
    // Sends what is pending, then closes (see above). closed() follows.
    void closeGracefully();
    // Closes at once and drops what is pending (a peer that does not read). closed() follows.
    void abort();

Q_SIGNALS:
    void readable();
    void closed();
    // Output that had to wait for the peer has all been sent.
    void outputDrained();
    // The peer took some of the output that had to wait for it (more may remain).
    void outputProgressed();

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
