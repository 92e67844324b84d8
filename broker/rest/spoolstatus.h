// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/brokersnapshot.h"

#include <QByteArray>
#include <QJsonObject>

// How the storage backend's publish spool is doing, for /health and /metrics (docs/redis.md,
// "When Redis fails"). Only for backends with a spool (StoreStatus::breaker not empty).
namespace Broker::Rest::SpoolStatus {

// components.storage.spool of /health.
QJsonObject toJson(const StoreStatus &store);
// The spool's Prometheus metrics (text format 0.0.4), appended to `out`.
void appendMetrics(QByteArray &out, const StoreStatus &store);

} // namespace Broker::Rest::SpoolStatus
