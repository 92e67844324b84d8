// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "router.h"

#include "core/engineoptions.h"

#include <QJsonObject>

namespace Broker::Rest {

// The OpenAPI 3.0 document of the API, generated from the route table (each route's contract)
// and the named schemas; bounds that come from the configuration are those of `engine`.
QJsonObject openApiDocument(const Router &router, const QString &version, const EngineOptions &engine);

} // namespace Broker::Rest
