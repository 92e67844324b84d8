// SPDX-License-Identifier: GPL-3.0-or-later
#include "definitionsdocument.h"

#include "core/user.h"
#include "core/validation.h"

#include <QJsonArray>
#include <QSet>

namespace Broker {

namespace {

Error invalid(const QString &where, const QString &what)
{
    return Error{ErrorCode::InvalidArgument, QStringLiteral("Invalid definitions"),
                 where + QStringLiteral(": ") + what};
}

// Refuses members other than `known`: a misspelt option must not be dropped without a word.
Result<void> onlyKnownKeys(const QJsonObject &object, const QStringList &known, const QString &where)
{
    for (auto it = object.begin(); it != object.end(); ++it) {
        if (!known.contains(it.key()))
            return invalid(where, QStringLiteral("unknown member '%1'").arg(it.key()));
    }
    return {};
}

Result<QJsonArray> arrayOf(const QJsonObject &json, const QString &name)
{
    const QJsonValue value = json.value(name);
    if (value.isUndefined() || value.isNull())
        return QJsonArray();
    if (!value.isArray())
        return invalid(name, QStringLiteral("expected an array"));
    for (qsizetype i = 0; i < value.toArray().size(); ++i) {
        if (!value.toArray().at(i).isObject())
            return invalid(QStringLiteral("%1[%2]").arg(name).arg(i), QStringLiteral("expected an object"));
    }
    return value.toArray();
}

Result<QStringList> stringsOf(const QJsonValue &value, const QString &where, bool nonEmpty)
{
    if (!value.isArray() || (nonEmpty && value.toArray().isEmpty()))
        return invalid(where,
                       nonEmpty ? QStringLiteral("expected a non-empty array of strings")
                                : QStringLiteral("expected an array of strings"));
    QStringList strings;
    for (const QJsonValue &item : value.toArray()) {
        if (!item.isString() || item.toString().isEmpty())
            return invalid(where, QStringLiteral("expected non-empty strings"));
        strings.append(item.toString());
    }
    return strings;
}

} // namespace

Result<DefinitionsDocument> DefinitionsDocument::parse(const QJsonObject &json, const QueueDefaults &defaults)
{
    if (const Result<void> known =
            onlyKnownKeys(json,
                          {QStringLiteral("definitions_version"), QStringLiteral("broker_version"),
                           QStringLiteral("queues"), QStringLiteral("roles"), QStringLiteral("users")},
                          QStringLiteral("document"));
        !known) {
        return known.error();
    }
    const QJsonValue version = json.value(QStringLiteral("definitions_version"));
    if (!version.isUndefined() && version.toInt(-1) != Version)
        return invalid(QStringLiteral("definitions_version"),
                       QStringLiteral("this broker reads version %1").arg(Version));
    const Result<QJsonArray> queues = arrayOf(json, QStringLiteral("queues"));
    const Result<QJsonArray> roles = arrayOf(json, QStringLiteral("roles"));
    const Result<QJsonArray> users = arrayOf(json, QStringLiteral("users"));
    for (const auto *array : {&queues, &roles, &users}) {
        if (!*array)
            return array->error();
    }

    DefinitionsDocument document;
    QSet<QString> seen;
    for (qsizetype i = 0; i < queues->size(); ++i) {
        const QString where = QStringLiteral("queues[%1]").arg(i);
        const QJsonObject entry = queues->at(i).toObject();
        if (const Result<void> known = onlyKnownKeys(entry, {QStringLiteral("name"), QStringLiteral("options")}, where);
            !known)
            return known.error();
        const QString name = entry.value(QStringLiteral("name")).toString();
        if (!Validation::queueName(name))
            return invalid(where, QStringLiteral("invalid queue name"));
        if (seen.contains(name))
            return invalid(where, QStringLiteral("queue '%1' is listed twice").arg(name));
        seen.insert(name);
        const QJsonValue options = entry.value(QStringLiteral("options"));
        if (!options.isUndefined() && !options.isObject())
            return invalid(where + QStringLiteral(".options"), QStringLiteral("expected an object"));
        const Result<QueueConfig> config = QueueConfig::fromOptions(name, options.toObject(), defaults);
        if (!config)
            return invalid(where + QStringLiteral(".options"),
                           config.error().detail.isEmpty()
                               ? config.error().message
                               : config.error().message + QStringLiteral(": ") + config.error().detail);
        document.queues.append({name, *config});
    }

    seen.clear();
    for (qsizetype i = 0; i < roles->size(); ++i) {
        const QString where = QStringLiteral("roles[%1]").arg(i);
        const QJsonObject entry = roles->at(i).toObject();
        if (const Result<void> known =
                onlyKnownKeys(entry, {QStringLiteral("name"), QStringLiteral("permissions")}, where);
            !known)
            return known.error();
        const QString name = entry.value(QStringLiteral("name")).toString();
        if (name.isEmpty() || seen.contains(name))
            return invalid(where,
                           name.isEmpty() ? QStringLiteral("a role needs a name")
                                          : QStringLiteral("role '%1' is listed twice").arg(name));
        seen.insert(name);
        const Result<QStringList> permissions =
            stringsOf(entry.value(QStringLiteral("permissions")), where + QStringLiteral(".permissions"), false);
        if (!permissions)
            return permissions.error();
        document.roles.append({name, *permissions});
    }

    seen.clear();
    for (qsizetype i = 0; i < users->size(); ++i) {
        const QString where = QStringLiteral("users[%1]").arg(i);
        const QJsonObject entry = users->at(i).toObject();
        // No key or hash is ever read from a document: imported users get fresh keys.
        if (const Result<void> known = onlyKnownKeys(entry,
                                                     {QStringLiteral("id"), QStringLiteral("name"),
                                                      QStringLiteral("roles"), QStringLiteral("disabled")},
                                                     where);
            !known) {
            return known.error();
        }
        UserEntry user;
        user.id = entry.value(QStringLiteral("id")).toString();
        if (!isValidUserId(user.id))
            return invalid(where, QStringLiteral("invalid user id (letters, digits and _ . - @; at most 64)"));
        if (seen.contains(user.id))
            return invalid(where, QStringLiteral("user '%1' is listed twice").arg(user.id));
        seen.insert(user.id);
        const QJsonValue name = entry.value(QStringLiteral("name"));
        const QJsonValue disabled = entry.value(QStringLiteral("disabled"));
        if (!name.isUndefined() && !name.isString())
            return invalid(where + QStringLiteral(".name"), QStringLiteral("expected a string"));
        if (!disabled.isUndefined() && !disabled.isBool())
            return invalid(where + QStringLiteral(".disabled"), QStringLiteral("expected true or false"));
        const Result<QStringList> userRoles =
            stringsOf(entry.value(QStringLiteral("roles")), where + QStringLiteral(".roles"), true);
        if (!userRoles)
            return userRoles.error();
        user.name = name.toString();
        user.roles = *userRoles;
        user.disabled = disabled.toBool(false);
        document.users.append(user);
    }
    return document;
}

QJsonObject DefinitionsDocument::toJson() const
{
    QJsonArray queueArray;
    for (const Queue &queue : queues)
        queueArray.append(QJsonObject{{QStringLiteral("name"), queue.name}, {QStringLiteral("options"), queue.config.toJson()}});
    QJsonArray roleArray;
    for (const Role &role : roles) {
        roleArray.append(QJsonObject{{QStringLiteral("name"), role.name},
                                     {QStringLiteral("permissions"), QJsonArray::fromStringList(role.permissions)}});
    }
    QJsonArray userArray;
    for (const UserEntry &user : users) {
        userArray.append(QJsonObject{{QStringLiteral("id"), user.id},
                                     {QStringLiteral("name"), user.name},
                                     {QStringLiteral("roles"), QJsonArray::fromStringList(user.roles)},
                                     {QStringLiteral("disabled"), user.disabled}});
    }
    return QJsonObject{{QStringLiteral("definitions_version"), Version},
                       {QStringLiteral("broker_version"), QStringLiteral(BROKER_VERSION)},
                       {QStringLiteral("queues"), queueArray},
                       {QStringLiteral("roles"), roleArray},
                       {QStringLiteral("users"), userArray}};
}

} // namespace Broker
