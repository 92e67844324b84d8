// SPDX-License-Identifier: GPL-3.0-or-later
#include "storeerrors.h"

namespace Broker::StoreErrors {

Error queueNotFound()
{
    return Error{ErrorCode::QueueNotFound, QStringLiteral("Queue not found")};
}

Error queueExists()
{
    return Error{ErrorCode::QueueExists, QStringLiteral("Queue already exists")};
}

Error queueFull()
{
    return Error{ErrorCode::QueueFull, QStringLiteral("Queue size limit reached")};
}

Error messageNotFound()
{
    return Error{ErrorCode::MessageNotFound, QStringLiteral("Message not found or already acknowledged")};
}

Error staleReceipt()
{
    return Error{ErrorCode::StaleReceipt,
                 QStringLiteral("Stale receipt: the message was delivered again since this receipt was issued")};
}

Error invalidReceipt()
{
    return Error{ErrorCode::InvalidArgument, QStringLiteral("Invalid receipt")};
}

Error delayOnStream()
{
    // A log has one order for every group; a delayed entry would have to jump the line.
    return Error{ErrorCode::InvalidArgument, QStringLiteral("Delayed messages are not supported on stream queues")};
}

Error pendingInSeveralGroups()
{
    return Error{ErrorCode::InvalidArgument,
                 QStringLiteral("The message is pending in several consumer groups: give its receipt or group")};
}

Error targetNotFound()
{
    // NotFound, not QueueNotFound: the queue acted on is there (the Redis store forgets queues it
    // is told are missing).
    return Error{ErrorCode::NotFound, QStringLiteral("Target queue not found")};
}

Error noDeadLetterQueue()
{
    return Error{ErrorCode::Conflict, QStringLiteral("Queue has no dead-letter queue")};
}

Result<quint64> parseReceipt(const QString &receipt)
{
    bool ok = false;
    const quint64 value = receipt.toULongLong(&ok, 16);
    if (!ok || receipt.size() != 16)
        return invalidReceipt();
    return value;
}

} // namespace Broker::StoreErrors
