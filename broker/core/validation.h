// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/result.h"

#include <QByteArrayView>
#include <QStringView>

namespace Broker::Validation {

// "Queue name is required" / "Invalid queue name" (gCore's strings). Names are never rewritten.
Result<void> queueName(QStringView name);
// PayloadTooLarge when `bytes` is over `maxBytes`.
Result<void> messageSize(qint64 bytes, qint64 maxBytes);
// Nesting depth of JSON text, counted without parsing it (strings and escapes are skipped), so
// that deeply nested input is refused before a parser recurses into it. Malformed text gets a
// depth too; the parser refuses it afterwards.
int jsonDepth(QByteArrayView json);
Result<void> jsonDepthWithin(QByteArrayView json, int maxDepth);

} // namespace Broker::Validation
