// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QString>

namespace Broker::Rest {

// Pieces of the Prometheus text format (0.0.4) that /metrics is written in.

// Escapes a Prometheus label value.
QByteArray promLabel(const QString &value);
// The "# HELP" and "# TYPE" lines of a metric family; its samples follow.
void appendFamilyHead(QByteArray &out, const char *name, const char *type, const char *help);
// A family of one sample without labels.
void appendSingle(QByteArray &out, const char *name, const char *type, const char *help, qint64 value);

} // namespace Broker::Rest
