// SPDX-License-Identifier: GPL-3.0-or-later
#include "validation.h"

#include "core/queuename.h"

namespace Broker::Validation {

Result<void> queueName(QStringView name)
{
    if (name.isEmpty())
        return Error{ErrorCode::InvalidArgument, QStringLiteral("Queue name is required")};
    if (!QueueName::isValid(name))
        return Error{ErrorCode::InvalidArgument, QStringLiteral("Invalid queue name")};
    return {};
}

Result<void> messageSize(qint64 bytes, qint64 maxBytes)
{
    if (bytes > maxBytes)
        return Error{ErrorCode::PayloadTooLarge, QStringLiteral("Message too large (at most %1 bytes)").arg(maxBytes)};
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
