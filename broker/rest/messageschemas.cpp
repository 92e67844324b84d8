// SPDX-License-Identifier: GPL-3.0-or-later
#include "apischemas.h"

#include "core/queueconfig.h"

namespace Broker::Rest::ApiSchemas {

namespace {

// A schema's property, reached by its path, gets `key: value` (bounds from the configuration).
void setBound(QJsonObject &schemas, const QString &schema, const QStringList &path, const char *key, double value)
{
    QJsonObject root = schemas.value(schema).toObject();
    std::function<void(QJsonObject &, qsizetype)> walk = [&](QJsonObject &node, qsizetype depth) {
        if (depth == path.size()) {
            node.insert(QLatin1StringView(key), value);
            return;
        }
        QJsonObject properties = node.value(QStringLiteral("properties")).toObject();
        QJsonObject child = properties.value(path[depth]).toObject();
        walk(child, depth + 1);
        properties.insert(path[depth], child);
        node.insert(QStringLiteral("properties"), properties);
    };
    walk(root, 0);
    schemas.insert(schema, root);
}

} // namespace

QJsonObject messageSchemas(const EngineOptions &engine)
{
    static const QJsonObject fixed = parsed(R"json({
    "MessageFields": {
        "id": {"type": "string", "example": "msg-000000000000002a"},
        "timestamp": {"type": "number", "description": "unix seconds with fraction, when it was published"},
        "data": {"description": "the payload, any JSON but null, as it was published"},
        "publisher": {"type": "string", "description": "the publishing user's id"},
        "delivery_count": {"type": "integer", "minimum": 0},
        "receipt": {"type": "string", "nullable": true, "description": "the lease's receipt; null when not leased"},
        "priority": {"type": "integer"},
        "headers": {"type": "object", "additionalProperties": {}},
        "visible_at": {"type": "number", "description": "unix seconds: a lease's end, or a delayed message's due time"},
        "group": {"type": "string", "description": "stream queues: the consumer group"},
        "origin_queue": {"type": "string", "description": "dead letters: the queue it came from"},
        "dead_letter_reason": {"type": "string"},
        "dead_lettered_at": {"type": "number", "description": "unix seconds"}},
    "PublishOptions": {
        "priority": {"type": "integer", "minimum": -1000000, "maximum": 1000000, "default": 0},
        "delay": {"type": "number", "minimum": 0, "default": 0, "description": "seconds before it can be delivered"},
        "headers": {"type": "object", "nullable": true, "additionalProperties": {}},
        "key": {"type": "string", "minLength": 1, "maxLength": 256, "nullable": true,
                "description": "partitioned queues: messages with one key go to one partition and keep their order; elsewhere ignored"}},
    "ReceiptFields": {
        "receipt": {"type": "string", "description": "the lease's receipt; a stale one is refused (409)"},
        "group": {"type": "string", "description": "stream queues: the consumer group"}},
    "MessageEvent": {
        "type": "object", "additionalProperties": false, "required": ["number", "time", "event", "queue", "delivery_count"],
        "properties": {
            "number": {"type": "integer"}, "time": {"type": "number", "description": "unix seconds"},
            "event": {"type": "string", "enum": ["published", "delivered", "acked", "nacked", "lease_expired", "expired",
                                                 "dead_lettered", "dropped", "redriven", "purged", "deleted", "moved",
                                                 "requeued", "unknown"]},
            "queue": {"type": "string"}, "message_id": {"type": "string"}, "delivery_count": {"type": "integer"},
            "user": {"type": "string"}, "detail": {"type": "string"}}},
    "Published": {
        "type": "object", "additionalProperties": false, "required": ["success", "message_id", "queue_size"],
        "properties": {"success": {"type": "boolean", "enum": [true]}, "message_id": {"type": "string"},
                       "queue_size": {"type": "integer"}},
        "example": {"success": true, "message_id": "msg-000000000000002a", "queue_size": 1}},
    "BatchPublished": {
        "type": "object", "additionalProperties": false, "required": ["success", "message_ids", "queue_size"],
        "properties": {"success": {"type": "boolean", "enum": [true]},
                       "message_ids": {"type": "array", "items": {"type": "string"}}, "queue_size": {"type": "integer"}}},
    "Acknowledged": {
        "type": "object", "additionalProperties": false, "required": ["success", "acknowledged"],
        "properties": {"success": {"type": "boolean", "enum": [true]}, "acknowledged": {"type": "boolean", "enum": [true]}}},
    "Nacked": {
        "type": "object", "additionalProperties": false, "required": ["success", "requeued", "dead_lettered"],
        "properties": {"success": {"type": "boolean", "enum": [true]}, "requeued": {"type": "boolean"},
                       "dead_lettered": {"type": "boolean"}}},
    "Extended": {
        "type": "object", "additionalProperties": false, "required": ["success", "visible_at"],
        "properties": {"success": {"type": "boolean", "enum": [true]},
                       "visible_at": {"type": "number", "description": "unix seconds: the lease's new end"}}},
    "MessageHistory": {
        "type": "object", "additionalProperties": false, "required": ["message_id", "events"],
        "properties": {"message_id": {"type": "string"},
                       "events": {"type": "array", "items": {"$ref": "#/components/schemas/MessageEvent"}}}},
    "QueueEvents": {
        "type": "object", "additionalProperties": false, "required": ["events"],
        "properties": {"events": {"type": "array", "items": {"$ref": "#/components/schemas/MessageEvent"}}}},
    "MessageActionsRequest": {
        "type": "object", "required": ["action", "ids"], "additionalProperties": false,
        "properties": {
            "action": {"type": "string", "enum": ["delete", "requeue", "move", "dead_letter"]},
            "ids": {"type": "array", "minItems": 1, "maxItems": 1000, "items": {"type": "string", "minLength": 1}},
            "target": {"$ref": "#/components/schemas/QueueName"}},
        "example": {"action": "move", "ids": ["msg-000000000000002a"], "target": "orders.retry"}},
    "MessageActionsResult": {
        "type": "object", "additionalProperties": false, "required": ["success", "action", "affected", "missing"],
        "properties": {"success": {"type": "boolean", "enum": [true]},
                       "action": {"type": "string", "enum": ["delete", "requeue", "move", "dead_letter"]},
                       "affected": {"type": "integer", "minimum": 0},
                       "missing": {"type": "array", "items": {"type": "string"}, "description": "ids not found in the queue"}}},
    "RedriveRequest": {
        "type": "object", "additionalProperties": false,
        "properties": {
            "limit": {"type": "integer", "minimum": 0, "maximum": 2147483647, "description": "at most this many; 0: all"},
            "ids": {"type": "array", "maxItems": 1000, "items": {"type": "string", "minLength": 1},
                    "description": "only these dead-lettered messages"},
            "edits": {"type": "object", "additionalProperties": {},
                      "description": "message id -> the payload (any JSON but null) it goes back with"},
            "dry_run": {"type": "boolean", "description": "answer what would move, and move nothing"}},
        "example": {"ids": ["msg-000000000000002a"], "edits": {"msg-000000000000002a": {"order": 7}}, "dry_run": true}},
    "RedriveResult": {
        "type": "object", "additionalProperties": false, "required": ["success", "moved", "dry_run"],
        "properties": {
            "success": {"type": "boolean", "enum": [true]}, "moved": {"type": "integer", "minimum": 0},
            "dry_run": {"type": "boolean"},
            "messages": {"type": "array", "description": "a selection or a dry run: what changes, message by message",
                         "items": {"type": "object", "additionalProperties": false,
                                   "required": ["id", "origin_queue", "before", "after", "edited"],
                                   "properties": {"id": {"type": "string"}, "origin_queue": {"type": "string"},
                                                  "before": {}, "after": {}, "edited": {"type": "boolean"}}}},
            "missing": {"type": "array", "items": {"type": "string"}}}}
    })json");
    QJsonObject schemas;
    const auto object = [](const QJsonObject &properties, const QStringList &required, const QJsonObject &example = {}) {
        QJsonObject schema{{QStringLiteral("type"), QStringLiteral("object")}, {QStringLiteral("properties"), properties}};
        if (!required.isEmpty())
            schema.insert(QStringLiteral("required"), QJsonArray::fromStringList(required));
        if (!example.isEmpty())
            schema.insert(QStringLiteral("example"), example);
        return schema;
    };
    const auto merged = [](QJsonObject into, const QJsonObject &more) {
        for (auto it = more.begin(); it != more.end(); ++it)
            into.insert(it.key(), it.value());
        return into;
    };
    const auto ref = [](const char *name) {
        return QJsonObject{{QStringLiteral("$ref"), QStringLiteral("#/components/schemas/") + QLatin1StringView(name)}};
    };
    for (auto it = fixed.begin(); it != fixed.end(); ++it) {
        if (!it.key().endsWith(u"Fields") && it.key() != u"PublishOptions")
            schemas.insert(it.key(), it.value());
    }
    const QJsonObject messageFields = fixed.value(QStringLiteral("MessageFields")).toObject();
    const QJsonObject publishOptions = fixed.value(QStringLiteral("PublishOptions")).toObject();
    const QJsonObject receiptFields = fixed.value(QStringLiteral("ReceiptFields")).toObject();
    const QStringList messageRequired{QStringLiteral("id"), QStringLiteral("timestamp"), QStringLiteral("data"),
                                      QStringLiteral("publisher"), QStringLiteral("delivery_count"),
                                      QStringLiteral("receipt"), QStringLiteral("priority")};
    const QJsonObject messageExample = parsed(R"json({"id": "msg-000000000000002a", "timestamp": 1767225600.125,
        "data": {"order": 7}, "publisher": "publisher_user", "delivery_count": 1, "receipt": "r-5f2c", "priority": 0,
        "visible_at": 1767225630.125})json");
    QJsonObject message = object(messageFields, messageRequired, messageExample);
    message.insert(QStringLiteral("additionalProperties"), false);
    schemas.insert(QStringLiteral("Message"), message);
    // A browsed message is a message plus where it is; a schema of its own, so that both stay closed.
    QJsonObject browsed = object(merged(messageFields, parsed(R"json({
        "state": {"type": "string", "enum": ["ready", "delayed", "in_flight", "dead"]},
        "lease_expires": {"type": "number", "description": "in flight: unix seconds when the lease ends"}})json")),
                                 messageRequired + QStringList{QStringLiteral("state")});
    browsed.insert(QStringLiteral("additionalProperties"), false);
    schemas.insert(QStringLiteral("BrowsedMessage"), browsed);
    schemas.insert(QStringLiteral("BrowsePage"), parsed(R"json({
        "type": "object", "additionalProperties": false,
        "required": ["messages", "total", "next_offset", "state", "scanned", "truncated"],
        "properties": {
            "messages": {"type": "array", "items": {"$ref": "#/components/schemas/BrowsedMessage"}},
            "total": {"type": "integer", "minimum": 0}, "next_offset": {"type": "integer", "nullable": true,
                                                                         "description": "null at the end"},
            "state": {"type": "string", "enum": ["ready", "delayed", "in_flight", "dead"]},
            "scanned": {"type": "integer", "minimum": 0}, "truncated": {"type": "boolean"}}})json"));
    // Consuming answers one message, or (count > 1) a list.
    schemas.insert(QStringLiteral("Consumed"),
                   QJsonObject{{QStringLiteral("oneOf"),
                                QJsonArray{merged(object({{QStringLiteral("message"), ref("Message")},
                                                          {QStringLiteral("acknowledged"), parsed(R"json({"type": "boolean"})json")}},
                                                         {QStringLiteral("message"), QStringLiteral("acknowledged")}),
                                                  {{QStringLiteral("additionalProperties"), false}}),
                                           merged(object({{QStringLiteral("messages"),
                                                           QJsonObject{{QStringLiteral("type"), QStringLiteral("array")},
                                                                       {QStringLiteral("items"), ref("Message")}}},
                                                          {QStringLiteral("acknowledged"), parsed(R"json({"type": "boolean"})json")}},
                                                         {QStringLiteral("messages"), QStringLiteral("acknowledged")}),
                                                  {{QStringLiteral("additionalProperties"), false}})}}});
    schemas.insert(QStringLiteral("PublishRequest"),
                   object(merged(publishOptions, parsed(R"json({"message": {"description": "the payload: any JSON but null"}})json")),
                          {QStringLiteral("message")},
                          parsed(R"json({"message": {"order": 7, "items": ["book"]}, "priority": 0, "delay": 0,
                                     "headers": {"source": "shop"}})json")));
    schemas.insert(QStringLiteral("BatchPublishRequest"),
                   object(merged(publishOptions, parsed(R"json({"messages": {"type": "array", "minItems": 1,
                                 "items": {"description": "a payload: any JSON but null"},
                                 "description": "published all or nothing, with the same priority, delay, headers and key"}})json")),
                          {QStringLiteral("messages")}, parsed(R"json({"messages": [{"order": 7}, {"order": 8}]})json")));
    schemas.insert(QStringLiteral("AckRequest"), object(receiptFields, {}));
    schemas.insert(QStringLiteral("NackRequest"),
                   object(merged(receiptFields, parsed(R"json({"delay": {"type": "number", "minimum": 0, "default": 0,
                          "description": "seconds before it can be delivered again"}})json")), {}));
    schemas.insert(QStringLiteral("ExtendRequest"),
                   object(merged(receiptFields, parsed(R"json({"visibility_timeout": {"type": "integer", "minimum": 1,
                          "description": "seconds from now"}})json")), {QStringLiteral("visibility_timeout")},
                          parsed(R"json({"visibility_timeout": 60, "receipt": "r-5f2c"})json")));

    const double maxDelay = double(engine.maxDelayMs / 1000);
    setBound(schemas, QStringLiteral("PublishRequest"), {QStringLiteral("delay")}, "maximum", maxDelay);
    setBound(schemas, QStringLiteral("BatchPublishRequest"), {QStringLiteral("delay")}, "maximum", maxDelay);
    setBound(schemas, QStringLiteral("NackRequest"), {QStringLiteral("delay")}, "maximum", maxDelay);
    setBound(schemas, QStringLiteral("BatchPublishRequest"), {QStringLiteral("messages")}, "maxItems", engine.maxBatch);
    setBound(schemas, QStringLiteral("ExtendRequest"), {QStringLiteral("visibility_timeout")}, "maximum",
             double(QueueLimits::MaxVisibilityTimeoutSeconds));
    return schemas;
}

} // namespace Broker::Rest::ApiSchemas
