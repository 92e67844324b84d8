// SPDX-License-Identifier: GPL-3.0-or-later
#include "apischemas.h"

namespace Broker::Rest::ApiSchemas {

// Errors, users, definitions, health, metrics and the document itself.
QJsonObject operationSchemas()
{
    static const QJsonObject schemas = parsed(R"json({
    "Error": {
        "type": "object", "required": ["error"],
        "description": "gCore's error shape: what gCore clients read",
        "properties": {"error": {"type": "string", "description": "gCore's exact error string where one exists"}},
        "example": {"error": "Queue not found"}},
    "Problem": {
        "description": "An RFC 9457 problem document (application/problem+json) that is also gCore's error shape",
        "allOf": [
            {"$ref": "#/components/schemas/Error"},
            {"type": "object", "required": ["title", "status", "detail", "request_id"],
             "properties": {"title": {"type": "string", "description": "the same as error"},
                            "status": {"type": "integer", "minimum": 400, "maximum": 599},
                            "detail": {"type": "string", "description": "what exactly; the error string when there is no more"},
                            "request_id": {"type": "string", "description": "the X-Request-ID of the request"}}}],
        "example": {"error": "Queue not found", "title": "Queue not found", "status": 404, "detail": "Queue not found",
                    "request_id": "7d0f7a3c9b1e4d2a"}},
    "Success": {
        "type": "object", "additionalProperties": false, "required": ["success"],
        "properties": {"success": {"type": "boolean", "enum": [true]}}},
    "User": {
        "type": "object", "additionalProperties": false,
        "required": ["id", "name", "roles", "key_prefix", "created", "last_used", "disabled"],
        "properties": {
            "id": {"type": "string"}, "name": {"type": "string"},
            "roles": {"type": "array", "items": {"type": "string"}},
            "key_prefix": {"type": "string", "description": "the first characters of a generated key; empty for chosen keys"},
            "created": {"type": "number", "description": "unix seconds"},
            "last_used": {"type": "number", "nullable": true, "description": "unix seconds; null: never"},
            "disabled": {"type": "boolean"}},
        "example": {"id": "robot", "name": "CI robot", "roles": ["publisher"], "key_prefix": "bd_x7Qa", "created": 1767225600,
                    "last_used": null, "disabled": false}},
    "Me": {
        "type": "object", "additionalProperties": false, "required": ["id", "name", "roles", "permissions"],
        "properties": {
            "id": {"type": "string"}, "name": {"type": "string"},
            "roles": {"type": "array", "items": {"type": "string"}},
            "permissions": {"type": "array", "items": {"type": "string"},
                            "description": "the permission patterns the roles grant (globs: publish:*, peek:orders.*, *)"}},
        "example": {"id": "robot", "name": "CI robot", "roles": ["publisher"], "permissions": ["list_queues", "publish:*"]}},
    "UserList": {
        "type": "object", "additionalProperties": false, "required": ["users", "count"],
        "properties": {"users": {"type": "array", "items": {"$ref": "#/components/schemas/User"}},
                       "count": {"type": "integer", "minimum": 0}}},
    "UserCreateRequest": {
        "type": "object", "required": ["id", "roles"],
        "properties": {
            "id": {"type": "string", "pattern": "^[A-Za-z0-9_.@-]{1,64}$"},
            "roles": {"type": "array", "minItems": 1, "items": {"type": "string"}},
            "name": {"type": "string"}},
        "example": {"id": "robot", "roles": ["publisher"], "name": "CI robot"}},
    "UserChange": {
        "type": "object",
        "properties": {"roles": {"type": "array", "minItems": 1, "items": {"type": "string"}},
                       "disabled": {"type": "boolean"}},
        "example": {"disabled": true}},
    "KeyIssued": {
        "type": "object", "additionalProperties": false, "required": ["success", "id", "api_key"],
        "properties": {"success": {"type": "boolean", "enum": [true]}, "id": {"type": "string"},
                       "api_key": {"type": "string", "description": "shown this once; only its hash is kept"}}},
    "HealthStatus": {"type": "string", "enum": ["healthy", "degraded", "unhealthy"]},
    "StorageHealth": {
        "type": "object", "additionalProperties": false, "required": ["status", "backend", "durability", "writable"],
        "description": "pool, spooled_messages, spool, script_reloads, scripts, wakeups, cluster, last_error and the breaker's opened and retry_at only for a key with view_metrics",
        "properties": {
            "status": {"$ref": "#/components/schemas/HealthStatus"},
            "backend": {"type": "string", "enum": ["memory", "redis"]},
            "durability": {"type": "string", "enum": ["none", "no", "everysec", "always"]},
            "writable": {"type": "boolean"},
            "read_only_reason": {"type": "string"},
            "circuit_breaker": {"type": "object", "additionalProperties": false, "required": ["state"],
                                "properties": {"state": {"type": "string", "enum": ["closed", "open", "half_open"]},
                                               "opened": {"type": "integer"},
                                               "retry_at": {"type": "number", "description": "unix seconds"}}},
            "pool": {"type": "object", "additionalProperties": false, "required": ["ready", "size", "reconnects"],
                     "properties": {"ready": {"type": "integer"}, "size": {"type": "integer"}, "reconnects": {"type": "integer"}}},
            "spooled_messages": {"type": "integer"},
            "spool": {"type": "object", "additionalProperties": false,
                      "required": ["messages", "bytes", "max_messages", "max_bytes", "queues_recreated",
                                   "discarded_with_deleted_queues", "status"],
                      "properties": {"messages": {"type": "integer"}, "bytes": {"type": "integer"},
                                     "max_messages": {"type": "integer"}, "max_bytes": {"type": "integer"},
                                     "queues_recreated": {"type": "integer"},
                                     "discarded_with_deleted_queues": {"type": "integer"},
                                     "status": {"type": "string", "enum": ["empty", "holding", "blocked"]},
                                     "blocked": {"type": "string"}}},
            "script_reloads": {"type": "integer"},
            "scripts": {"type": "string", "enum": ["functions", "eval"],
                        "description": "how the scripts run: as a function library (FCALL, Redis 7+ and Valkey) or by EVALSHA"},
            "wakeups": {"type": "object", "additionalProperties": false, "required": ["subscribed", "received"],
                        "description": "the subscription that wakes long polls when another broker publishes",
                        "properties": {"subscribed": {"type": "boolean"},
                                       "node": {"type": "string", "description": "host:port subscribed to"},
                                       "last_error": {"type": "string", "description": "while not subscribed: why"},
                                       "received": {"type": "integer"}}},
            "cluster": {"type": "object", "additionalProperties": false, "required": ["all_slots_served", "nodes"],
                        "description": "Redis/Valkey Cluster only",
                        "properties": {
                            "all_slots_served": {"type": "boolean"},
                            "nodes": {"type": "array", "items": {
                                "type": "object", "additionalProperties": false,
                                "required": ["address", "role", "slots", "redirects"],
                                "properties": {
                                    "address": {"type": "string", "description": "host:port"},
                                    "role": {"type": "string", "enum": ["primary", "replica"]},
                                    "health": {"type": "string", "description": "online, failed, loading (as the cluster says)"},
                                    "slots": {"type": "integer"},
                                    "pool": {"type": "object", "additionalProperties": false, "required": ["ready", "size"],
                                             "description": "primaries only",
                                             "properties": {"ready": {"type": "integer"}, "size": {"type": "integer"}}},
                                    "redirects": {"type": "object", "additionalProperties": false, "required": ["moved", "ask"],
                                                  "properties": {"moved": {"type": "integer"}, "ask": {"type": "integer"}}}}}}}},
            "last_error": {"type": "string"}}},
    "NotificationsHealth": {
        "type": "object", "additionalProperties": false, "required": ["status"],
        "description": "error.webhook_url: degraded while deliveries fail; the counts only for a key with view_metrics",
        "properties": {
            "status": {"type": "string", "enum": ["healthy", "degraded"]}, "last_error": {"type": "string"},
            "target": {"type": "string", "description": "scheme and host only"},
            "delivered": {"type": "integer"}, "failed": {"type": "integer"}, "dropped": {"type": "integer"},
            "queued": {"type": "integer"}, "last_error_at": {"type": "number", "description": "unix seconds"}}},
    "Processor": {
        "type": "object", "additionalProperties": false,
        "required": ["id", "name", "queue", "kind", "target", "concurrency", "in_flight", "running", "successes",
                     "failures", "last_error", "last_error_at", "last_success_at", "failing"],
        "properties": {
            "id": {"type": "integer", "description": "unique while the broker runs"},
            "name": {"type": "string", "description": "the name given in the configuration; empty when none"},
            "queue": {"type": "string"},
            "kind": {"type": "string", "enum": ["callable", "webhook", "exec"]},
            "target": {"type": "string", "description": "webhook: scheme://host[:port]; exec: the program's file name; callable: empty"},
            "concurrency": {"type": "integer", "minimum": 1},
            "in_flight": {"type": "integer", "minimum": 0},
            "running": {"type": "boolean", "description": "false: stopped (its queue is missing)"},
            "successes": {"type": "integer", "minimum": 0},
            "failures": {"type": "integer", "minimum": 0},
            "last_error": {"type": "string", "nullable": true},
            "last_error_at": {"type": "number", "nullable": true, "description": "unix seconds; null: never"},
            "last_success_at": {"type": "number", "nullable": true, "description": "unix seconds; null: never"},
            "failing": {"type": "boolean", "description": "the latest delivery failed and none succeeded since"}},
        "example": {"id": 1, "name": "billing", "queue": "orders", "kind": "webhook", "target": "https://billing.example.com",
                    "concurrency": 4, "in_flight": 1, "running": true, "successes": 1200, "failures": 3,
                    "last_error": "HTTP 503", "last_error_at": 1767225500, "last_success_at": 1767225600, "failing": false}},
    "ProcessorList": {
        "type": "object", "additionalProperties": false, "required": ["processors", "count"],
        "properties": {"processors": {"type": "array", "items": {"$ref": "#/components/schemas/Processor"}},
                       "count": {"type": "integer", "minimum": 0}}},
    "ProcessorsHealth": {
        "type": "object", "additionalProperties": false, "required": ["status", "count", "failing", "stopped"],
        "description": "degraded while a processor is failing or stopped; the list only for a key with view_metrics",
        "properties": {
            "status": {"type": "string", "enum": ["healthy", "degraded"]},
            "count": {"type": "integer", "minimum": 0}, "failing": {"type": "integer", "minimum": 0},
            "stopped": {"type": "integer", "minimum": 0},
            "processors": {"type": "array", "items": {"$ref": "#/components/schemas/Processor"}}}},
    "Health": {
        "type": "object", "additionalProperties": false,
        "required": ["status", "queues", "messages_total", "messages_processed", "uptime", "version", "timestamp",
                     "storage", "components"],
        "properties": {
            "status": {"$ref": "#/components/schemas/HealthStatus"},
            "queues": {"type": "integer", "minimum": 0},
            "messages_total": {"type": "integer", "minimum": 0},
            "messages_processed": {"type": "integer", "minimum": 0},
            "uptime": {"type": "integer", "minimum": 0, "description": "seconds"},
            "version": {"type": "string"},
            "timestamp": {"type": "number", "description": "unix seconds: when the figures were taken (at most 1 s old)"},
            "storage": {"type": "string", "enum": ["memory", "redis"]},
            "components": {
                "type": "object", "additionalProperties": false, "required": ["storage", "api"],
                "properties": {
                    "storage": {"$ref": "#/components/schemas/StorageHealth"},
                    "api": {"type": "object", "additionalProperties": false, "required": ["status", "tls"],
                            "description": "degraded when the TLS certificate expires within 14 days (then the broker's status is degraded too)",
                            "properties": {"status": {"type": "string", "enum": ["healthy", "degraded"]},
                                           "tls": {"type": "boolean", "description": "the API is served over HTTPS"},
                                           "certificate": {"type": "object", "additionalProperties": false,
                                                           "required": ["days_left", "not_after"],
                                                           "description": "subject, sha256 and client_certificates for view_metrics keys only",
                                                           "properties": {"days_left": {"type": "integer"},
                                                                          "not_after": {"type": "string", "format": "date-time"},
                                                                          "subject": {"type": "string"},
                                                                          "sha256": {"type": "string"},
                                                                          "client_certificates": {"type": "boolean"}}},
                                           "warning": {"type": "string", "description": "an expiring certificate, or plain HTTP on a non-loopback address"},
                                           "connections": {"type": "integer", "description": "view_metrics keys only"}}},
                    "notifications": {"$ref": "#/components/schemas/NotificationsHealth"},
                    "processors": {"$ref": "#/components/schemas/ProcessorsHealth"}}}},
        "example": {"status": "healthy", "queues": 2, "messages_total": 14, "messages_processed": 230, "uptime": 3600,
                    "version": "0.9.0", "timestamp": 1767225600.5, "storage": "memory",
                    "components": {"storage": {"status": "healthy", "backend": "memory", "durability": "none",
                                               "writable": true},
                                   "api": {"status": "healthy", "tls": false}}}},
    "Liveness": {
        "type": "object", "additionalProperties": false, "required": ["status"],
        "properties": {"status": {"type": "string", "enum": ["alive"]}}},
    "Readiness": {
        "type": "object", "additionalProperties": false, "required": ["status", "storage", "writable"],
        "properties": {"status": {"type": "string", "enum": ["ready", "not ready"]},
                       "storage": {"$ref": "#/components/schemas/HealthStatus"},
                       "writable": {"type": "boolean"},
                       "reason": {"type": "string", "description": "why the store is read-only"}},
        "example": {"status": "ready", "storage": "healthy", "writable": true}},
    "ErrorList": {
        "type": "object", "additionalProperties": false, "required": ["errors", "count"],
        "properties": {
            "errors": {"type": "array", "items": {
                "type": "object", "additionalProperties": false,
                "required": ["id", "severity", "component", "code", "message", "first_seen", "last_seen", "count"],
                "properties": {"id": {"type": "integer"},
                               "severity": {"type": "string", "enum": ["info", "warning", "error", "critical"]},
                               "component": {"type": "string"}, "code": {"type": "string"}, "message": {"type": "string"},
                               "first_seen": {"type": "number"}, "last_seen": {"type": "number"},
                               "count": {"type": "integer", "minimum": 1}}}},
            "count": {"type": "integer", "minimum": 0}}},
    "Definitions": {
        "type": "object", "additionalProperties": false, "required": ["definitions_version"],
        "description": "Queues with their options, roles and users (never keys): a broker's set-up, exported or imported",
        "properties": {
            "definitions_version": {"type": "integer", "enum": [1]},
            "broker_version": {"type": "string"},
            "queues": {"type": "array", "items": {
                "type": "object", "additionalProperties": false, "required": ["name"],
                "properties": {"name": {"$ref": "#/components/schemas/QueueName"},
                               "options": {"$ref": "#/components/schemas/QueueOptions"}}}},
            "roles": {"type": "array", "items": {
                "type": "object", "additionalProperties": false, "required": ["name", "permissions"],
                "properties": {"name": {"type": "string"}, "permissions": {"type": "array", "items": {"type": "string"}}}}},
            "users": {"type": "array", "items": {
                "type": "object", "additionalProperties": false, "required": ["id", "roles"],
                "description": "an api_key is refused: keys are never imported",
                "properties": {"id": {"type": "string"}, "name": {"type": "string"},
                               "roles": {"type": "array", "items": {"type": "string"}}, "disabled": {"type": "boolean"}}}}},
        "example": {"definitions_version": 1, "broker_version": "0.9.0",
                    "queues": [{"name": "orders", "options": {"type": "list", "max_size": 10000, "ttl": 86400,
                                "visibility_timeout": 30, "max_deliveries": 5, "dead_letter_queue": "orders.dlq"}}],
                    "roles": [{"name": "publisher", "permissions": ["list_queues", "publish:*"]}],
                    "users": [{"id": "robot", "name": "CI robot", "roles": ["publisher"], "disabled": false}]}},
    "NamedRefusal": {
        "type": "object", "additionalProperties": false, "required": ["name", "reason"],
        "properties": {"name": {"type": "string"}, "reason": {"type": "string"}}},
    "DefinitionsImport": {
        "type": "object", "additionalProperties": false, "required": ["success", "queues", "roles", "users"],
        "description": "What the import did; success is false only when a queue could not be created",
        "properties": {
            "success": {"type": "boolean"},
            "queues": {"type": "object", "additionalProperties": false,
                       "required": ["created", "unchanged", "conflicts", "failed"],
                       "properties": {
                           "created": {"type": "array", "items": {"type": "string"}},
                           "unchanged": {"type": "array", "items": {"type": "string"}},
                           "conflicts": {"type": "array", "items": {
                               "type": "object", "additionalProperties": false, "required": ["name", "reason", "differences"],
                               "properties": {"name": {"type": "string"}, "reason": {"type": "string"},
                                              "differences": {"type": "object", "description": "option -> existing and requested",
                                                              "additionalProperties": {
                                                                  "type": "object", "additionalProperties": false,
                                                                  "required": ["existing", "requested"],
                                                                  "properties": {"existing": {}, "requested": {}}}}}}},
                           "failed": {"type": "array", "items": {"$ref": "#/components/schemas/NamedRefusal"}}}},
            "roles": {"type": "object", "additionalProperties": false, "required": ["present", "not_imported"],
                      "properties": {"present": {"type": "array", "items": {"type": "string"}},
                                     "not_imported": {"type": "array", "items": {"$ref": "#/components/schemas/NamedRefusal"}}}},
            "users": {"type": "object", "additionalProperties": false, "required": ["created", "unchanged", "conflicts"],
                      "properties": {
                          "created": {"type": "array", "items": {
                              "type": "object", "additionalProperties": false, "required": ["id", "api_key", "disabled"],
                              "properties": {"id": {"type": "string"},
                                             "api_key": {"type": "string", "description": "shown this once"},
                                             "disabled": {"type": "boolean"}}}},
                          "unchanged": {"type": "array", "items": {"type": "string"}},
                          "conflicts": {"type": "array", "items": {
                              "type": "object", "additionalProperties": false, "required": ["id", "reason"],
                              "properties": {"id": {"type": "string"}, "reason": {"type": "string"}}}}}}}},
    "Metrics": {"type": "string", "description": "Prometheus text exposition format 0.0.4",
                "example": "# HELP brokerdesk_up 1 while the broker serves.\n# TYPE brokerdesk_up gauge\nbrokerdesk_up 1\n"},
    "EventStream": {"type": "string",
                    "description": "Server-Sent Events (docs/rest.md, \"Live events\"): `ready` first (epoch, last_event_id); `message` events with `id:` EPOCH-NUMBER and a MessageEvent as data; `queues` ({full, queues, removed, more}) and `broker` counters when they change; `gap` ({reason, missed, resumes_after}) when events were missed; `: heartbeat` comments",
                    "example": "retry: 2000\nid: k3x9-41\nevent: ready\ndata: {\"epoch\":\"k3x9\",\"last_event_id\":\"k3x9-41\"}\n\nid: k3x9-42\nevent: message\ndata: {\"number\":42,\"event\":\"published\",\"queue\":\"orders\"}\n\n"},
    "OpenApiDocument": {"type": "object", "description": "An OpenAPI 3.0 document", "required": ["openapi", "info", "paths"],
                        "properties": {"openapi": {"type": "string"}, "info": {"type": "object"}, "paths": {"type": "object"}}}
    })json");
    return schemas;
}

} // namespace Broker::Rest::ApiSchemas
