// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/engineoptions.h"

#include <QJsonArray>
#include <QJsonObject>

// The named JSON schemas (components/schemas) of the OpenAPI document: every body the API reads
// or answers. They describe what the handlers and serializers do; the REST contract tests
// validate every answer against them. Bounds that come from the configuration are filled in
// from `engine`.
namespace Broker::Rest::ApiSchemas {

QJsonObject components(const EngineOptions &engine);
QJsonArray tags(); // the operations' tags, with descriptions

// The parts, by resource.
QJsonObject queueSchemas();
QJsonObject messageSchemas(const EngineOptions &engine);
QJsonObject operationSchemas();

// JSON text (a raw string literal) as an object.
QJsonObject parsed(const char *json);

} // namespace Broker::Rest::ApiSchemas
