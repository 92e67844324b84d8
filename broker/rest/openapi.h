// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "router.h"

#include <QJsonObject>

namespace Broker::Rest {

// The OpenAPI 3.0 document of the API, generated from the route table.
QJsonObject openApiDocument(const Router &router, const QString &version);

} // namespace Broker::Rest
