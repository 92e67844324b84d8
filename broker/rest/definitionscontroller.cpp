// SPDX-License-Identifier: GPL-3.0-or-later
#include "definitionscontroller.h"

#include <QJsonArray>
#include <QMap>

#include <memory>

namespace Broker::Rest {

using Method = QHttpServerRequest::Method;

namespace {

const QString ManageUsers = QStringLiteral("manage_users");

// The options that differ, as {"option": {"existing": …, "requested": …}}.
QJsonObject differences(const QueueConfig &existing, const QueueConfig &requested)
{
    const QJsonObject have = existing.toJson();
    const QJsonObject want = requested.toJson();
    QJsonObject diff;
    for (auto it = want.begin(); it != want.end(); ++it) {
        if (have.value(it.key()) != *it)
            diff.insert(it.key(),
                        QJsonObject{{QStringLiteral("existing"), have.value(it.key())},
                                    {QStringLiteral("requested"), *it}});
    }
    return diff;
}

// Queues named as another's dead-letter queue come first, so that they are made with the options
// the document gives them rather than with the defaults the engine gives an implied one.
QList<DefinitionsDocument::Queue> creationOrder(QList<DefinitionsDocument::Queue> queues)
{
    QSet<QString> targets;
    for (const auto &queue : queues)
        targets.insert(queue.config.deadLetterQueue);
    std::stable_partition(queues.begin(), queues.end(),
                          [&](const auto &queue) { return targets.contains(queue.name); });
    return queues;
}

// What an import does to the queues, step by step (each create completes asynchronously).
struct QueueImport
{
    QList<DefinitionsDocument::Queue> toCreate;
    QJsonArray created;
    QJsonArray unchanged;
    QJsonArray conflicts;
    QJsonArray failed;

