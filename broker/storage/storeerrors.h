// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/result.h"

// The errors every store answers with, in gCore's words, so that both backends read the same.
namespace Broker::StoreErrors {

Error queueNotFound();
Error queueExists();
Error queueFull();
Error messageNotFound();
Error staleReceipt();
Error invalidReceipt();
Error delayOnStream();
Error pendingInSeveralGroups();
// A move's target queue is missing (404 "Target queue not found").
Error targetNotFound();
// A manual dead-letter on a queue without a dead-letter queue (409).
Error noDeadLetterQueue();

// Receipts are 16 hex digits; anything else is refused before a store looks at it.
Result<quint64> parseReceipt(const QString &receipt);

} // namespace Broker::StoreErrors
