// SPDX-License-Identifier: GPL-3.0-or-later
#include "apischemas.h"

#include <QJsonDocument>

namespace Broker::Rest::ApiSchemas {

QJsonObject parsed(const char *json)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(QByteArray(json), &error);
    if (error.error != QJsonParseError::NoError)
        qFatal("OpenAPI schema text is not JSON at offset %d: %s", int(error.offset), qPrintable(error.errorString()));
    return document.object();
}

QJsonObject components(const EngineOptions &engine)
{
    QJsonObject schemas;
    for (const QJsonObject &part : {queueSchemas(), messageSchemas(engine), operationSchemas()}) {
        for (auto it = part.begin(); it != part.end(); ++it)
            schemas.insert(it.key(), it.value());
    }
    return schemas;
}

QJsonArray tags()
{
    static const QJsonArray tags = QJsonDocument::fromJson(R"json([
        {"name": "queues", "description": "Create, list, inspect, change, purge and delete queues (gCore's endpoints and more)."},
        {"name": "messages", "description": "Publish and consume messages; acknowledge, nack and extend leases."},
        {"name": "queue-administration",
         "description": "Browse messages without consuming them, act on chosen messages, redrive dead letters, message histories."},
        {"name": "users", "description": "Users and their API keys (keys are shown once, never listed)."},
        {"name": "definitions", "description": "Queues, roles and users exported and imported as one document."},
        {"name": "operations", "description": "Health, readiness, metrics, recent errors and this document."}
    ])json").array();
    return tags;
}

