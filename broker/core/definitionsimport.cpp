// SPDX-License-Identifier: GPL-3.0-or-later
#include "definitionsimport.h"

#include <QJsonArray>

namespace Broker {

namespace {

QJsonArray refusedJson(const QList<DefinitionsImport::Refused> &items, const QString &nameKey)
{
    QJsonArray array;
    for (const DefinitionsImport::Refused &item : items)
        array.append(QJsonObject{{nameKey, item.name}, {QStringLiteral("reason"), item.reason}});
    return array;
}

} // namespace

QJsonObject DefinitionsImport::toJson() const
{
    QJsonArray conflicts;
    for (const QueueConflict &conflict : queueConflicts) {
        QJsonObject differences;
        for (const Difference &difference : conflict.differences) {
            differences.insert(difference.option,
                               QJsonObject{{QStringLiteral("existing"), difference.existing},
                                           {QStringLiteral("requested"), difference.requested}});
        }
        conflicts.append(QJsonObject{{QStringLiteral("name"), conflict.name},
                                     {QStringLiteral("reason"), conflict.reason},
                                     {QStringLiteral("differences"), differences}});
    }
    QJsonArray created;
    for (const NewUser &user : usersCreated) {
        created.append(QJsonObject{{QStringLiteral("id"), user.id},
                                   {QStringLiteral("api_key"), user.apiKey},
                                   {QStringLiteral("disabled"), user.disabled}});
    }
    const QString name = QStringLiteral("name");
    return QJsonObject{{QStringLiteral("success"), success()},
                       {QStringLiteral("queues"),
                        QJsonObject{{QStringLiteral("created"), QJsonArray::fromStringList(queuesCreated)},
                                    {QStringLiteral("unchanged"), QJsonArray::fromStringList(queuesUnchanged)},
                                    {QStringLiteral("conflicts"), conflicts},
                                    {QStringLiteral("failed"), refusedJson(queuesFailed, name)}}},
                       {QStringLiteral("roles"),
                        QJsonObject{{QStringLiteral("present"), QJsonArray::fromStringList(rolesPresent)},
                                    {QStringLiteral("not_imported"), refusedJson(rolesNotImported, name)}}},
                       {QStringLiteral("users"),
                        QJsonObject{{QStringLiteral("created"), created},
                                    {QStringLiteral("unchanged"), QJsonArray::fromStringList(usersUnchanged)},
                                    {QStringLiteral("conflicts"), refusedJson(userConflicts, QStringLiteral("id"))}}}};
}

} // namespace Broker
