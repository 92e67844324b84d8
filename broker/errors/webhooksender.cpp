// SPDX-License-Identifier: GPL-3.0-or-later
#include "webhooksender.h"

#include "logging.h"
#include "webhooksigning.h"

#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>

#include <algorithm>

namespace Broker {

WebhookSender::WebhookSender(WebhookOptions options, const Clock &clock, QObject *parent)
    : QObject(parent), m_options(std::move(options)), m_clock(clock), m_network(new QNetworkAccessManager(this))
{
    m_status.target = webhookTarget(m_options.url);
    m_retry.setSingleShot(true);
    connect(&m_retry, &QTimer::timeout, this, &WebhookSender::sendNext);
    // Our own deadline rather than QNetworkRequest's transfer timeout: it covers connecting too.
    m_attemptTimeout.setSingleShot(true);
    m_attemptTimeout.setInterval(m_options.timeoutMs);
    connect(&m_attemptTimeout, &QTimer::timeout, this, [this] {
        if (m_reply)
            m_reply->abort(); // finished() follows, as OperationCanceledError
    });
}

WebhookSender::~WebhookSender()
{
    if (m_reply) {
        disconnect(m_reply, nullptr, this, nullptr);
        m_reply->abort();
        m_reply->deleteLater();
    }
}

bool WebhookSender::post(const QByteArray &json)
{
    if (qsizetype(m_queue.size()) >= m_options.maxQueued) {
        ++m_status.dropped;
        Q_EMIT statusChanged();
        return false;
    }
    m_queue.push_back(json);
    if (!m_reply && !m_retry.isActive())
        sendNext();
    return true;
}

WebhookStatus WebhookSender::status() const
{
    WebhookStatus status = m_status;
    status.queued = qint64(m_queue.size());
    return status;
}

QByteArray WebhookSender::signature(const QByteArray &secret, const QByteArray &body)
{
    return webhookSignature(secret, body);
}

void WebhookSender::sendNext()
{
    if (m_queue.empty() || m_reply)
        return;
    QNetworkRequest request(m_options.url);
    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    request.setHeader(QNetworkRequest::UserAgentHeader, QByteArrayLiteral("BrokerDesk-Webhook"));
    if (!m_options.secret.isEmpty())
        request.setRawHeader(WebhookSignatureHeader, webhookSignature(m_options.secret, m_queue.front()));
    request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::ManualRedirectPolicy);
    ++m_attempt;
    m_reply = m_network->post(request, m_queue.front());
    connect(m_reply, &QNetworkReply::finished, this, [this, reply = m_reply] { finishAttempt(reply); });
    m_attemptTimeout.start();
}

void WebhookSender::finishAttempt(QNetworkReply *reply)
{
    m_attemptTimeout.stop();
    m_reply = nullptr;
    reply->deleteLater();
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (reply->error() == QNetworkReply::NoError && status >= 200 && status < 300) {
        m_queue.pop_front();
        m_attempt = 0;
        ++m_status.delivered;
        m_status.failing = false;
        Q_EMIT statusChanged();
        return sendNext();
    }
    QString error;
    if (status > 0)
        error = QStringLiteral("HTTP %1").arg(status);
    else if (reply->error() == QNetworkReply::OperationCanceledError)
        error = QStringLiteral("timed out after %1 ms").arg(m_options.timeoutMs);
    else
        error = reply->errorString();
    retryLater(error);
}

void WebhookSender::retryLater(const QString &error)
{
    m_status.lastError = error;
    m_status.lastErrorAtMs = m_clock.nowMs();
    m_status.failing = true;
    if (m_attempt >= m_options.maxAttempts) {
        // Given up: the body goes, counted; the log says so once per body, without the URL's secrets.
        qCWarning(lcErrors).noquote() << QStringLiteral("webhook %1: gave up after %2 attempts (%3)")
                                             .arg(m_status.target)
                                             .arg(m_attempt)
                                             .arg(error);
        m_queue.pop_front();
        m_attempt = 0;
        ++m_status.failed;
    }
    Q_EMIT statusChanged();
    if (m_queue.empty())
        return;
    const int shift = std::max(0, m_attempt - 1);
    const qint64 delay = std::min<qint64>(qint64(m_options.firstRetryMs) << std::min(shift, 20), m_options.maxRetryMs);
    m_retry.start(int(m_attempt == 0 ? 0 : delay));
}

} // namespace Broker
