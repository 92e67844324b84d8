// SPDX-License-Identifier: GPL-3.0-or-later
#include "requestschemas.h"

#include <QJsonDocument>

namespace Broker::Rest::RequestSchemas {

namespace {

QJsonObject parsed(const char *text)
{
    return QJsonDocument::fromJson(QByteArray(text)).object();
}

} // namespace

QJsonObject queueOptionsChange()
{
    static const QJsonObject schema = parsed(R"({
        "type": "object", "required": ["options"], "additionalProperties": false,
        "properties": {"options": {
            "type": "object", "minProperties": 1, "additionalProperties": false,
            "description": "Only these options can change; the type is fixed when the queue is created.",
            "properties": {
                "max_size": {"type": "integer", "minimum": 1, "maximum": 100000000},
                "ttl": {"type": "integer", "minimum": 1, "maximum": 315360000, "description": "seconds"},
                "visibility_timeout": {"type": "integer", "minimum": 1, "maximum": 43200, "description": "seconds"},
                "max_deliveries": {"type": "integer", "minimum": 1, "maximum": 1000},
                "dead_letter_queue": {"description": "a queue name, true for <name>.dlq, false or null for none",
                                      "oneOf": [{"type": "string"}, {"type": "boolean"}], "nullable": true}}}}})");
    return schema;
}

QJsonObject messageActions()
{
    static const QJsonObject schema = parsed(R"({
        "type": "object", "required": ["action", "ids"], "additionalProperties": false,
        "properties": {
            "action": {"type": "string", "enum": ["delete", "requeue", "move", "dead_letter"]},
            "ids": {"type": "array", "minItems": 1, "maxItems": 1000, "items": {"type": "string"}},
            "target": {"type": "string", "description": "move: the queue the messages go to"}}})");
    return schema;
}

QJsonObject redrive()
{
    static const QJsonObject schema = parsed(R"({
        "type": "object", "additionalProperties": false,
        "properties": {
            "limit": {"type": "integer", "minimum": 0, "description": "at most this many; 0: all"},
            "ids": {"type": "array", "maxItems": 1000, "items": {"type": "string"},
                    "description": "only these dead-lettered messages"},
            "edits": {"type": "object", "additionalProperties": {},
                      "description": "message id -> the payload (any JSON but null) it goes back with"},
            "dry_run": {"type": "boolean", "description": "answer what would move, and move nothing"}}})");
    return schema;
}

} // namespace Broker::Rest::RequestSchemas
