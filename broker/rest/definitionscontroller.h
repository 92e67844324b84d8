// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "controller.h"
#include "definitionsdocument.h"

#include <QJsonObject>

namespace Broker::Rest {

// /definitions (manage_users): export the broker's queues with their options, its roles and its
// users (never keys or hashes) as one document, and import such a document. An import checks the
// whole document first (a bad one changes nothing), then adds only what is missing: an existing
// queue with other options, or an existing user with other roles, is reported as a conflict and
// left as it is. Roles come from message_broker.yaml, so an import never defines one; it reports
// each role as present (same permissions here) or not imported, with the reason. New users get
// fresh keys, shown once in the answer as POST /users does.
class DefinitionsController final : public Controller
{
public:
    DefinitionsController(RestContext &context, Router &router);

    // OpenAPI schemas of the document and of the import summary ("Definitions",
    // "DefinitionsImport"), for the components section.
    static QJsonObject openApiSchemas();

private:
    void exportDefinitions(const ExchangePtr &exchange);
    void importDefinitions(const ExchangePtr &exchange);

    // 403 unless the caller may do everything the import would do: create queues when there are
    // queues to create, give every new user its roles.
    bool mayImport(const ExchangePtr &exchange, const DefinitionsDocument &document) const;
    QJsonObject importRoles(const DefinitionsDocument &document) const;
    QJsonObject importUsers(const DefinitionsDocument &document);
};

} // namespace Broker::Rest