QJsonObject queueSchemas()
{
    static const QJsonObject schemas = parsed(R"json({
    "QueueName": {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$", "example": "orders"},
    "QueueConfig": {
        "type": "object", "additionalProperties": false,
        "required": ["dead_letter_queue", "max_deliveries", "max_size", "ttl", "type", "visibility_timeout"],
        "properties": {
            "dead_letter_queue": {"type": "string", "nullable": true, "description": "null: none"},
            "max_deliveries": {"type": "integer", "minimum": 1},
            "max_size": {"type": "integer", "minimum": 1},
            "ttl": {"type": "integer", "minimum": 1, "description": "seconds"},
            "type": {"type": "string", "description": "a registered queue type: list, stream, priority"},
            "visibility_timeout": {"type": "integer", "minimum": 1, "description": "seconds"},
            "partitions": {"type": "integer", "minimum": 2, "maximum": 64,
                           "description": "partitioned queues only: how many partitions the queue is stored as"}},
        "example": {"dead_letter_queue": "orders.dlq", "max_deliveries": 5, "max_size": 10000, "ttl": 86400,
                    "type": "list", "visibility_timeout": 30}},
    "QueueOptions": {
        "type": "object", "additionalProperties": false,
        "description": "Absent options take the broker's defaults (message_broker.yaml).",
        "properties": {
            "type": {"type": "string", "minLength": 1, "description": "list (FIFO, default), stream or priority"},
            "max_size": {"type": "integer", "minimum": 1, "maximum": 100000000},
            "ttl": {"type": "integer", "minimum": 1, "maximum": 315360000, "description": "seconds"},
            "visibility_timeout": {"type": "integer", "minimum": 1, "maximum": 43200, "description": "seconds"},
            "max_deliveries": {"type": "integer", "minimum": 1, "maximum": 1000},
            "dead_letter_queue": {"description": "a queue name, true for <name>.dlq, false or null for none",
                                  "oneOf": [{"type": "string", "nullable": true}, {"type": "boolean"}]},
            "partitions": {"type": "integer", "minimum": 1, "maximum": 64, "default": 1,
                           "description": "sub-queues the queue is stored as (on a cluster: spread over its primaries); publishes with one key keep their order"}}},
    "QueueCreateRequest": {
        "type": "object", "required": ["name"],
        "properties": {"name": {"$ref": "#/components/schemas/QueueName"},
                       "options": {"$ref": "#/components/schemas/QueueOptions"}},
        "example": {"name": "orders", "options": {"max_size": 10000, "ttl": 86400, "dead_letter_queue": true}}},
    "QueueOptionsChange": {
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
                                      "oneOf": [{"type": "string", "nullable": true}, {"type": "boolean"}]},
                "partitions": {"type": "integer", "minimum": 1, "maximum": 64,
                               "description": "more partitions than the queue has (they only grow)"}}}},
        "example": {"options": {"max_size": 50000, "visibility_timeout": 60}}},
    "QueueStats": {
        "type": "object", "additionalProperties": false, "required": ["publish_count", "consume_count"],
        "description": "publish_count and consume_count everywhere; the other counters in the queue detail",
        "properties": {
            "publish_count": {"type": "integer"}, "consume_count": {"type": "integer"},
            "ack_count": {"type": "integer"}, "nack_count": {"type": "integer"}, "expired_count": {"type": "integer"},
            "dead_letter_count": {"type": "integer"}, "dropped_count": {"type": "integer"},
            "redrive_count": {"type": "integer"}}},
    "QueueSummary": {
        "type": "object", "additionalProperties": false,
        "required": ["name", "created", "message_count", "config", "stats"],
        "properties": {
            "name": {"$ref": "#/components/schemas/QueueName"},
            "created": {"type": "number", "description": "unix seconds"},
            "message_count": {"type": "integer", "description": "messages ready for delivery"},
            "config": {"$ref": "#/components/schemas/QueueConfig"},
            "stats": {"$ref": "#/components/schemas/QueueStats"}}},
    "Queue": {
        "type": "object", "additionalProperties": false,
        "required": ["name", "created", "message_count", "config", "stats", "type", "in_flight", "delayed",
                     "dead_lettered", "rates"],
        "properties": {
            "name": {"$ref": "#/components/schemas/QueueName"},
            "created": {"type": "number", "description": "unix seconds"},
            "message_count": {"type": "integer", "description": "messages ready for delivery"},
            "config": {"$ref": "#/components/schemas/QueueConfig"},
            "stats": {"$ref": "#/components/schemas/QueueStats"},
            "type": {"type": "string"},
            "in_flight": {"type": "integer"},
            "delayed": {"type": "integer"},
            "dead_lettered": {"type": "integer"},
            "durability": {"type": "string", "enum": ["none", "no", "everysec", "always"]},
            "rates": {"$ref": "#/components/schemas/QueueRates"},
            "groups": {"type": "array", "description": "stream queues: their consumer groups",
                       "items": {"type": "object", "additionalProperties": false,
                                 "required": ["name", "pending", "lag", "consumers"],
                                 "properties": {"name": {"type": "string"}, "pending": {"type": "integer"},
                                                "lag": {"type": "integer"},
                                                "consumers": {"type": "array", "items": {"type": "string"}}}}},
            "partitions": {"type": "array", "description": "partitioned queues: each partition (the queue's figures are their sums)",
                           "items": {"type": "object", "additionalProperties": false,
                                     "required": ["index", "message_count", "in_flight", "delayed", "publish_count",
                                                  "consume_count", "rates"],
                                     "properties": {"index": {"type": "integer", "minimum": 0},
                                                    "message_count": {"type": "integer"}, "in_flight": {"type": "integer"},
                                                    "delayed": {"type": "integer"}, "publish_count": {"type": "integer"},
                                                    "consume_count": {"type": "integer"},
                                                    "rates": {"$ref": "#/components/schemas/QueueRates"}}}}}},
    "QueueRates": {
        "type": "object", "additionalProperties": false,
        "required": ["publish_per_second", "publish_per_second_1m", "consume_per_second", "consume_per_second_1m"],
        "properties": {"publish_per_second": {"type": "number"}, "publish_per_second_1m": {"type": "number"},
                       "consume_per_second": {"type": "number"}, "consume_per_second_1m": {"type": "number"}}},
    "QueueList": {
        "type": "object", "additionalProperties": false, "required": ["queues", "count"],
        "properties": {"queues": {"type": "array", "items": {"$ref": "#/components/schemas/QueueSummary"}},
                       "count": {"type": "integer", "minimum": 0}}},
    "QueueCreated": {
        "type": "object", "additionalProperties": false, "required": ["success", "queue", "created", "config"],
        "properties": {"success": {"type": "boolean", "enum": [true]},
                       "queue": {"$ref": "#/components/schemas/QueueName"},
                       "created": {"type": "integer", "description": "unix seconds"},
                       "config": {"$ref": "#/components/schemas/QueueConfig"}}},
    "QueueDeleted": {
        "type": "object", "additionalProperties": false, "required": ["success", "deleted_keys"],
        "properties": {"success": {"type": "boolean", "enum": [true]}, "deleted_keys": {"type": "integer", "minimum": 0}}},
    "QueuePurged": {
        "type": "object", "additionalProperties": false, "required": ["success", "purged"],
        "properties": {"success": {"type": "boolean", "enum": [true]}, "purged": {"type": "integer", "minimum": 0}}}
    })json");
    return schemas;
}

} // namespace Broker::Rest::ApiSchemas
