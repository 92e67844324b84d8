// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QString>
#include <QStringList>

namespace Broker {

// What an import of definitions did, item by item: the answer of POST /definitions and what the
// desktop app shows after "Import definitions…". New users' keys are here once and nowhere else
// (only their hashes are stored), so whoever holds this shows them to a person and drops them.
struct DefinitionsImport
{
    // One item that was not imported (or not all of it), and why.
    struct Refused
    {
        QString name; // a queue or role name, or a user id
        QString reason;
    };
    // An option whose value here is not the document's.
    struct Difference
    {
        QString option; // as in POST /queues ("max_size")
        QJsonValue existing;
        QJsonValue requested;
    };
    struct QueueConflict
    {
        QString name;
        QString reason;
        QList<Difference> differences;
    };
    struct NewUser
    {
        QString id;
        QString apiKey;
        bool disabled = false;
    };

    QStringList queuesCreated; // in the order they were made (dead-letter targets first)
    QStringList queuesUnchanged;
    QList<QueueConflict> queueConflicts; // exist here with other options: left as they are
    QList<Refused> queuesFailed;         // the store refused to make them
    QStringList rolesPresent;            // defined here with the same permissions
    QList<Refused> rolesNotImported;     // roles come from the configuration file only
    QList<NewUser> usersCreated;
    QStringList usersUnchanged;
    QList<Refused> userConflicts; // exist with other roles or state, or need a role missing here

    // True when every queue the document asked for exists now (conflicts included, left alone).
    bool success() const { return queuesFailed.isEmpty(); }

    // The JSON of POST /definitions's answer:
    //   {"success":…, "queues":{"created":[…], "unchanged":[…], "conflicts":[{"name","reason",
    //    "differences":{"option":{"existing":…,"requested":…}}}], "failed":[{"name","reason"}]},
    //    "roles":{"present":[…], "not_imported":[{"name","reason"}]},
    //    "users":{"created":[{"id","api_key","disabled"}], "unchanged":[…], "conflicts":[{"id","reason"}]}}
    QJsonObject toJson() const;
};

} // namespace Broker
