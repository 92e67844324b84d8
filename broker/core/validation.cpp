// SPDX-License-Identifier: GPL-3.0-or-later
#include "validation.h"

#include "core/queuename.h"

namespace Broker::Validation {

namespace {

Error invalid(const QString &message)
{
    return Error{ErrorCode::InvalidArgument, message};
}

} // namespace

Result<void> all(std::initializer_list<Result<void>> rules)
{
    for (const Result<void> &rule : rules) {
        if (!rule)
            return rule;
    }
    return {};
}

Range delaySeconds(const EngineOptions &options)
{
    return {0, options.maxDelayMs / 1000};
}

Range waitSeconds(const EngineOptions &options)
{
    return {0, options.maxWaitMs / 1000};
}

Range consumeCount(const EngineOptions &options)
{
    return {1, options.maxConsumeCount};
}

Range browseLimit(const EngineOptions &options)
{
    return {1, options.maxBrowseLimit};
}

Range visibilityTimeoutSeconds()
{
    return {1, QueueLimits::MaxVisibilityTimeoutSeconds};
}

Result<void> queueName(QStringView name)
{
    if (name.isEmpty())
        return invalid(QStringLiteral("Queue name is required"));
    if (!QueueName::isValid(name))
        return invalid(QStringLiteral("Invalid queue name"));
    return {};
}

Result<void> consumerNames(QStringView group, QStringView consumer)
{
    for (const QStringView name : {group, consumer}) {
        if (!name.isEmpty() && !QueueName::isValid(name))
            return invalid(QStringLiteral("Invalid consumer group or consumer name"));
    }
    return {};
}

Result<void> messagePresent(QByteArrayView data)
{
    if (data.isEmpty() || data == "null")
        return invalid(QStringLiteral("Message is required"));
    return {};
}

Result<void> messageSize(qint64 bytes, qint64 maxBytes)
{
    if (bytes > maxBytes)
        return Error{ErrorCode::PayloadTooLarge, QStringLiteral("Message too large (at most %1 bytes)").arg(maxBytes)};
    return {};
}

Result<void> batchSize(qsizetype count, int maxBatch)
{
    if (count > maxBatch)
        return invalid(QStringLiteral("Too many messages in one batch (at most %1)").arg(maxBatch));
    return {};
}

Result<void> newMessages(const QList<NewMessage> &messages, const EngineOptions &options)
{
    if (messages.isEmpty())
        return messagePresent({});
    if (const Result<void> size = batchSize(messages.size(), options.maxBatch); !size)
        return size;
    for (const NewMessage &message : messages) {
        const Result<void> valid = all({messagePresent(message.data),
                                        messageSize(message.data.size(), options.maxMessageBytes),
                                        delayMs(message.delayMs, options)});
        if (!valid)
            return valid;
    }
    return {};
}

Result<void> messageId(QStringView id)
{
    if (id.isEmpty())
        return invalid(QStringLiteral("Message id is required"));
    return {};
}

Result<void> delayMs(qint64 delayMs, const EngineOptions &options)
{
    if (delayMs < 0 || delayMs > options.maxDelayMs)
        return invalid(QStringLiteral("Invalid delay: expected 0 to %1 seconds").arg(delaySeconds(options).max));
    return {};
}

Result<void> delayWithinTtl(qint64 delayMs, qint64 ttlSeconds)
{
    if (delayMs >= ttlSeconds * 1000)
        return invalid(QStringLiteral("Invalid delay: must be shorter than the queue's ttl (%1 seconds)").arg(ttlSeconds));
    return {};
}

Result<void> waitMs(qint64 waitMs, const EngineOptions &options)
{
    if (waitMs < 0 || waitMs > options.maxWaitMs)
        return invalid(QStringLiteral("Invalid wait: expected 0 to %1 seconds").arg(waitSeconds(options).max));
    return {};
}

Result<void> count(qint64 count, const EngineOptions &options)
{
    const Range range = consumeCount(options);
    if (!range.contains(count))
        return invalid(QStringLiteral("Invalid count: expected %1 to %2").arg(range.min).arg(range.max));
    return {};
}

Result<void> visibilityTimeoutMs(qint64 visibilityMs, bool zeroMeansDefault)
{
    const Range range = visibilityTimeoutSeconds();
    const qint64 lowestMs = zeroMeansDefault ? 0 : range.min * 1000;
    if (visibilityMs < lowestMs || visibilityMs > range.max * 1000)
        return invalid(QStringLiteral("Invalid visibility_timeout: expected %1 to %2 seconds").arg(range.min).arg(range.max));
    return {};
}

Result<void> browsePage(qint64 offset, qint64 limit, const EngineOptions &options)
{
    if (offset < 0)
        return invalid(QStringLiteral("Invalid offset: expected 0 or more"));
    const Range range = browseLimit(options);
    if (!range.contains(limit))
        return invalid(QStringLiteral("Invalid limit: expected %1 to %2").arg(range.min).arg(range.max));
    return {};
}

Result<void> redriveLimit(qint64 limit)
{
    if (limit < 0)
        return invalid(QStringLiteral("Invalid limit: expected 0 (all) or more"));
    return {};
}

Result<void> browseQuery(const BrowseQuery &query, const EngineOptions &options)
{
    if (const Result<void> page = browsePage(query.offset, query.limit, options); !page)
        return page;
    if (query.text.toUtf8().size() > MaxSearchTextBytes)
        return invalid(QStringLiteral("Invalid search text: at most %1 bytes").arg(MaxSearchTextBytes));
    if (query.headerValue && query.headerKey.isEmpty())
        return invalid(QStringLiteral("Invalid header filter: expected key:value or key"));
    return {};
}

int jsonDepth(QByteArrayView json)
{
    int depth = 0;
    int deepest = 0;
    bool inString = false;
    for (qsizetype i = 0; i < json.size(); ++i) {
        const char c = json[i];
        if (inString) {
            if (c == '\\')
                ++i; // skip the escaped character
            else if (c == '"')
                inString = false;
            continue;
        }
        switch (c) {
        case '"': inString = true; break;
        case '[':
        case '{': deepest = qMax(deepest, ++depth); break;
        case ']':
        case '}': depth = qMax(0, depth - 1); break;
        default: break;
        }
    }
    return deepest;
}

Result<void> jsonDepthWithin(QByteArrayView json, int maxDepth)
{
    if (jsonDepth(json) > maxDepth)
        return Error{ErrorCode::InvalidArgument, QStringLiteral("JSON nested too deeply (at most %1 levels)").arg(maxDepth)};
    return {};
}

} // namespace Broker::Validation
