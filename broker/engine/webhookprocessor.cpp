// SPDX-License-Identifier: GPL-3.0-or-later
#include "webhookprocessor.h"

#include "core/messagejson.h"
#include "errors/webhooksigning.h"

#include <QMetaEnum>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QTimer>

namespace Broker {

namespace {

// The lease outlasts the POST's deadline by this much, so that the outcome is in before the
// message could be delivered to anybody else.
constexpr qint64 LeaseMarginMs = 5000;

// Our words rather than QNetworkReply::errorString(), some of which quote the whole URL (and
// with it a token in its path or query).
QString networkError(QNetworkReply::NetworkError error)
{
    switch (error) {
    case QNetworkReply::ConnectionRefusedError:
        return QStringLiteral("connection refused");
    case QNetworkReply::RemoteHostClosedError:
        return QStringLiteral("connection closed before an answer");
    case QNetworkReply::HostNotFoundError:
        return QStringLiteral("host not found");
    case QNetworkReply::SslHandshakeFailedError:
        return QStringLiteral("TLS handshake failed");
    default:
        return QStringLiteral("network error (%1)")
            .arg(QLatin1StringView(QMetaEnum::fromType<QNetworkReply::NetworkError>().valueToKey(error)));
    }
}

} // namespace

WebhookProcessor::WebhookProcessor(WebhookProcessorOptions options, QObject *parent)
    : QObject(parent), m_options(std::move(options)), m_network(new QNetworkAccessManager(this))
{
}

WebhookProcessor::~WebhookProcessor()
{
    // Abandoned, not reported (AsyncProcessor): their leases bring the messages back.
    const QList<QNetworkReply *> replies = m_pending.keys();
    m_pending.clear();
    for (QNetworkReply *reply : replies) {
        disconnect(reply, nullptr, this, nullptr);
        reply->abort();
        reply->deleteLater();
    }
}

QString WebhookProcessor::target() const
{
    return webhookTarget(m_options.url);
}

qint64 WebhookProcessor::leaseMs() const
{
    return m_options.timeoutMs + LeaseMarginMs;
}

void WebhookProcessor::process(const Message &message, ProcessorDone done)
{
    const QByteArray body = messageJson(message);
    QNetworkRequest request(m_options.url);
    for (const auto &[name, value] : m_options.headers)
        request.setRawHeader(name, value);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    request.setHeader(QNetworkRequest::UserAgentHeader, QByteArrayLiteral("BrokerDesk-Processor"));
    request.setRawHeader("X-BrokerDesk-Queue", message.queue.toUtf8());
    request.setRawHeader("X-BrokerDesk-Message-Id", message.id.toUtf8());
    request.setRawHeader("X-BrokerDesk-Delivery-Count", QByteArray::number(message.deliveryCount));
    if (!m_options.secret.isEmpty())
        request.setRawHeader(WebhookSignatureHeader, webhookSignature(m_options.secret, body));
    // A redirect is an answer that is not 2xx: following it could hand the message (and the
    // signature) to another host.
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    QNetworkReply *reply = m_network->post(request, body);
    m_pending.insert(reply, Pending{std::move(done), false});
    connect(reply, &QNetworkReply::finished, this, [this, reply] { finish(reply); });
    // Our own deadline rather than QNetworkRequest's transfer timeout: it covers connecting too.
    auto *deadline = new QTimer(reply);
    deadline->setSingleShot(true);
    connect(deadline, &QTimer::timeout, this, [this, reply] {
        if (const auto pending = m_pending.find(reply); pending != m_pending.end()) {
            pending->timedOut = true;
            reply->abort(); // finished() follows
        }
    });
    deadline->start(m_options.timeoutMs);
}

void WebhookProcessor::finish(QNetworkReply *reply)
{
    const auto pending = m_pending.find(reply);
    if (pending == m_pending.end())
        return;
    const Pending finished = std::move(pending.value());
    m_pending.erase(pending);
    reply->deleteLater();
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (!finished.timedOut && status >= 200 && status < 300)
        return finished.done(ProcessorOutcome::ack());
    QString error;
    if (finished.timedOut)
        error = QStringLiteral("timed out after %1 ms").arg(m_options.timeoutMs);
    else if (status > 0)
        error = QStringLiteral("HTTP %1").arg(status);
    else
        error = networkError(reply->error());
    finished.done(ProcessorOutcome::nack(error));
}

} // namespace Broker
