// SPDX-License-Identifier: GPL-3.0-or-later
#include "userscontroller.h"

#include "requestparsing.h"
#include "serializers.h"

#include <QJsonArray>

namespace Broker::Rest {

using Method = QHttpServerRequest::Method;

namespace {

const QString ManageUsers = QStringLiteral("manage_users");

Result<QStringList> readRoles(const QJsonObject &body, bool required)
{
    const QJsonValue value = body.value(QStringLiteral("roles"));
    if (value.isUndefined() && !required)
        return QStringList();
    if (!value.isArray() || value.toArray().isEmpty())
        return Error{ErrorCode::InvalidArgument, QStringLiteral("Invalid roles: expected a non-empty array of role names")};
    QStringList roles;
    for (const QJsonValue &role : value.toArray()) {
        if (!role.isString())
            return Error{ErrorCode::InvalidArgument, QStringLiteral("Invalid roles: expected a non-empty array of role names")};
        roles.append(role.toString());
    }
    return roles;
}

QJsonObject keyIssued(const IssuedKey &key)
{
    QJsonObject json;
    json.insert(QStringLiteral("success"), true);
    json.insert(QStringLiteral("id"), key.userId);
    json.insert(QStringLiteral("api_key"), key.apiKey);
    return json;
}

} // namespace

UsersController::UsersController(RestContext &context, Router &router) : Controller(context)
{
    const auto bind = [this](void (UsersController::*handler)(const ExchangePtr &)) {
        return [this, handler](const ExchangePtr &exchange) { (this->*handler)(exchange); };
    };
    using namespace Api;
    const QString tag = QStringLiteral("users");
    const ApiResponse denied = problem(403, QStringLiteral("`Unauthorized`: the key lacks `manage_users`, or a permission the "
                                                           "user or the roles hold (`detail` names it)"));
    const ApiResponse missing = problem(404, QStringLiteral("`User not found`"));
    const ApiResponse lastAdmin = problem(409, QStringLiteral("`Cannot remove the last admin`"));
    router.add({Method::Get, QStringLiteral("/users"), QStringLiteral("List users (never keys)"), ManageUsers, true,
                {QStringLiteral("listUsers"), tag, {}, false, {}, {ok(QStringLiteral("UserList")), denied}, false},
                bind(&UsersController::list)});
    router.add({Method::Get, QStringLiteral("/me"),
                QStringLiteral("The caller: its user, roles and the permission patterns they grant (what a client may offer)"),
                {}, true, {QStringLiteral("getMe"), tag, {}, false, {}, {ok(QStringLiteral("Me"))}, false},
                bind(&UsersController::me)});
    router.add({Method::Post, QStringLiteral("/users"), QStringLiteral("Add a user; the new key is shown once"), ManageUsers, true,
                {QStringLiteral("createUser"), tag, QStringLiteral("UserCreateRequest"), true, {},
                 {ok(QStringLiteral("KeyIssued")),
                  problem(400, QStringLiteral("`Invalid user id`, `Invalid roles: expected a non-empty array of role names`, "
                                              "an unknown role")),
                  denied, problem(409, QStringLiteral("`User already exists`"))}},
                bind(&UsersController::create)});
    router.add({Method::Patch, QStringLiteral("/users/{id}"), QStringLiteral("Change a user's roles or disabled state"),
                ManageUsers, true,
                {QStringLiteral("updateUser"), tag, QStringLiteral("UserChange"), true, {},
                 {ok(QStringLiteral("User")),
                  problem(400, QStringLiteral("`Invalid roles: ...`, `Invalid disabled: expected true or false`")), denied,
                  missing, lastAdmin}},
                bind(&UsersController::update)});
    router.add({Method::Delete, QStringLiteral("/users/{id}"), QStringLiteral("Delete a user"), ManageUsers, true,
                {QStringLiteral("deleteUser"), tag, {}, false, {}, {ok(QStringLiteral("Success")), denied, missing, lastAdmin}},
                bind(&UsersController::remove)});
    router.add({Method::Post, QStringLiteral("/users/{id}/rotate"), QStringLiteral("Replace a user's key; the new key is shown once"),
                ManageUsers, true,
                {QStringLiteral("rotateUserKey"), tag, {}, false, {}, {ok(QStringLiteral("KeyIssued")), denied, missing}},
                bind(&UsersController::rotate)});
}

QStringList UsersController::actorRoles(const ExchangePtr &exchange)
{
    return exchange->user ? exchange->user->roles : QStringList();
}

bool UsersController::mayManage(const ExchangePtr &exchange, const QString &id) const
{
    const Result<void> allowed = m_context.users.mayManage(actorRoles(exchange), id);
    if (allowed)
        return true;
    if (allowed.error().code == ErrorCode::NotFound)
        exchange->sendProblem(404, QStringLiteral("User not found"));
    else
        exchange->sendError(allowed.error());
    return false;
}

void UsersController::me(const ExchangePtr &exchange)
{
    const User &user = *exchange->user;
    QStringList permissions;
    for (const QString &role : user.roles) {
        for (const QString &pattern : m_context.policy.patternsOf(role)) {
            if (!permissions.contains(pattern))
                permissions.append(pattern);
        }
    }
    exchange->sendJson(200, QJsonObject{{QStringLiteral("id"), user.id},
                                        {QStringLiteral("name"), user.name},
                                        {QStringLiteral("roles"), QJsonArray::fromStringList(user.roles)},
                                        {QStringLiteral("permissions"), QJsonArray::fromStringList(permissions)}});
}

void UsersController::list(const ExchangePtr &exchange)
{
    if (!m_context.permit(exchange, ManageUsers))
        return;
    QJsonArray users;
    for (const User &user : m_context.users.users())
        users.append(userJson(user));
    QJsonObject json;
    json.insert(QStringLiteral("users"), users);
    json.insert(QStringLiteral("count"), users.size());
    exchange->sendJson(200, json);
}

void UsersController::create(const ExchangePtr &exchange)
{
    const Result<QJsonObject> body = exchange->jsonBody(m_context.options.maxJsonDepth, false);
    if (!check(exchange, body))
        return;
    const Result<QString> id = fieldString(*body, "id");
    const Result<QString> name = fieldString(*body, "name");
    const Result<QStringList> roles = readRoles(*body, true);
    if (!check(exchange, id) || !check(exchange, name) || !check(exchange, roles))
        return;
    if (!isValidUserId(*id))
        return exchange->sendProblem(400, QStringLiteral("Invalid user id"),
                                     QStringLiteral("Letters, digits and _ . - @; at most 64"));
    if (!m_context.permit(exchange, ManageUsers) || !check(exchange, m_context.users.mayGrant(actorRoles(exchange), *roles)))
        return;
    const Result<IssuedKey> issued = m_context.users.addUser(*id, *name, *roles);
    if (check(exchange, issued))
        exchange->sendJson(200, keyIssued(*issued));
}

void UsersController::update(const ExchangePtr &exchange)
{
    const Result<QJsonObject> body = exchange->jsonBody(m_context.options.maxJsonDepth, false);
    if (!check(exchange, body))
        return;
    const Result<QStringList> roles = readRoles(*body, false);
    const QJsonValue disabled = body->value(QStringLiteral("disabled"));
    if (!check(exchange, roles))
        return;
    if (!disabled.isUndefined() && !disabled.isBool())
        return exchange->sendProblem(400, QStringLiteral("Invalid disabled: expected true or false"));
    if (!m_context.permit(exchange, ManageUsers))
        return;
    const QString id = exchange->params.value(0);
    if (!mayManage(exchange, id) || (!roles->isEmpty() && !check(exchange, m_context.users.mayGrant(actorRoles(exchange), *roles))))
        return;
    // The directory refuses a change that leaves no enabled admin (409) and then changes nothing.
    const std::optional<QStringList> newRoles = roles->isEmpty() ? std::nullopt : std::optional(*roles);
    const std::optional<bool> newDisabled = disabled.isBool() ? std::optional(disabled.toBool()) : std::nullopt;
    if (!check(exchange, m_context.users.changeUser(id, newRoles, newDisabled)))
        return;
    exchange->sendJson(200, userJson(*m_context.users.find(id)));
}

void UsersController::remove(const ExchangePtr &exchange)
{
    if (!m_context.permit(exchange, ManageUsers))
        return;
    const QString id = exchange->params.value(0);
    if (!mayManage(exchange, id) || !check(exchange, m_context.users.removeUser(id)))
        return;
    QJsonObject json;
    json.insert(QStringLiteral("success"), true);
    exchange->sendJson(200, json);
}

void UsersController::rotate(const ExchangePtr &exchange)
{
    if (!m_context.permit(exchange, ManageUsers))
        return;
    const QString id = exchange->params.value(0);
    if (!mayManage(exchange, id))
        return;
    const Result<IssuedKey> issued = m_context.users.rotateKey(id);
    if (check(exchange, issued))
        exchange->sendJson(200, keyIssued(*issued));
}

} // namespace Broker::Rest
