// SPDX-License-Identifier: GPL-3.0-or-later
#include "definitionscontroller.h"

#include <QJsonArray>

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

QJsonObject DefinitionsController::openApiSchemas()
{
    const auto type = [](const char *name) { return QJsonObject{{QStringLiteral("type"), QString::fromLatin1(name)}}; };
    const auto arrayOf = [](const QJsonObject &items) {
        return QJsonObject{{QStringLiteral("type"), QStringLiteral("array")}, {QStringLiteral("items"), items}};
    };
    const auto object = [](const QJsonObject &properties, const QStringList &required = {}) {
        QJsonObject json{{QStringLiteral("type"), QStringLiteral("object")},
                         {QStringLiteral("properties"), properties}};
        if (!required.isEmpty())
            json.insert(QStringLiteral("required"), QJsonArray::fromStringList(required));
        return json;
    };
    const QJsonObject options =
        object({{QStringLiteral("type"), type("string")},
                {QStringLiteral("max_size"), type("integer")},
                {QStringLiteral("ttl"), type("integer")},
                {QStringLiteral("visibility_timeout"), type("integer")},
                {QStringLiteral("max_deliveries"), type("integer")},
                {QStringLiteral("dead_letter_queue"),
                 QJsonObject{{QStringLiteral("type"), QStringLiteral("string")}, {QStringLiteral("nullable"), true}}}});
    const QJsonObject definitions =
        object({{QStringLiteral("definitions_version"), type("integer")},
                {QStringLiteral("broker_version"), type("string")},
                {QStringLiteral("queues"),
                 arrayOf(object({{QStringLiteral("name"), type("string")}, {QStringLiteral("options"), options}},
                                {QStringLiteral("name")}))},
                {QStringLiteral("roles"),
                 arrayOf(object({{QStringLiteral("name"), type("string")},
                                 {QStringLiteral("permissions"), arrayOf(type("string"))}},
                                {QStringLiteral("name"), QStringLiteral("permissions")}))},
                {QStringLiteral("users"),
                 arrayOf(object({{QStringLiteral("id"), type("string")},
                                 {QStringLiteral("name"), type("string")},
                                 {QStringLiteral("roles"), arrayOf(type("string"))},
                                 {QStringLiteral("disabled"), type("boolean")}},
                                {QStringLiteral("id"), QStringLiteral("roles")}))}});
    const QJsonObject named =
        object({{QStringLiteral("name"), type("string")}, {QStringLiteral("reason"), type("string")}});
    const QJsonObject summary = object({{QStringLiteral("success"), type("boolean")},
                                        {QStringLiteral("queues"),
                                         object({{QStringLiteral("created"), arrayOf(type("string"))},
                                                 {QStringLiteral("unchanged"), arrayOf(type("string"))},
                                                 {QStringLiteral("conflicts"), arrayOf(named)},
                                                 {QStringLiteral("failed"), arrayOf(named)}})},
                                        {QStringLiteral("roles"),
                                         object({{QStringLiteral("present"), arrayOf(type("string"))},
                                                 {QStringLiteral("not_imported"), arrayOf(named)}})},
                                        {QStringLiteral("users"),
                                         object({{QStringLiteral("created"),
                                                  arrayOf(object({{QStringLiteral("id"), type("string")},
                                                                  {QStringLiteral("api_key"), type("string")},
                                                                  {QStringLiteral("disabled"), type("boolean")}}))},
                                                 {QStringLiteral("unchanged"), arrayOf(type("string"))},
                                                 {QStringLiteral("conflicts"),
                                                  arrayOf(object({{QStringLiteral("id"), type("string")},
                                                                  {QStringLiteral("reason"), type("string")}}))}})}});
    return QJsonObject{{QStringLiteral("Definitions"), definitions}, {QStringLiteral("DefinitionsImport"), summary}};
}

} // namespace Broker::Rest
