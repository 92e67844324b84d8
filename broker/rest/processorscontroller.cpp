// SPDX-License-Identifier: GPL-3.0-or-later
#include "processorscontroller.h"

#include "processorreport.h"
#include "requestparsing.h"

#include "core/validation.h"

#include <QJsonArray>

namespace Broker::Rest {

ProcessorsController::ProcessorsController(RestContext &context, Router &router) : Controller(context)
{
    router.add({QHttpServerRequest::Method::Get,
                QStringLiteral("/processors"),
                QStringLiteral("Processors and how each is doing (optionally those of one queue)"),
                QStringLiteral("view_metrics"),
                true,
                {QStringLiteral("listProcessors"), QStringLiteral("operations"), {}, false,
                 {Api::text(QStringLiteral("queue"), QStringLiteral("Only the processors of this queue"))},
                 {Api::ok(QStringLiteral("ProcessorList")), Api::problem(400, QStringLiteral("`Invalid queue name`")),
                  Api::problem(403, QStringLiteral("`Unauthorized`: the key lacks `view_metrics`"))},
                 false},
                [this](const ExchangePtr &exchange) { list(exchange); }});
}

void ProcessorsController::list(const ExchangePtr &exchange)
{
    // Validation before permission, as every handler checks (gCore's order).
    const bool filtered = exchange->query().contains("queue");
    const QString queue = queryString(exchange->query(), "queue");
    if (filtered && !check(exchange, Validation::queueName(queue)))
        return;
    if (!m_context.permit(exchange, QStringLiteral("view_metrics")))
        return;
    QJsonArray processors;
    for (const ProcessorStatus &status : m_context.broker.processorStatuses()) {
        if (!filtered || status.queue == queue)
            processors.append(ProcessorReport::toJson(status));
    }
    QJsonObject json;
    json.insert(QStringLiteral("processors"), processors);
    json.insert(QStringLiteral("count"), processors.size());
    exchange->sendJson(200, json);
}

} // namespace Broker::Rest
