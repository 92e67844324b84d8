// SPDX-License-Identifier: GPL-3.0-or-later
#include "definitionscontroller.h"

namespace Broker::Rest {

using Method = QHttpServerRequest::Method;

namespace {

const QString ManageUsers = QStringLiteral("manage_users");

} // namespace

DefinitionsController::DefinitionsController(RestContext &context, Router &router)
    : Controller(context), m_definitions(context.broker, context.users, context.policy)
{
    using namespace Api;
    const QString tag = QStringLiteral("definitions");
    const ApiResponse denied = problem(403, QStringLiteral("`Unauthorized`: the key lacks `manage_users` (or `create_queue` to "
                                                           "import queues, or a permission an imported user holds)"));
    router.add({Method::Get, QStringLiteral("/definitions"),
                QStringLiteral("Export queues with options, roles and users (never keys) as one document"), ManageUsers, true,
                {QStringLiteral("exportDefinitions"), tag, {}, false, {}, {ok(QStringLiteral("Definitions")), denied}},
                [this](const ExchangePtr &exchange) { exportDefinitions(exchange); }});
    router.add({Method::Post, QStringLiteral("/definitions"),
                QStringLiteral("Import a definitions document: add what is missing, report conflicts"), ManageUsers, true,
                {QStringLiteral("importDefinitions"), tag, QStringLiteral("Definitions"), true, {},
                 {ok(QStringLiteral("DefinitionsImport")),
                  problem(400, QStringLiteral("The document is not valid (`detail` says where)")), denied,
                  problem(413, QStringLiteral("The body is too large"))}},
                [this](const ExchangePtr &exchange) { importDefinitions(exchange); }});
}

void DefinitionsController::exportDefinitions(const ExchangePtr &exchange)
{
    if (!m_context.permit(exchange, ManageUsers))
        return;
    m_definitions.exportDocument([exchange](Result<DefinitionsDocument> document) {
        if (check(exchange, document))
            exchange->sendJson(200, document->toJson());
    });
}

bool DefinitionsController::mayImport(const ExchangePtr &exchange, const DefinitionsDocument &document) const
{
    if (!m_context.permit(exchange, ManageUsers))
        return false;
    if (!document.queues.isEmpty() && !m_context.permit(exchange, QStringLiteral("create_queue")))
        return false;
    const QStringList actor = exchange->user ? exchange->user->roles : QStringList();
    return check(exchange, m_definitions.mayAddUsers(actor, document));
}

void DefinitionsController::importDefinitions(const ExchangePtr &exchange)
{
    const Result<QJsonObject> body = exchange->jsonBody(m_context.options.maxJsonDepth, false);
    if (!check(exchange, body))
        return;
    // The whole document is checked first, then whether the caller may do what it asks.
    const Result<DefinitionsDocument> document = m_definitions.read(*body);
    if (!check(exchange, document) || !mayImport(exchange, *document))
        return;
    m_definitions.import(*document, [exchange](Result<DefinitionsImport> summary) {
        if (check(exchange, summary))
            exchange->sendJson(200, summary->toJson());
    });
}

} // namespace Broker::Rest
