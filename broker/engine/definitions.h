// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "definitionsdocument.h"

#include "core/definitionsimport.h"
#include "core/queuestore.h"
#include "core/result.h"

#include <QJsonObject>
#include <QStringList>

namespace Broker {

class AccessPolicy;
class MessageBroker;
class UserDirectory;

// Export and import of a broker's definitions (queues with their options, roles, users without
// keys), the same for every caller: the REST API (GET/POST /definitions) and the desktop app.
// Callers check who may do it; this class does what is asked. An import is read and checked
// whole first (read()), so that a bad document changes nothing; it then adds only what is
// missing: an existing queue with other options, or an existing user with other roles, is
// reported as a conflict and left as it is. Roles come from message_broker.yaml, so an import
// never defines one; it reports each as present (same permissions here) or not imported, and
// why. New users get fresh keys, which the summary carries once.
// Lives in the engine's thread; the broker, users and policy must outlive it and every
// operation in progress.
class Definitions
{
public:
    Definitions(MessageBroker &broker, UserDirectory &users, const AccessPolicy &policy);

    // Every queue with its options, every role but admin (built in, the same everywhere) with
    // its permissions, every user without key, prefix or hash.
    void exportDocument(Completion<DefinitionsDocument> done) const;

    // The whole document checked: shapes, names, options as POST /queues reads them (with this
    // broker's defaults for what is left out), registered queue types. InvalidArgument names
    // where the problem is ("queues[2].options: …", "queue 'q': …").
    Result<DefinitionsDocument> read(const QJsonObject &json) const;

    // PermissionDenied unless `actorRoles` may give every user the import would add its roles
    // (users that exist, or need a role missing here, are not added and need nothing).
    Result<void> mayAddUsers(const QStringList &actorRoles, const DefinitionsDocument &document) const;

    // Adds what is missing: queues one after another, dead-letter targets first; roles are
    // compared; users are added. Fails only when the queues could not be listed; a queue the
    // store refuses is in the summary's failures.
    void import(const DefinitionsDocument &document, Completion<DefinitionsImport> done);

private:
    void importRoles(const DefinitionsDocument &document, DefinitionsImport &summary) const;
    void importUsers(const DefinitionsDocument &document, DefinitionsImport &summary);

    MessageBroker &m_broker;
    UserDirectory &m_users;
    const AccessPolicy &m_policy;
};

} // namespace Broker
