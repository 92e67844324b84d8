// SPDX-License-Identifier: GPL-3.0-or-later
#include "apiclient.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkReply>
#include <QRandomGenerator>
#include <QSslError>
#include <QTimer>

#include <memory>

namespace BrokerCtl {

QJsonValue ApiResponse::json() const
{
    const QJsonDocument document = QJsonDocument::fromJson(body);
    if (document.isObject())
        return document.object();
    if (document.isArray())
        return document.array();
    return {};
}

QString ApiResponse::describeError() const
{
    if (connectionFailed())
        return networkError;
    QString text = json().toObject().value(QStringLiteral("error")).toString();
    const QString detail = json().toObject().value(QStringLiteral("detail")).toString();
    if (text.isEmpty())
        text = QString::fromUtf8(body.left(200)).trimmed();
    if (!detail.isEmpty() && detail != text)
        text += QStringLiteral(": ") + detail;
    QString line = QString::number(status) + QLatin1Char(' ') + text;
    if (!requestId.isEmpty())
        line += QStringLiteral(" (request %1)").arg(QString::fromLatin1(requestId));
    return line;
}

ApiClient::ApiClient(ClientSettings settings, QObject *parent) : QObject(parent), m_settings(std::move(settings))
{
    m_network.setAutoDeleteReplies(true);
    m_tls = QSslConfiguration::defaultConfiguration();
    if (!m_settings.caCertificates.isEmpty())
        m_tls.setCaCertificates(m_settings.caCertificates); // instead of the system's, as curl --cacert
    if (m_settings.insecure)
        m_tls.setPeerVerifyMode(QSslSocket::VerifyNone);
}

QString ApiClient::describeTlsErrors(const QUrl &url, const QList<QSslError> &errors) const
{
    const QString peer = QStringLiteral("%1:%2").arg(url.host()).arg(url.port(443));
    const QString remedy = m_settings.caCertificates.isEmpty() ? QStringLiteral("pass --cacert with its CA certificate")
                                                               : QStringLiteral("it is not signed by the --cacert CA");
    // The first error that says most: a name mismatch with a trusted chain, else why the chain is not trusted.
    for (const QSslError &error : errors) {
        switch (error.error()) {
        case QSslError::SelfSignedCertificate:
        case QSslError::SelfSignedCertificateInChain:
        case QSslError::UnableToGetLocalIssuerCertificate:
        case QSslError::UnableToGetIssuerCertificate:
        case QSslError::UnableToVerifyFirstCertificate:
        case QSslError::CertificateUntrusted:
            return QStringLiteral("TLS: the certificate of %1 is not trusted (%2; %3)")
                .arg(peer, error.error() == QSslError::SelfSignedCertificate
                               || error.error() == QSslError::SelfSignedCertificateInChain
                               ? QStringLiteral("self-signed")
                               : QStringLiteral("unknown issuer"),
                     remedy);
        case QSslError::CertificateExpired:
            return QStringLiteral("TLS: the certificate of %1 has expired").arg(peer);
        case QSslError::CertificateNotYetValid:
            return QStringLiteral("TLS: the certificate of %1 is not valid yet (check the clocks)").arg(peer);
        default:
            break;
        }
    }
    for (const QSslError &error : errors) {
        if (error.error() == QSslError::HostNameMismatch)
            return QStringLiteral("TLS: the certificate of %1 is not for %2 (its names: %3)")
                .arg(peer, url.host(),
                     error.certificate().subjectAlternativeNames().values().join(QStringLiteral(", ")));
    }
    return QStringLiteral("TLS: the certificate of %1 was refused: %2")
        .arg(peer, errors.isEmpty() ? QStringLiteral("handshake failed") : errors.first().errorString());
}

bool ApiClient::circuitOpen() const
{
    return m_openedAt.isValid() && m_openedAt.elapsed() < m_settings.breakerResetMs;
}

void ApiClient::recordOutcome(bool failed)
{
    if (!failed) {
        m_consecutiveFailures = 0;
        m_openedAt.invalidate();
        return;
    }
    if (++m_consecutiveFailures >= m_settings.breakerThreshold)
        m_openedAt.start(); // open (again, after a failed trial while half-open)
}

void ApiClient::cancelAll()
{
    ++m_generation;
    for (QNetworkReply *reply : m_network.findChildren<QNetworkReply *>()) {
        disconnect(reply, nullptr, this, nullptr);
        reply->abort();
    }
}

void ApiClient::completeLater(Callback done, ApiResponse response)
{
    QMetaObject::invokeMethod(
        this,
        [this, generation = m_generation, done = std::move(done), response = std::move(response)] {
            if (generation == m_generation)
                done(response);
        },
        Qt::QueuedConnection);
}

QNetworkRequest ApiClient::makeRequest(const QString &path) const
{
    QUrl url = m_settings.url;
    const qsizetype query = path.indexOf(QLatin1Char('?'));
    url.setPath(url.path().chopped(url.path().endsWith(QLatin1Char('/')) ? 1 : 0) + path.left(query));
    if (query >= 0)
        url.setQuery(path.mid(query + 1));
    QNetworkRequest request(url);
    request.setTransferTimeout(m_settings.timeoutMs);
    request.setHeader(QNetworkRequest::UserAgentHeader, QStringLiteral("brokerctl/" BROKER_VERSION));
    if (!m_settings.apiKey.isEmpty())
        request.setRawHeader("X-API-Key", m_settings.apiKey);
    if (url.scheme() == u"https")
        request.setSslConfiguration(m_tls);
    return request;
}

void ApiClient::watchTls(QNetworkReply *reply, const std::shared_ptr<QString> &problem)
{
    // Why a certificate was refused, in one line instead of Qt's list.
    connect(reply, &QNetworkReply::sslErrors, this, [this, reply, problem](const QList<QSslError> &errors) {
        if (m_settings.insecure)
            reply->ignoreSslErrors();
        else
            *problem = describeTlsErrors(reply->url(), errors);
    });
}

ApiResponse ApiClient::responseOf(QNetworkReply *reply, const QString &tlsProblem) const
{
    ApiResponse response;
    response.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    response.body = reply->readAll();
    response.requestId = reply->rawHeader("X-Request-ID");
    if (response.status == 0 && !tlsProblem.isEmpty())
        response.networkError = tlsProblem;
    else if (response.status == 0)
        response.networkError = QStringLiteral("cannot reach %1: %2").arg(m_settings.url.toString(), reply->errorString());
    return response;
}

void ApiClient::stream(const QString &path, const QList<QPair<QByteArray, QByteArray>> &headers, int idleTimeoutMs,
                       std::function<void(const QByteArray &)> onData, Callback onEnd)
{
    QNetworkRequest request = makeRequest(path);
    request.setTransferTimeout(idleTimeoutMs);
    request.setRawHeader("Accept", "text/event-stream");
    for (const auto &[name, value] : headers)
        request.setRawHeader(name, value);
    QNetworkReply *reply = m_network.get(request);
    auto tlsProblem = std::make_shared<QString>();
    watchTls(reply, tlsProblem);
    connect(reply, &QNetworkReply::readyRead, this, [reply, onData] {
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (status >= 200 && status < 300)
            onData(reply->readAll());
    });
    connect(reply, &QNetworkReply::finished, this, [this, reply, tlsProblem, onData, onEnd = std::move(onEnd)] {
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        if (status >= 200 && status < 300) {
            if (const QByteArray rest = reply->readAll(); !rest.isEmpty())
                onData(rest);
        }
        onEnd(responseOf(reply, *tlsProblem));
    });
}

void ApiClient::send(const QByteArray &method, const QString &path, const QByteArray &body, Callback done, int attempt)
{
    if (circuitOpen()) {
        ApiResponse refused;
        refused.networkError = QStringLiteral("not trying %1: it failed %2 times in a row (circuit open for %3 s)")
                                   .arg(m_settings.url.toString())
                                   .arg(m_consecutiveFailures)
                                   .arg(m_settings.breakerResetMs / 1000);
        completeLater(std::move(done), std::move(refused));
        return;
    }
    QNetworkRequest request = makeRequest(path);
    if (!body.isEmpty() || method == "POST" || method == "PUT" || method == "PATCH")
        request.setHeader(QNetworkRequest::ContentTypeHeader, QStringLiteral("application/json"));
    QNetworkReply *reply = m_network.sendCustomRequest(request, method, body);
    auto tlsProblem = std::make_shared<QString>();
    watchTls(reply, tlsProblem);
    connect(reply, &QNetworkReply::finished, this, [=, this, done = std::move(done)]() mutable {
        const ApiResponse response = responseOf(reply, *tlsProblem);
        const bool failed = response.status == 0 || response.status >= 500;
        recordOutcome(failed);
        // A POST or PATCH (publish, batch, redrive, message actions) that may have reached the
        // broker is not sent again: it may have been done, and doing it twice duplicates
        // messages. It is retried only when the connection was refused, so nothing was sent.
        const bool repeatable = method == "GET" || method == "HEAD" || method == "PUT" || method == "DELETE"
            || reply->error() == QNetworkReply::ConnectionRefusedError
            || reply->error() == QNetworkReply::HostNotFoundError;
        // A refused certificate is refused again: no retry.
        if (!failed || !repeatable || !tlsProblem->isEmpty() || attempt >= m_settings.retryAttempts
            || circuitOpen()) {
            done(response);
            return;
        }
        // Exponential backoff with +-20% jitter.
        const double jitter = 0.8 + 0.4 * QRandomGenerator::global()->generateDouble();
        const int delay = int(double(m_settings.retryDelayMs) * double(1 << qMin(attempt, 10)) * jitter);
        QTimer::singleShot(delay, this, [=, this, generation = m_generation, done = std::move(done)]() mutable {
            if (generation == m_generation)
                send(method, path, body, std::move(done), attempt + 1);
        });
    });
}

} // namespace BrokerCtl
