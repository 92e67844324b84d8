// SPDX-License-Identifier: GPL-3.0-or-later
// users list|add|rotate|delete|disable|enable|roles.
#include "commands.h"

#include "commandsupport.h"

#include <QJsonArray>

namespace BrokerCtl {

void Commands::users(const QStringList &words)
{
    const QString action = words.value(1);
    if (action == u"list" || action.isEmpty()) {
        return call("GET", QStringLiteral("/users"), {}, [this](const QJsonValue &json, const QByteArray &raw) {
            QList<QStringList> rows;
            for (const QJsonValue &user : json[QStringLiteral("users")].toArray()) {
                const QJsonObject u = user.toObject();
                QStringList roles;
                for (const QJsonValue &role : u[QStringLiteral("roles")].toArray())
                    roles << role.toString();
                rows.append({u[QStringLiteral("id")].toString(), u[QStringLiteral("name")].toString(),
                             roles.join(QLatin1Char(',')), u[QStringLiteral("key_prefix")].toString(),
                             Output::cell(u[QStringLiteral("disabled")]), Output::time(u[QStringLiteral("created")]),
                             Output::time(u[QStringLiteral("last_used")])});
            }
            m_output.table({QStringLiteral("ID"), QStringLiteral("NAME"), QStringLiteral("ROLES"),
                            QStringLiteral("KEY"), QStringLiteral("DISABLED"), QStringLiteral("CREATED"),
                            QStringLiteral("LAST USED")},
                           rows, raw);
            m_finish(Ok);
        });
    }
    if (!need(words, 3, "users add|rotate|delete|disable|enable|roles ID"))
        return;
    const QString id = words[2];
    const auto showKey = [this](const QJsonValue &json, const QByteArray &raw) {
        if (m_output.format() == Output::Format::Table)
            Output::note(QStringLiteral("The new API key is shown once; store it now."));
        m_output.keyValues(pairsOf(json.toObject()), raw);
        m_finish(Ok);
    };
    if (action == u"add") {
        if (!m_parser.isSet(QStringLiteral("roles")))
            return fail(UsageError, QStringLiteral("usage: brokerctl users add ID --roles R[,R] [--name N]"));
        QJsonObject body{{QStringLiteral("id"), id},
                         {QStringLiteral("roles"),
                          QJsonArray::fromStringList(option("roles").split(QLatin1Char(','), Qt::SkipEmptyParts))}};
        if (m_parser.isSet(QStringLiteral("name")))
            body.insert(QStringLiteral("name"), option("name"));
        return call("POST", QStringLiteral("/users"), compact(body), showKey);
    }
    if (action == u"rotate")
        return call("POST", QStringLiteral("/users/") + encoded(id) + QStringLiteral("/rotate"), {}, showKey);
    if (action == u"delete") {
        return call("DELETE", QStringLiteral("/users/") + encoded(id), {},
                    [this](const QJsonValue &json, const QByteArray &raw) {
                        m_output.keyValues(pairsOf(json.toObject()), raw);
                        m_finish(Ok);
                    });
    }
    // PATCH /users/{id}: the broker refuses (409) to disable or demote the last admin.
    const auto change = [this, id](const QJsonObject &body) {
        call("PATCH", QStringLiteral("/users/") + encoded(id), compact(body),
             [this](const QJsonValue &json, const QByteArray &raw) {
                 m_output.keyValues(pairsOf(json.toObject()), raw);
                 m_finish(Ok);
             });
    };
    if (action == u"disable" || action == u"enable")
        return change(QJsonObject{{QStringLiteral("disabled"), action == u"disable"}});
    if (action == u"roles") {
        const QString roles = words.size() >= 4 ? words[3] : option("roles");
        if (roles.isEmpty())
            return fail(UsageError, QStringLiteral("usage: brokerctl users roles ID R[,R]"));
        return change(QJsonObject{
            {QStringLiteral("roles"), QJsonArray::fromStringList(roles.split(QLatin1Char(','), Qt::SkipEmptyParts))}});
    }
    fail(UsageError, QStringLiteral("unknown users action '%1'").arg(action));
}

} // namespace BrokerCtl
