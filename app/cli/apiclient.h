// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QElapsedTimer>
#include <QJsonValue>
#include <QNetworkAccessManager>
#include <QNetworkRequest>
#include <QObject>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QString>
#include <QUrl>

#include <functional>
#include <memory>

namespace BrokerCtl {

// How the client talks to a broker: the gCore client's settings (API_URL, API_KEY, TIMEOUT,
// RETRY_ATTEMPTS, RETRY_DELAY) and their command-line counterparts.
struct ClientSettings
{
    QUrl url = QUrl(QStringLiteral("http://localhost:8080"));
    QByteArray apiKey;
    int timeoutMs = 30'000;   // per attempt
    int retryAttempts = 3;    // attempts after the first, for network errors and 5xx
    int retryDelayMs = 1'000; // first backoff; doubles, with +-20% jitter
    int breakerThreshold = 3; // consecutive failures that open the circuit
    int breakerResetMs = 30'000;
    // https: the CAs whose certificates are trusted instead of the system's (--cacert); empty:
    // the system's. `insecure` (--insecure) skips verification altogether.
    QList<QSslCertificate> caCertificates;
    bool insecure = false;
};

struct ApiResponse
{
    int status = 0; // 0: no HTTP answer (see networkError)
    QByteArray body;
    QByteArray requestId;
    QString networkError; // set when the broker could not be reached
    bool ok() const { return status >= 200 && status < 300; }
    bool connectionFailed() const { return status == 0; }
    QJsonValue json() const;
    // "404 Queue not found (request 5f3a...)" or the network error.
    QString describeError() const;
};

// HTTP to the broker, with retries (network errors and 5xx; never 4xx), exponential backoff with
// jitter, and a circuit breaker that fails fast after repeated failures. Asynchronous: the
// callback always runs later, from the event loop, never inside request() — also when the
// breaker refuses at once — so a caller may start its loop after asking.
class ApiClient : public QObject
{
    Q_OBJECT
public:
    using Callback = std::function<void(const ApiResponse &)>;

    explicit ApiClient(ClientSettings settings, QObject *parent = nullptr);

    // `path` may carry a query ("/messages/q?count=5").
    void request(const QByteArray &method, const QString &path, const QByteArray &body, Callback done)
    {
        send(method, path, body, std::move(done));
    }

    // A long-lived GET whose body is read as it comes (an event stream, GET /events): `onData`
    // gets each piece of a 2xx body; `onEnd` runs once it is over, with the status and body of a
    // refusal, a network error, or the 2xx status when the broker ended it. No retries and no
    // breaker: the caller decides when to reconnect. `idleTimeoutMs`: nothing at all arrived this
    // long (heartbeats included) counts as a lost connection.
    void stream(const QString &path, const QList<QPair<QByteArray, QByteArray>> &headers, int idleTimeoutMs,
                std::function<void(const QByteArray &)> onData, Callback onEnd);

    const ClientSettings &settings() const { return m_settings; }
    bool circuitOpen() const;
    // Forgets every request under way: their callbacks never run (replies are aborted, pending
    // retries and refusals dropped). For a command that is interrupted and whose callbacks would
    // reach objects that are gone.
    void cancelAll();

private:
    void send(const QByteArray &method, const QString &path, const QByteArray &body, Callback done, int attempt = 0);
    QNetworkRequest makeRequest(const QString &path) const;
    // Notes why a certificate was refused in `problem` (set before finished()).
    void watchTls(QNetworkReply *reply, const std::shared_ptr<QString> &problem);
    ApiResponse responseOf(QNetworkReply *reply, const QString &tlsProblem) const;
    void recordOutcome(bool failed);
    // Runs `done` from the event loop unless cancelAll() came first.
    void completeLater(Callback done, ApiResponse response);
    // One line for a refused certificate: what is wrong with it and what to do.
    QString describeTlsErrors(const QUrl &url, const QList<QSslError> &errors) const;

    ClientSettings m_settings;
    QNetworkAccessManager m_network;
    QSslConfiguration m_tls; // for every https request
    int m_consecutiveFailures = 0;
    QElapsedTimer m_openedAt; // valid while the circuit is open
    quint64 m_generation = 0; // bumped by cancelAll(); work of an older generation is dropped
};

} // namespace BrokerCtl
