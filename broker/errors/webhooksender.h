// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/clock.h"
#include "core/webhookstatus.h"

#include <QByteArray>
#include <QObject>
#include <QString>
#include <QTimer>
#include <QUrl>

#include <deque>

class QNetworkAccessManager;
class QNetworkReply;

namespace Broker {

struct WebhookOptions
{
    QUrl url;
    QByteArray secret;            // set: each POST carries X-BrokerDesk-Signature: sha256=<HMAC of the body>
    int timeoutMs = 5000;         // one attempt, connecting included
    int maxAttempts = 5;          // then the body is given up and counted as failed
    int firstRetryMs = 1000;      // doubles after each failed attempt, up to maxRetryMs
    int maxRetryMs = 60'000;
    int maxQueued = 100;          // bodies waiting beyond this are dropped (counted), never the engine held up
};

// POSTs JSON bodies to one URL, one at a time and in order, with a timeout per attempt, retries with
// backoff, and a bounded queue. Lives in the thread that uses it; post() returns at once.
class WebhookSender : public QObject
{
    Q_OBJECT
public:
    WebhookSender(WebhookOptions options, const Clock &clock, QObject *parent = nullptr);
    ~WebhookSender() override;

    // Queues `json` for delivery; false (and counted as dropped) when the queue is full.
    bool post(const QByteArray &json);
    WebhookStatus status() const;
    // webhookSignature(), for callers that know this class.
    static QByteArray signature(const QByteArray &secret, const QByteArray &body);

Q_SIGNALS:
    void statusChanged();

private:
    void sendNext();
    void finishAttempt(QNetworkReply *reply);
    void retryLater(const QString &error);

    WebhookOptions m_options;
    const Clock &m_clock;
    QNetworkAccessManager *m_network;
    std::deque<QByteArray> m_queue; // the front one is being sent
    QNetworkReply *m_reply = nullptr;
    QTimer m_retry;
    QTimer m_attemptTimeout;
    int m_attempt = 0; // of the front body
    WebhookStatus m_status;
};

} // namespace Broker
