// SPDX-License-Identifier: GPL-3.0-or-later
#include "restserver.h"

#include "definitionscontroller.h"
#include "eventscontroller.h"
#include "guardedtcpserver.h"
#include "messageactionscontroller.h"
#include "messagescontroller.h"
#include "operationscontroller.h"
#include "processorscontroller.h"
#include "queuescontroller.h"
#include "requestchannel.h"
#include "userscontroller.h"

#include "security/apikey.h"

#include <QHttpServerResponder>

namespace Broker::Rest {

RestServer::RestServer(RestContext context, QObject *parent)
    : QAbstractHttpServer(parent),
      m_context(std::move(context)),
      m_authThrottle(m_context.clock, m_context.errors,
                     {m_context.options.authFailuresPerMinute, m_context.options.authLogIntervalMs}),
      m_requests(m_context.clock, m_context.options.requestsPerMinute, m_context.options.burst)
{
    m_controllers.push_back(std::make_unique<QueuesController>(m_context, m_router));
    m_controllers.push_back(std::make_unique<MessageActionsController>(m_context, m_router));
    m_controllers.push_back(std::make_unique<MessagesController>(m_context, m_router));
    m_controllers.push_back(std::make_unique<UsersController>(m_context, m_router));
    m_controllers.push_back(std::make_unique<DefinitionsController>(m_context, m_router));
    m_controllers.push_back(std::make_unique<ProcessorsController>(m_context, m_router));
    m_controllers.push_back(std::make_unique<OperationsController>(m_context, m_router, *this));
    auto events = std::make_unique<EventsController>(m_context, m_router);
    m_events = events.get();
    m_controllers.push_back(std::move(events));
}

RestServer::~RestServer() = default;

Result<quint16> RestServer::listen(const QHostAddress &address, quint16 port)
{
    std::shared_ptr<const TlsIdentity> identity;
    if (m_context.options.tls.enabled) {
        Result<TlsIdentity> loaded = loadTlsIdentity(m_context.options.tls);
        if (!loaded)
            return loaded.error();
        identity = std::make_shared<const TlsIdentity>(std::move(loaded.value()));
    }
    auto *tcp = new GuardedTcpServer(m_context.options.guard, this);
    tcp->setTls(std::move(identity), m_context.options.tls.handshakeTimeoutMs);
    if (!tcp->listen(address, port)) {
        const QString reason = tcp->errorString();
        const bool busy = tcp->serverError() == QAbstractSocket::AddressInUseError;
        delete tcp;
        return Error{busy ? ErrorCode::Conflict : ErrorCode::Unavailable,
                     QStringLiteral("cannot listen on %1:%2: %3").arg(address.toString()).arg(port).arg(reason)};
    }
    m_tcp = tcp;
    connect(tcp, &GuardedTcpServer::drained, this, &RestServer::drained);
    bind(tcp);
    return tcp->serverPort();
}

Result<void> RestServer::reloadTls(const TlsOptions &options)
{
    if (!m_tcp || !m_tcp->tls())
        return Error{ErrorCode::InvalidArgument, QStringLiteral("the API does not listen over TLS: restart to turn it on")};
    if (!options.enabled)
        return Error{ErrorCode::InvalidArgument, QStringLiteral("api.tls is off now: restart to serve plain HTTP")};
    Result<TlsIdentity> loaded = loadTlsIdentity(options);
    if (!loaded)
        return loaded.error();
    m_tcp->setTls(std::make_shared<const TlsIdentity>(std::move(loaded.value())), options.handshakeTimeoutMs);
    m_context.options.tls = options;
    return {};
}

std::shared_ptr<const TlsIdentity> RestServer::tlsIdentity() const
{
    return m_tcp ? m_tcp->tls() : nullptr;
}

QHostAddress RestServer::listenAddress() const
{
    return m_tcp ? m_tcp->serverAddress() : QHostAddress();
}

quint16 RestServer::port() const
{
    return m_tcp ? m_tcp->serverPort() : 0;
}

int RestServer::connectionCount() const
{
    return m_tcp ? m_tcp->connectionCount() : 0;
}

qint64 RestServer::refusedConnections() const
{
    return m_tcp ? m_tcp->refusedConnections() : 0;
}

GuardStats RestServer::guardStats() const
{
    return m_tcp ? m_tcp->stats() : GuardStats{};
}

qint64 RestServer::bufferedBytes() const
{
    return m_tcp ? m_tcp->bufferedBytes() : 0;
}

void RestServer::stopAccepting()
{
    m_events->finishAll(); // open streams would hold their connections until the drain times out
    if (m_tcp)
        m_tcp->stopAccepting();
    else
        Q_EMIT drained();
}

bool RestServer::handleRequest(const QHttpServerRequest &request, QTcpSocket *socket)
{
    auto *channel = qobject_cast<RequestChannel *>(socket);
    if (!channel)
        return false; // only the guarded server feeds this one
    auto exchange = std::make_shared<Exchange>(request, channel);
    dispatch(exchange);
    return true;
}

void RestServer::missingHandler(const QHttpServerRequest &request, QTcpSocket *socket)
{
    makeResponder(request, socket).write(QHttpServerResponder::StatusCode::NotFound);
}

bool RestServer::applyCors(const ExchangePtr &exchange)
{
    const QByteArrayView origin = exchange->header("origin");
    if (origin.isEmpty())
        return true;
    const bool allowed = m_context.options.corsOrigins.contains(QString::fromUtf8(origin));
    if (allowed) {
        exchange->addHeader("Access-Control-Allow-Origin", origin.toByteArray());
        exchange->addHeader("Vary", "Origin");
        exchange->addHeader("Access-Control-Expose-Headers", "X-Request-ID, Retry-After");
    }
    if (exchange->method() != QHttpServerRequest::Method::Options)
        return true; // a disallowed origin simply gets no CORS headers: the browser blocks the read
    // Preflight.
    if (!allowed) {
        exchange->sendProblem(403, QStringLiteral("Origin not allowed"));
        return false;
    }
    exchange->addHeader("Access-Control-Allow-Methods", "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS");
    exchange->addHeader("Access-Control-Allow-Headers", "Content-Type, X-API-Key, X-Request-ID");
    exchange->addHeader("Access-Control-Max-Age", "600");
    exchange->sendEmpty(204);
    return false;
}

bool RestServer::authenticate(const ExchangePtr &exchange)
{
    const QByteArrayView key = exchange->header("x-api-key");
    if (key.isEmpty()) {
        exchange->sendProblem(401, QStringLiteral("Unauthorized - Missing API key"),
                              QStringLiteral("Send the key in the X-API-Key header"));
        return false;
    }
    // Per client as the connection caps see them: an IPv6 client is its /64, since it may use
    // any of its 2^64 addresses. Guessing keys costs: failed attempts are limited per client
    // address (see AuthThrottle for which keys are still checked meanwhile).
    const QString address = exchange->clientLabel();
    const AuthThrottle::Gate gate = m_authThrottle.gate(address, key.size());
    if (gate.throttled && !gate.checkKey) {
        refuseThrottled(exchange, address, gate);
        return false;
    }
    const User *user = recognise(exchange, key);
    if (!user) {
        if (gate.throttled) {
            refuseThrottled(exchange, address, gate);
            return false;
        }
        m_authThrottle.failed(address); // records it; the key itself never is
        exchange->sendProblem(401, QStringLiteral("Unauthorized - Invalid API key"));
        return false;
    }
    exchange->user = *user;
    if (m_context.options.rateLimitEnabled) {
        const RateLimiter::Decision decision = m_requests.take(user->id);
        if (!decision.allowed) {
            exchange->addHeader("Retry-After", QByteArray::number((decision.retryAfterMs + 999) / 1000));
            exchange->sendProblem(429, QStringLiteral("Rate limit exceeded"),
                                  QStringLiteral("At most %1 requests per minute").arg(m_context.options.requestsPerMinute));
            return false;
        }
    }
    return true;
}

const User *RestServer::recognise(const ExchangePtr &exchange, QByteArrayView key)
{
    // A key sent again on the connection it last authenticated on is that user again, as long
    // as the directory has not changed since: the SHA-256 and the comparison with every user's
    // hash are made once per connection and key, not per request.
    KeyMemo *memo = exchange->keyMemo();
    if (memo && !memo->key.isEmpty() && ApiKey::constantTimeEquals(memo->key, key)) {
        if (const User *user = m_context.users.reauthenticate(memo->userId, memo->directoryGeneration))
            return user;
    }
    const User *user = m_context.users.authenticate(QString::fromUtf8(key));
    if (memo) {
        if (user)
            *memo = KeyMemo{key.toByteArray(), user->id, m_context.users.generation()};
        else
            *memo = KeyMemo{};
    }
    return user;
}

void RestServer::refuseThrottled(const ExchangePtr &exchange, const QString &address, const AuthThrottle::Gate &gate)
{
    m_authThrottle.refusedWhileThrottled(address);
    exchange->addHeader("Retry-After", QByteArray::number(gate.retryAfterSeconds));
    exchange->sendProblem(429, QStringLiteral("Too many failed authentication attempts"),
                          QStringLiteral("Try again in %1 s").arg(gate.retryAfterSeconds));
}

void RestServer::dispatch(const ExchangePtr &exchange)
{
    exchange->onAnswered = [this](const Exchange &answered) {
        m_metrics.record(Router::methodName(answered.method()), answered.route, answered.status(), answered.elapsedNs());
    };
    if (!applyCors(exchange))
        return;

    const Router::Match match = m_router.match(exchange->method(), exchange->path());
    if (!match.route) {
        exchange->route = QStringLiteral("unmatched");
        if (match.allowed.isEmpty())
            return exchange->sendProblem(404, QStringLiteral("Not found"),
                                         QStringLiteral("No endpoint at %1").arg(exchange->path()));
        exchange->addHeader("Allow", match.allowed.join(QStringLiteral(", ")).toLatin1());
        return exchange->sendProblem(405, QStringLiteral("Method not allowed"),
                                     QStringLiteral("Allowed: %1").arg(match.allowed.join(QStringLiteral(", "))));
    }
    exchange->route = match.route->pattern;
    exchange->params = match.params;

    // A key in the URL ends up in logs and browser history: refuse it rather than use it, in
    // whatever case and encoding its name is spelt.
    static const QStringList KeyParameters{QStringLiteral("api_key"), QStringLiteral("apikey"), QStringLiteral("api-key"),
                                           QStringLiteral("key"), QStringLiteral("x-api-key")};
    if (exchange->query().hasNameAmong(KeyParameters))
        return exchange->sendProblem(400, QStringLiteral("API key in the query string is not accepted"),
                                     QStringLiteral("Send the key in the X-API-Key header"));
    // A key sent to an open route (/health) is checked like any other, so that it can unlock
    // detail there and cannot be tried out without the failed-attempt throttle.
    const bool keySent = !exchange->header("x-api-key").isEmpty();
    if ((match.route->authenticated || keySent) && !authenticate(exchange))
        return;
    match.route->handler(exchange);
}

} // namespace Broker::Rest
