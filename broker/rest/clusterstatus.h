// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/brokersnapshot.h"

#include <QByteArray>
#include <QJsonObject>

// A Redis/Valkey Cluster's nodes as this broker sees them, and its subscription for other brokers'
// wake-ups, for /health and /metrics (docs/redis.md, "Redis Cluster"). Only for the Redis store
// (StoreStatus::breaker not empty); the nodes only on a cluster (StoreStatus::cluster).
namespace Broker::Rest::ClusterStatus {

// components.storage.cluster of /health (view_metrics): {"all_slots_served", "nodes": [...]}.
QJsonObject toJson(const StoreStatus &store);
// components.storage.wakeups of /health (view_metrics): {"subscribed"[, "node" | "last_error"],
// "received"}.
QJsonObject wakeupsJson(const StoreStatus &store);
// Per-node connection and redirect counts and the wake-up subscription's state (text format
// 0.0.4), appended to `out`.
void appendMetrics(QByteArray &out, const StoreStatus &store);

} // namespace Broker::Rest::ClusterStatus
