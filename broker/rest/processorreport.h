// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/processorstatus.h"

#include <QByteArray>
#include <QJsonObject>

namespace Broker::Rest::ProcessorReport {

// One processor as GET /processors and the detailed /health show it: snake_case fields, times
// in unix seconds (null when it never happened), the last error without file-system paths.
QJsonObject toJson(const ProcessorStatus &status);

// components.processors of /health: "degraded" while any processor is failing or stopped.
// Everyone sees the status and the counts of processors, failing and stopped ones; `detailed`
// (a view_metrics key) adds each processor's target, counters and last error.
QJsonObject healthComponent(const ProcessorStatusList &statuses, bool detailed);

// The brokerdesk_processor_* families of /metrics, one series per processor, labelled with
// queue, processor (the id) and kind. Never the target: a URL or a program is not a label.
void appendMetrics(QByteArray &out, const ProcessorStatusList &statuses);

} // namespace Broker::Rest::ProcessorReport
