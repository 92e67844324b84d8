// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QJsonObject>

// JSON schemas of request bodies, for the OpenAPI document (Route::requestSchema). They describe
// what the handlers read; the handlers stay the judges (their 400s name the field).
namespace Broker::Rest::RequestSchemas {

QJsonObject queueOptionsChange(); // PATCH /queues/{name}
QJsonObject messageActions();     // POST /queues/{name}/messages/actions
QJsonObject redrive();            // POST /queues/{name}/redrive

} // namespace Broker::Rest::RequestSchemas
