// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/brokersnapshot.h"
#include "core/messageevent.h"
#include "core/queueinfo.h"

#include <QJsonObject>

#include <optional>

namespace Broker::ApiJson {

// The REST API's JSON read back into the engine's value types, for a desktop that administers a
// remote broker: what rest/serializers writes, read field by field. Missing or mistyped fields
// read as their defaults; only what cannot be one (a queue without a name, an event of an unknown
// kind) is refused.

// A queue as GET /queues/{q} (and the event stream's `queues` events) writes it.
std::optional<QueueInfo> queueInfo(const QJsonObject &json);
// A message event as GET /queues/{q}/events and the event stream's `message` events write it.
std::optional<MessageEvent> messageEvent(const QJsonObject &json);
// The event stream's `broker` event into the snapshot's broker-wide fields.
void applyBrokerCounters(const QJsonObject &json, BrokerSnapshot &snapshot);

} // namespace Broker::ApiJson
