// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "auththrottle.h"
#include "guardoptions.h"
#include "httpmetrics.h"
#include "restcontext.h"
#include "router.h"
#include "tlsidentity.h"

#include "security/ratelimiter.h"

#include <QAbstractHttpServer>
#include <QHostAddress>
#include <QPointer>

#include <memory>
#include <vector>

namespace Broker::Rest {

class GuardedTcpServer;
class Controller;
class EventsController;

// The REST API on Qt HttpServer: QAbstractHttpServer parses each request (the guarded TCP server
// feeds it one complete request at a time) and this class routes it through request ids, CORS,
// authentication and rate limits to one controller per resource. Lives in the engine's thread.
class RestServer : public QAbstractHttpServer
{
    Q_OBJECT
public:
    explicit RestServer(RestContext context, QObject *parent = nullptr);
    ~RestServer() override;

    // Listens on address:port (0: a free port), over TLS when the options' tls is enabled (its
    // files are read first). Completes with the port, or says why not.
    Result<quint16> listen(const QHostAddress &address, quint16 port);
    // Reads the TLS files again (`options`: the new file names and versions) for the connections
    // accepted from now on; open ones keep what they have. On failure nothing changes and the
    // error says why. Not listening over TLS: an error.
    Result<void> reloadTls(const TlsOptions &options);
    // What is served over TLS now; null for plain HTTP.
    std::shared_ptr<const TlsIdentity> tlsIdentity() const;
    quint16 port() const;
    QHostAddress listenAddress() const; // null while not listening
    // Graceful stop: refuse new connections, finish the requests in progress, then drained().
    void stopAccepting();

    const Router &router() const { return m_router; }
    const HttpMetrics &httpMetrics() const { return m_metrics; }
    int connectionCount() const;
    qint64 refusedConnections() const; // over the connection caps or while stopping
    GuardStats guardStats() const;     // refusals and cut-offs per reason
    qint64 bufferedBytes() const;      // unsent output and unanswered input of all connections
    const EventsController &events() const { return *m_events; }
    const RestContext &context() const { return m_context; }

Q_SIGNALS:
    void drained();

protected:
    bool handleRequest(const QHttpServerRequest &request, QTcpSocket *socket) override;
    void missingHandler(const QHttpServerRequest &request, QTcpSocket *socket) override;

private:
    void dispatch(const ExchangePtr &exchange);
    bool applyCors(const ExchangePtr &exchange);
    bool authenticate(const ExchangePtr &exchange);
    // The user of `key`, from the connection's memo when it holds that key, else checked (and remembered).
    const User *recognise(const ExchangePtr &exchange, QByteArrayView key);
    void refuseThrottled(const ExchangePtr &exchange, const QString &address, const AuthThrottle::Gate &gate);

    RestContext m_context;
    Router m_router;
    HttpMetrics m_metrics;
    AuthThrottle m_authThrottle; // failed authentications, per client address
    RateLimiter m_requests;     // per user, when enabled
    std::vector<std::unique_ptr<Controller>> m_controllers;
    EventsController *m_events = nullptr; // one of m_controllers
    QPointer<GuardedTcpServer> m_tcp;
};

} // namespace Broker::Rest
