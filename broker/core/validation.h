// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/browsequery.h"
#include "core/engineoptions.h"
#include "core/message.h"
#include "core/result.h"

#include <QByteArrayView>
#include <QList>
#include <QStringView>

#include <initializer_list>

// The input rules of the broker, in one place with one text each. The engine applies them to
// every caller (REST, desktop, processors' callers); the REST layer applies them before it asks
// whether the caller is permitted (gCore's order: validation, permission, existence). Texts are
// gCore's where gCore names them (../shared/API.md).
namespace Broker::Validation {

// A closed range a request value must lie in. REST reads wire values against the same range, so
// that a bound exists once; its wire readers word a refusal as "expected a number from A to B".
struct Range
{
    qint64 min = 0;
    qint64 max = 0;
    bool contains(qint64 value) const { return value >= min && value <= max; }
};

// The first of `rules` that failed, in their order; success when none did.
Result<void> all(std::initializer_list<Result<void>> rules);

// Bounds in the units the API speaks (seconds, counts).
Range delaySeconds(const EngineOptions &options);
Range waitSeconds(const EngineOptions &options);
Range consumeCount(const EngineOptions &options);
Range browseLimit(const EngineOptions &options);
Range visibilityTimeoutSeconds();

// "Queue name is required" / "Invalid queue name" (gCore's strings). Names are never rewritten.
Result<void> queueName(QStringView name);
// Consumer group and consumer follow the queue-name rule; either may be left empty.
Result<void> consumerNames(QStringView group, QStringView consumer);
// A message is JSON text other than null.
Result<void> messagePresent(QByteArrayView data);
// PayloadTooLarge when `bytes` is over `maxBytes`.
Result<void> messageSize(qint64 bytes, qint64 maxBytes);
Result<void> batchSize(qsizetype count, int maxBatch);
// Every rule a publish must pass before the queue is looked at.
Result<void> newMessages(const QList<NewMessage> &messages, const EngineOptions &options);
Result<void> messageId(QStringView id);
Result<void> delayMs(qint64 delayMs, const EngineOptions &options);
// A message due only when its queue's TTL has run out would expire undelivered.
Result<void> delayWithinTtl(qint64 delayMs, qint64 ttlSeconds);
Result<void> waitMs(qint64 waitMs, const EngineOptions &options);
Result<void> count(qint64 count, const EngineOptions &options);
// A lease length; where `zeroMeansDefault`, anything from 0 (the queue's own) up is allowed.
Result<void> visibilityTimeoutMs(qint64 visibilityMs, bool zeroMeansDefault);
Result<void> browsePage(qint64 offset, qint64 limit, const EngineOptions &options);
Result<void> redriveLimit(qint64 limit);
// A browse: its page (browsePage), a search text of at most MaxSearchTextBytes, a header filter
// that names its key.
constexpr qsizetype MaxSearchTextBytes = 1024;
Result<void> browseQuery(const BrowseQuery &query, const EngineOptions &options);

// Nesting depth of JSON text, counted without parsing it (strings and escapes are skipped), so
// that deeply nested input is refused before a parser recurses into it. Malformed text gets a
// depth too; the parser refuses it afterwards.
int jsonDepth(QByteArrayView json);
Result<void> jsonDepthWithin(QByteArrayView json, int maxDepth);

} // namespace Broker::Validation
