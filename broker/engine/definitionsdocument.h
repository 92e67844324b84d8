// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/queueconfig.h"
#include "core/result.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

namespace Broker {

// The definitions of a broker (GET/POST /definitions, the desktop's Export/Import definitions): its queues with their options, its roles and
// its users without keys or hashes — what is needed to set up a second broker like the first, and
// nothing secret. Like RabbitMQ's definitions file, one JSON object of arrays:
//   {"definitions_version":1, "broker_version":"…",
//    "queues":[{"name":…, "options":{…the options of POST /queues…}}],
//    "roles":[{"name":…, "permissions":[…]}],
//    "users":[{"id":…, "name":…, "roles":[…], "disabled":false}]}
struct DefinitionsDocument
{
    struct Queue
    {
        QString name;
        QueueConfig config;
    };
    struct Role
    {
        QString name;
        QStringList permissions;
    };
    struct UserEntry
    {
        QString id;
        QString name;
        QStringList roles;
        bool disabled = false;
    };

    QList<Queue> queues;
    QList<Role> roles;
    QList<UserEntry> users;

    static constexpr int Version = 1;

    // Reads and checks a whole document before anything is changed: shapes, names, every queue's
    // options (as POST /queues reads them, with `defaults` for what is left out), no name twice.
    // Any problem is InvalidArgument naming where it is ("queues[2].options: …").
    static Result<DefinitionsDocument> parse(const QJsonObject &json, const QueueDefaults &defaults);
    // The document as JSON (what parse() reads back), stamped with this broker's version.
    QJsonObject toJson() const;
};

} // namespace Broker