    QJsonObject summary() const
    {
        return QJsonObject{{QStringLiteral("created"), created},
                           {QStringLiteral("unchanged"), unchanged},
                           {QStringLiteral("conflicts"), conflicts},
                           {QStringLiteral("failed"), failed}};
    }
};

} // namespace

DefinitionsController::DefinitionsController(RestContext &context, Router &router) : Controller(context)
{
    router.add({Method::Get,
                QStringLiteral("/definitions"),
                QStringLiteral("Export queues with options, roles and users (never keys) as one document"),
                ManageUsers,
                true,
                {200, 403},
                {},
                [this](const ExchangePtr &exchange) { exportDefinitions(exchange); }});
    router.add({Method::Post,
                QStringLiteral("/definitions"),
                QStringLiteral("Import a definitions document: add what is missing, report conflicts"),
                ManageUsers,
                true,
                {200, 400, 403},
                {},
                [this](const ExchangePtr &exchange) { importDefinitions(exchange); }});
}

void DefinitionsController::exportDefinitions(const ExchangePtr &exchange)
{
    if (!m_context.permit(exchange, ManageUsers))
        return;
    m_context.broker.listQueues([this, exchange](Result<QList<QueueInfo>> queues) {
        if (!check(exchange, queues))
            return;
        QJsonArray queueArray;
        for (const QueueInfo &queue : *queues) {
            queueArray.append(QJsonObject{{QStringLiteral("name"), queue.name},
                                          {QStringLiteral("options"), queue.config.toJson()}});
        }
        // admin is built in and the same everywhere; every other role (built-in ones may be
        // redefined in the config) is listed with what it grants here.
        QJsonArray roles;
        for (const QString &role : m_context.policy.roleNames()) {
            if (role == u"admin")
                continue;
            roles.append(QJsonObject{{QStringLiteral("name"), role},
                                     {QStringLiteral("permissions"),
                                      QJsonArray::fromStringList(m_context.policy.patternsOf(role))}});
        }
        QJsonArray users;
        for (const User &user : m_context.users.users()) {
            users.append(QJsonObject{{QStringLiteral("id"), user.id},
                                     {QStringLiteral("name"), user.name},
                                     {QStringLiteral("roles"), QJsonArray::fromStringList(user.roles)},
                                     {QStringLiteral("disabled"), user.disabled}});
        }
        QJsonObject json;
        json.insert(QStringLiteral("definitions_version"), DefinitionsDocument::Version);
        json.insert(QStringLiteral("broker_version"), QStringLiteral(BROKER_VERSION));
        json.insert(QStringLiteral("queues"), queueArray);
        json.insert(QStringLiteral("roles"), roles);
        json.insert(QStringLiteral("users"), users);
        exchange->sendJson(200, json);
    });
}

bool DefinitionsController::mayImport(const ExchangePtr &exchange, const DefinitionsDocument &document) const
{
    if (!m_context.permit(exchange, ManageUsers))
        return false;
    if (!document.queues.isEmpty() && !m_context.permit(exchange, QStringLiteral("create_queue")))
        return false;
    const QStringList actor = exchange->user ? exchange->user->roles : QStringList();
    for (const DefinitionsDocument::UserEntry &user : document.users) {
        if (m_context.users.find(user.id))
            continue; // existing users are never changed
        const bool rolesKnown = std::all_of(user.roles.begin(), user.roles.end(),
                                            [&](const QString &role) { return m_context.policy.hasRole(role); });
        if (rolesKnown && !check(exchange, m_context.users.mayGrant(actor, user.roles)))
            return false;
    }
    return true;
}

void DefinitionsController::importDefinitions(const ExchangePtr &exchange)
{
    const Result<QJsonObject> body = exchange->jsonBody(m_context.options.maxJsonDepth, false);
    if (!check(exchange, body))
        return;
    const Result<DefinitionsDocument> document =
        DefinitionsDocument::parse(*body, m_context.broker.options().queueDefaults);
    if (!check(exchange, document))
        return;
    for (const DefinitionsDocument::Queue &queue : document->queues) {
        if (const Result<void> type = m_context.broker.checkQueueType(queue.config.type); !type) {
            return exchange->sendProblem(400, QStringLiteral("Invalid definitions"),
                                         QStringLiteral("queue '%1': %2").arg(queue.name, type.error().message));
        }
    }
    if (!mayImport(exchange, *document))
        return;

    m_context.broker.listQueues([this, exchange, document = *document](Result<QList<QueueInfo>> existing) {
        if (!check(exchange, existing))
            return;
        QMap<QString, QueueConfig> have;
        for (const QueueInfo &info : *existing)
            have.insert(info.name, info.config);
        auto queues = std::make_shared<QueueImport>();
        for (const DefinitionsDocument::Queue &queue : creationOrder(document.queues)) {
            const auto found = have.constFind(queue.name);
            if (found == have.cend()) {
                queues->toCreate.append(queue);
            } else if (*found == queue.config) {
                queues->unchanged.append(queue.name);
            } else {
                queues->conflicts.append(
                    QJsonObject{{QStringLiteral("name"), queue.name},
                                {QStringLiteral("reason"), QStringLiteral("exists with other options; not changed")},
                                {QStringLiteral("differences"), differences(*found, queue.config)}});
            }
        }
        // Roles and users do not wait on storage; queues are created one after another, and the
        // answer goes out when the last one completed.
        const QJsonObject roles = importRoles(document);
        const QJsonObject users = importUsers(document);
        auto next = std::make_shared<std::function<void()>>();
        *next = [this, exchange, queues, roles, users, weakNext = std::weak_ptr<std::function<void()>>(next)] {
            if (queues->toCreate.isEmpty()) {
                const bool success = queues->failed.isEmpty();
                exchange->sendJson(200,
                                   QJsonObject{{QStringLiteral("success"), success},
                                               {QStringLiteral("queues"), queues->summary()},
                                               {QStringLiteral("roles"), roles},
                                               {QStringLiteral("users"), users}});
                return;
            }
            const DefinitionsDocument::Queue queue = queues->toCreate.takeFirst();
            m_context.broker.createQueue(
                queue.name, queue.config,
                [queues, name = queue.name, next = weakNext.lock()](Result<QueueInfo> created) {
                    if (created)
                        queues->created.append(name);
                    else
                        queues->failed.append(QJsonObject{{QStringLiteral("name"), name},
                                                          {QStringLiteral("reason"), created.error().message}});
                    (*next)();
                });
        };
        (*next)();
    });
}

QJsonObject DefinitionsController::importRoles(const DefinitionsDocument &document) const
{
    QJsonArray present;
    QJsonArray notImported;
    for (const DefinitionsDocument::Role &role : document.roles) {
        QStringList have = m_context.policy.patternsOf(role.name);
        QStringList want = role.permissions;
        have.sort();
        want.sort();
        if (m_context.policy.hasRole(role.name) && have == want) {
            present.append(role.name);
            continue;
        }
        const QString reason = m_context.policy.hasRole(role.name)
            ? QStringLiteral("defined here with other permissions")
            : QStringLiteral("not defined here");
        notImported.append(
            QJsonObject{{QStringLiteral("name"), role.name},
                        {QStringLiteral("reason"),
                         reason
                             + QStringLiteral("; roles come from message_broker.yaml "
                                              "(security.roles.<name>.permissions) and take effect on restart")}});
    }
    return QJsonObject{{QStringLiteral("present"), present}, {QStringLiteral("not_imported"), notImported}};
}

QJsonObject DefinitionsController::importUsers(const DefinitionsDocument &document)
{
    QJsonArray created;
    QJsonArray unchanged;
    QJsonArray conflicts;
    const auto conflict = [&](const QString &id, const QString &reason) {
        conflicts.append(QJsonObject{{QStringLiteral("id"), id}, {QStringLiteral("reason"), reason}});
    };
    for (const DefinitionsDocument::UserEntry &user : document.users) {
        if (const User *existing = m_context.users.find(user.id)) {
            if (existing->roles == user.roles && existing->disabled == user.disabled)
                unchanged.append(user.id);
            else
                conflict(user.id, QStringLiteral("exists with other roles or state; not changed"));
            continue;
        }
        const auto unknown = std::find_if(user.roles.begin(), user.roles.end(),
                                          [&](const QString &role) { return !m_context.policy.hasRole(role); });
        if (unknown != user.roles.end()) {
            conflict(user.id, QStringLiteral("role '%1' is not defined here; not added").arg(*unknown));
            continue;
        }
        const Result<IssuedKey> issued = m_context.users.addUser(user.id, user.name, user.roles);
        if (!issued) {
            conflict(user.id, issued.error().message);
            continue;
        }
        if (user.disabled) {
            if (const Result<void> disabled = m_context.users.changeUser(user.id, std::nullopt, true); !disabled)
                conflict(user.id, QStringLiteral("added, but not disabled: ") + disabled.error().message);
        }
        created.append(QJsonObject{{QStringLiteral("id"), issued->userId},
                                   {QStringLiteral("api_key"), issued->apiKey},
                                   {QStringLiteral("disabled"), user.disabled}});
    }
    return QJsonObject{{QStringLiteral("created"), created},
                       {QStringLiteral("unchanged"), unchanged},
                       {QStringLiteral("conflicts"), conflicts}};
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
