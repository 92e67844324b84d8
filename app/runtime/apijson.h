// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/brokersnapshot.h"
#include "core/definitionsimport.h"
#include "core/errorrecord.h"
#include "core/message.h"
#include "core/messageaction.h"
#include "core/messageevent.h"
#include "core/processorstatus.h"
#include "core/queueinfo.h"
#include "core/result.h"
#include "core/user.h"

#include <QByteArray>
#include <QJsonObject>
#include <QList>

#include <optional>

namespace Broker::ApiJson {

// The REST API's JSON read back into the engine's value types, for a desktop that administers a
// remote broker: what rest/serializers and the controllers write, read field by field. Missing or
// mistyped fields read as their defaults; only what cannot be one (a queue without a name, an
// event of an unknown kind, an answer that lacks the field it exists for) is refused.

// A queue as GET /queues/{q} (and the event stream's `queues` events) writes it.
std::optional<QueueInfo> queueInfo(const QJsonObject &json);
// POST /queues's answer ({"queue","created","config"}): a queue just made, so empty, its counters 0.
std::optional<QueueInfo> createdQueue(const QJsonObject &json);
// A message event as GET /queues/{q}/events and the event stream's `message` events write it.
std::optional<MessageEvent> messageEvent(const QJsonObject &json);
// The `events` of GET /messages/{q}/{id}/events, oldest first; unknown kinds are left out.
QList<MessageEvent> messageEvents(const QJsonObject &json);
// The event stream's `broker` event into the snapshot's broker-wide fields.
void applyBrokerCounters(const QJsonObject &json, BrokerSnapshot &snapshot);

// GET /queues/{q}/messages's answer, `body` as received: payloads (`data`) are taken from the text
// as the broker wrote them, so that key order and numbers beyond a double's precision survive.
// Messages of a live state name `queue` as theirs; dead-lettered ones live in its dead-letter
// queue, which the answer does not name, and carry an empty queue.
std::optional<BrowsePage> browsePage(const QByteArray &body, const QString &queue);
// POST /messages/{q} ({"message_id"}) or /batch ({"message_ids"}).
std::optional<PublishResult> publishResult(const QJsonObject &json);
// POST /queues/{q}/redrive's answer, `body` as received (before/after payloads kept as text).
std::optional<RedriveResult> redriveResult(const QByteArray &body);
std::optional<MessageActionResult> messageActionResult(const QJsonObject &json);

// One user of GET /users (keyHash stays empty: the API never shows it).
std::optional<User> user(const QJsonObject &json);
QList<User> users(const QJsonObject &json);
// POST /users and POST /users/{id}/rotate: {"id","api_key"}.
std::optional<IssuedKey> issuedKey(const QJsonObject &json);
std::optional<ErrorRecord> errorRecord(const QJsonObject &json);
QList<ErrorRecord> errorRecords(const QJsonObject &json);
// GET /processors: {"processors":[…]} (processorreport's fields), in the broker's order.
ProcessorStatusList processorStatuses(const QJsonObject &json);
// POST /definitions's answer (DefinitionsImport::toJson read back).
std::optional<DefinitionsImport> definitionsImport(const QJsonObject &json);

// An error answer (status >= 400) as the engine would have reported it: the code from the status
// and, where one status stands for several codes (404, 409, 429), from the broker's `error`
// text; the message is that text, the detail the problem's `detail`. `notFound` is the code of a
// 404 whose text names nothing known (the resource the path is about).
Error error(int status, const QJsonObject &problem, ErrorCode notFound);

} // namespace Broker::ApiJson
