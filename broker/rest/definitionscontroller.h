// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "controller.h"

#include "engine/definitions.h"

#include <QJsonObject>

namespace Broker::Rest {

// /definitions (manage_users): export the broker's queues with their options, its roles and its
// users (never keys or hashes) as one document, and import such a document. What an export holds
// and what an import does is the engine's (Definitions, shared with the desktop app); this is the
// HTTP of it: who may, the body, the status. A bad document is 400 and changes nothing; an import
// also needs create_queue when it lists queues, and the right to grant each new user's roles.
// New users' fresh keys are shown once in the answer, as POST /users does.
class DefinitionsController final : public Controller
{
public:
    DefinitionsController(RestContext &context, Router &router);

private:
    void exportDefinitions(const ExchangePtr &exchange);
    void importDefinitions(const ExchangePtr &exchange);

    // 403 unless the caller may do everything the import would do: create queues when there are
    // queues to create, give every new user its roles.
    bool mayImport(const ExchangePtr &exchange, const DefinitionsDocument &document) const;

    Definitions m_definitions;
};

} // namespace Broker::Rest
