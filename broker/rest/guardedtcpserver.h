// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "connectionquota.h"
#include "guardoptions.h"
#include "tlsidentity.h"

#include <QHash>
#include <QTcpServer>

#include <memory>

namespace Broker::Rest {

class ClientStream;
class GuardedConnection;
class RequestChannel;

// The TCP server QHttpServer is bound to. It accepts the real connections itself and puts each
// behind a GuardedConnection that enforces limits and timeouts, answers 100-continue, keeps
// pipelined requests in order and survives clients that go away. What QHttpServer takes from
// this server (nextPendingConnection) are RequestChannels: one complete request each.
// Connections are admitted within ConnectionQuota's caps (the server's and each client's). With a
// TLS identity set, every connection is TLS (TlsClientSocket) and gets the identity current when
// it was accepted: a new one applies to later connections, open ones keep theirs.
class GuardedTcpServer : public QTcpServer
{
    Q_OBJECT
public:
    explicit GuardedTcpServer(const GuardOptions &options, QObject *parent = nullptr);
    ~GuardedTcpServer() override;

    const GuardOptions &options() const { return m_options; }
    int connectionCount() const { return int(m_connections.size()); }
    qint64 refusedConnections() const { return m_stats.refused(); }
    const GuardStats &stats() const { return m_stats; }
    // What all connections hold now: unsent output and received input not yet answered.
    qint64 bufferedBytes() const;
    // Connections count what happened to them here.
    GuardStats &statsForUpdate() { return m_stats; }

    // null: plain HTTP. `handshakeTimeoutMs` bounds each connection's handshake.
    void setTls(std::shared_ptr<const TlsIdentity> identity, int handshakeTimeoutMs);
    const std::shared_ptr<const TlsIdentity> &tls() const { return m_tls; }

    // Hands one request to QHttpServer (called by connections).
    void hand(RequestChannel *channel);
    // Graceful stop: no new connections; idle ones close now, busy ones after their response.
    // drained() follows when the last connection is gone.
    void stopAccepting();

Q_SIGNALS:
    void drained();

protected:
    void incomingConnection(qintptr descriptor) override;

private:
    void forget(GuardedConnection *connection);
    ClientStream *accept(qintptr descriptor);

    GuardOptions m_options;
    ConnectionQuota m_quota;
    QHash<GuardedConnection *, QHostAddress> m_connections; // each with the address it counts for
    GuardStats m_stats;
    std::shared_ptr<const TlsIdentity> m_tls;
    int m_handshakeTimeoutMs = TlsOptions{}.handshakeTimeoutMs;
    // Refused sockets that linger to deliver their 503; beyond the bound they close at once.
    static constexpr int MaxLingeringRefusals = 64;
    int m_lingeringRefusals = 0;
    bool m_stopping = false;
};

} // namespace Broker::Rest
