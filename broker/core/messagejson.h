// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "message.h"

#include <QByteArray>
#include <QJsonValue>

namespace Broker {

class JsonWriter;

// The JSON form of a Message, one for everybody who hands messages out: the REST layer (GET
// /messages/{queue}, browsing) and the webhook processor, so that a webhook receives a message
// exactly as a consumer does.

// Compact JSON text of any value (QJsonDocument holds only objects and arrays).
QByteArray compactJson(const QJsonValue &value);
double unixSeconds(qint64 ms);

// The fields of a message object (without the braces): data embedded as stored (compact JSON),
// unparsed; receipt null when not leased; headers, visible_at, group and the dead-letter fields
// only when set.
void writeMessageFields(JsonWriter &out, const Message &message);
// `message` as one compact JSON object, as GET /messages/{queue} lists it.
QByteArray messageJson(const Message &message);

} // namespace Broker
