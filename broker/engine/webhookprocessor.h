// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "asyncprocessor.h"

#include "core/engineoptions.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QObject>
#include <QUrl>

#include <utility>

class QNetworkAccessManager;
class QNetworkReply;

namespace Broker {

// A `webhook` entry of the config's processors: list.
struct WebhookProcessorOptions
{
    QUrl url;                                          // http or https
    QList<std::pair<QByteArray, QByteArray>> headers;  // sent with every POST; values never logged
    QByteArray secret;                                 // set: X-BrokerDesk-Signature: sha256=<HMAC of the body>
    int timeoutMs = ProcessorDefaults{}.timeoutMs;     // one POST, connecting included
};

// POSTs each message as JSON, the message object exactly as GET /messages/{queue} hands it to a
// consumer (messageJson), to one URL; a 2xx answer acknowledges it; any other status, a connection
// that fails or closes, or the timeout nacks it. Also sent: X-BrokerDesk-Queue,
// X-BrokerDesk-Message-Id (a receiver's idempotency key: a message may arrive twice) and
// X-BrokerDesk-Delivery-Count. Several POSTs may be under way at once (the registry's concurrency;
// Qt opens at most 6 connections to one host, further ones wait inside their timeout).
class WebhookProcessor : public QObject, public AsyncProcessor
{
    Q_OBJECT
public:
    explicit WebhookProcessor(WebhookProcessorOptions options, QObject *parent = nullptr);
    ~WebhookProcessor() override;

    void process(const Message &message, ProcessorDone done) override;
    QString kind() const override { return QStringLiteral("webhook"); }
    QString target() const override;
    qint64 leaseMs() const override;

private:
    void finish(QNetworkReply *reply);

    WebhookProcessorOptions m_options;
    QNetworkAccessManager *m_network;
    struct Pending
    {
        ProcessorDone done;
        bool timedOut = false;
    };
    QHash<QNetworkReply *, Pending> m_pending;
};

} // namespace Broker
