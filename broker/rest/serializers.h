// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/message.h"
#include "core/messagejson.h" // compactJson, unixSeconds, the message object
#include "core/messageevent.h"
#include "core/queueinfo.h"
#include "security/userdirectory.h"

#include <QJsonObject>
#include <QJsonValue>

#include <functional>

namespace Broker::Rest {

using Broker::JsonWriter;

// gCore's queue fields (name, created, message_count, stats, config); `detail` adds ours.
// `durability` (detail only): what the store promises for this queue's messages.
void writeQueue(JsonWriter &out, const QueueInfo &queue, bool detail, const QString &durability = {});
void writeQueueConfig(JsonWriter &out, const QueueConfig &config);
// {publish_per_second, publish_per_second_1m, consume_per_second, consume_per_second_1m}
void writeRates(JsonWriter &out, const QueueRates &rates);
// Messages are written as text: their data is embedded as stored (compact JSON), unparsed.
void writeMessage(JsonWriter &out, const Message &message);
// A message as browsing shows it: writeMessage's fields plus its `state` and, in flight,
// `lease_expires` (unix seconds). A browsed message never carries the consumer's receipt.
void writeBrowsedMessage(JsonWriter &out, const Message &message, const char *state);
// Never a key or a hash.
QJsonObject userJson(const User &user);
QJsonObject eventJson(const MessageEvent &event);
// `event` as shown to a caller who may peek only the queues `mayPeek` accepts: a redrive names the
// dead-letter queue it came from only when that queue is peekable too.
QJsonObject eventJson(const MessageEvent &event, const std::function<bool(const QString &queue)> &mayPeek);

} // namespace Broker::Rest
