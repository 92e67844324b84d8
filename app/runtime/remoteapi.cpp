// SPDX-License-Identifier: GPL-3.0-or-later
// RemoteApi's transport: the queue of calls, the requests, deadlines and what a reply means. The
// commands themselves are in remoteapicommands.cpp.
#include "remoteapi.h"

#include "apijson.h"

#include <QJsonDocument>
#include <QNetworkReply>
#include <QSslConfiguration>
#include <QSslError>
#include <QTimer>

#include <algorithm>
#include <utility>

namespace Broker {

struct RemoteApi::Pending
{
    Request request;
    Delivery deliver;
    QTimer deadline;              // from the call: waiting and in flight together
    QNetworkReply *reply = nullptr; // while in flight; owned by the network manager
    QString tlsProblem;           // why the certificate was refused, when it was
    bool sent = false;
};

namespace {

// What an unanswered connection failure means, in words for the person at the desktop.
QString networkReason(const QNetworkReply *reply, const QString &tlsProblem)
{
    switch (reply->error()) {
    case QNetworkReply::ConnectionRefusedError: return QStringLiteral("connection refused");
    case QNetworkReply::HostNotFoundError: return QStringLiteral("host not found");
    case QNetworkReply::RemoteHostClosedError: return QStringLiteral("the connection was closed before the broker answered");
    case QNetworkReply::SslHandshakeFailedError:
        return tlsProblem.isEmpty() ? QStringLiteral("TLS handshake failed: %1").arg(reply->errorString())
                                    : QStringLiteral("TLS handshake failed: %1").arg(tlsProblem);
    default: return reply->errorString();
    }
}

} // namespace

RemoteApi::RemoteApi(RemoteEndpoint endpoint, QObject *parent) : QObject(parent), m_endpoint(std::move(endpoint))
{
    // A redirect would carry X-API-Key to wherever it points.
    m_network.setRedirectPolicy(QNetworkRequest::ManualRedirectPolicy);
}

RemoteApi::~RemoteApi()
{
    // Every future gets its answer now; no reply reaches this object afterwards. A continuation
    // that calls a command meanwhile gets an error at once (m_closing).
    m_closing = true;
    std::list<std::unique_ptr<Pending>> outstanding = std::exchange(m_inFlight, {});
    outstanding.splice(outstanding.end(), m_waiting);
    for (const std::unique_ptr<Pending> &pending : outstanding) {
        pending->deadline.stop();
        if (QNetworkReply *reply = std::exchange(pending->reply, nullptr)) {
            disconnect(reply, nullptr, this, nullptr);
            reply->abort();
        }
    }
    for (const std::unique_ptr<Pending> &pending : outstanding) {
        Error closed{ErrorCode::Unavailable,
                     QStringLiteral("The request to the broker at %1 was cancelled: the connection was closed").arg(where())};
        if (pending->sent && pending->request.verb != "GET")
            closed.detail = QStringLiteral("The request was sent; whether the broker carried it out is not known");
        pending->deliver(std::move(closed));
    }
}

void RemoteApi::setDeadlineMs(int ms)
{
    m_deadlineMs = qMax(1, ms);
}

QString RemoteApi::where() const
{
    return m_endpoint.url.toString(QUrl::RemoveUserInfo | QUrl::StripTrailingSlash);
}

QString RemoteApi::withoutKey(QString text) const
{
    // The broker never echoes a key and Qt's texts name the URL, not headers; this makes sure.
    if (!m_endpoint.apiKey.isEmpty())
        text.replace(QString::fromUtf8(m_endpoint.apiKey), QStringLiteral("[API key]"));
    return text;
}

void RemoteApi::enqueue(Request request, Delivery deliver)
{
    if (m_closing) {
        deliver(Error{ErrorCode::Unavailable, QStringLiteral("The connection to the broker at %1 is closing").arg(where())});
        return;
    }
    auto pending = std::make_unique<Pending>();
    pending->request = std::move(request);
    pending->deliver = std::move(deliver);
    pending->deadline.setSingleShot(true);
    pending->deadline.setTimerType(Qt::PreciseTimer); // a coarse timer may fire 5 % early
    Pending *raw = pending.get();
    connect(&pending->deadline, &QTimer::timeout, this, [this, raw] { expired(raw); });
    pending->deadline.start(m_deadlineMs);
    m_waiting.push_back(std::move(pending));
    pump();
}

void RemoteApi::pump()
{
    while (!m_closing && int(m_inFlight.size()) < MaxInFlight && !m_waiting.empty()) {
        m_inFlight.splice(m_inFlight.end(), m_waiting, m_waiting.begin());
        send(m_inFlight.back().get());
    }
}

void RemoteApi::send(Pending *pending)
{
    const Request &request = pending->request;
    QUrl url = m_endpoint.url;
    QString base = url.path(QUrl::FullyEncoded);
    if (base.endsWith(u'/'))
        base.chop(1);
    // Tolerant: the path and query are percent-encoded already, and stay so.
    url.setPath(base + request.path, QUrl::TolerantMode);
    if (!request.query.isEmpty())
        url.setQuery(request.query, QUrl::TolerantMode);
    QNetworkRequest http(url);
    http.setRawHeader("X-API-Key", m_endpoint.apiKey);
    http.setHeader(QNetworkRequest::UserAgentHeader, QStringLiteral("brokerdesk"));
    if (!request.body.isEmpty())
        http.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    if (url.scheme() == u"https") {
        QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
        if (!m_endpoint.caCertificates.isEmpty())
            tls.setCaCertificates(m_endpoint.caCertificates); // these alone, not the system's too
        http.setSslConfiguration(tls);
    }
    QNetworkReply *reply = m_network.sendCustomRequest(http, request.verb, request.body);
    pending->reply = reply;
    pending->sent = true;
    connect(reply, &QNetworkReply::sslErrors, this, [pending](const QList<QSslError> &errors) {
        QStringList texts;
        for (const QSslError &error : errors)
            texts.append(error.errorString());
        pending->tlsProblem = texts.join(QStringLiteral("; "));
    });
    connect(reply, &QNetworkReply::finished, this, [this, pending] { replied(pending); });
}

std::unique_ptr<RemoteApi::Pending> RemoteApi::take(Pending *pending)
{
    for (std::list<std::unique_ptr<Pending>> *list : {&m_inFlight, &m_waiting}) {
        const auto it = std::find_if(list->begin(), list->end(), [pending](const auto &p) { return p.get() == pending; });
        if (it != list->end()) {
            std::unique_ptr<Pending> owned = std::move(*it);
            list->erase(it);
            owned->deadline.stop();
            return owned;
        }
    }
    return nullptr;
}

void RemoteApi::replied(Pending *pending)
{
    std::unique_ptr<Pending> owned = take(pending);
    if (!owned)
        return;
    QNetworkReply *reply = std::exchange(owned->reply, nullptr);
    Result<Answer> result = outcome(reply, *owned);
    reply->deleteLater();
    pump();
    // Last: a continuation run from here may call commands, or even delete this object.
    owned->deliver(std::move(result));
}

void RemoteApi::expired(Pending *pending)
{
    std::unique_ptr<Pending> owned = take(pending);
    if (!owned)
        return;
    const QString seconds = QString::number(m_deadlineMs / 1000.0);
    Error error{ErrorCode::Timeout, QStringLiteral("The broker at %1 did not answer within %2 s").arg(where(), seconds)};
    if (QNetworkReply *reply = std::exchange(owned->reply, nullptr)) {
        disconnect(reply, nullptr, this, nullptr);
        reply->abort();
        reply->deleteLater();
        // The broker may have done what was asked: a change is worth checking before it is repeated.
        if (owned->request.verb != "GET")
            error.detail = QStringLiteral("The request was sent; whether the broker carried it out is not known");
    } else {
        error.message = QStringLiteral("The request was not sent: the broker at %1 did not answer %2 earlier requests within %3 s")
                            .arg(where())
                            .arg(m_inFlight.size())
                            .arg(seconds);
    }
    pump();
    owned->deliver(std::move(error));
}

Result<RemoteApi::Answer> RemoteApi::outcome(QNetworkReply *reply, const Pending &pending) const
{
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (status == 0) {
        return Error{ErrorCode::Unavailable,
                     withoutKey(QStringLiteral("broker at %1 not reachable: %2").arg(where(), networkReason(reply, pending.tlsProblem)))};
    }
    const QByteArray body = reply->readAll();
    const QJsonObject json = QJsonDocument::fromJson(body).object();
    if (status >= 300 && status < 400) {
        const QString target = reply->header(QNetworkRequest::LocationHeader).toUrl().toString(QUrl::RemoveUserInfo);
        return Error{ErrorCode::Unavailable,
                     withoutKey(QStringLiteral("The broker at %1 redirects to %2; redirects are not followed").arg(where(), target))};
    }
    if (status >= 400) {
        Error error = ApiJson::error(status, json, pending.request.notFound);
        error.message = withoutKey(error.message);
        error.detail = withoutKey(error.detail);
        return error;
    }
    if (json.isEmpty() && !body.trimmed().startsWith('{'))
        return Error{ErrorCode::Internal, QStringLiteral("The broker at %1 answered HTTP %2 without the JSON object of its API")
                                              .arg(where())
                                              .arg(status)};
    return Answer{body, json};
}

} // namespace Broker
