// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "controller.h"

#include "core/webhookstatus.h"

#include <QJsonObject>

namespace Broker::Rest {

class RestServer;

// Health (gCore's /health and /api/health, plus liveness and readiness), Prometheus metrics,
// the error log, and the OpenAPI document.
class OperationsController final : public Controller
{
public:
    OperationsController(RestContext &context, Router &router, const RestServer &server);

private:
    void health(const ExchangePtr &exchange);
    void detailedHealth(const ExchangePtr &exchange);
    void sendHealth(const ExchangePtr &exchange, const HealthSummary &summary, bool detailed);
    // components.storage of /health: what is cheap and safe for everyone, the rest when `detailed`.
    QJsonObject storageComponent(HealthStatus health, const QString &backend, const StoreStatus &store,
                                 bool detailed) const;
    static QJsonObject webhookComponent(const WebhookStatus &webhook, bool detailed);
    // The API's listener: TLS and its certificate's expiry (degraded within ExpiryWarningDays),
    // or a warning when plain HTTP is served elsewhere than on loopback.
    QJsonObject apiComponent(bool detailed) const;
    static constexpr qint64 ExpiryWarningDays = 14;
    void live(const ExchangePtr &exchange);
    void ready(const ExchangePtr &exchange);
    void metrics(const ExchangePtr &exchange);
    void errors(const ExchangePtr &exchange);
    void openApi(const ExchangePtr &exchange);

    const RestServer &m_server;
    const Router &m_router;
    QByteArray m_openApi; // the document, made on first request
};

} // namespace Broker::Rest
