// SPDX-License-Identifier: GPL-3.0-or-later
#include "messageevent.h"

namespace Broker {

const char *messageEventKindName(MessageEventKind kind)
{
    switch (kind) {
    case MessageEventKind::Published: return "published";
    case MessageEventKind::Delivered: return "delivered";
    case MessageEventKind::Acked: return "acked";
    case MessageEventKind::Nacked: return "nacked";
    case MessageEventKind::LeaseExpired: return "lease_expired";
    case MessageEventKind::Expired: return "expired";
    case MessageEventKind::DeadLettered: return "dead_lettered";
    case MessageEventKind::Dropped: return "dropped";
    case MessageEventKind::Redriven: return "redriven";
    case MessageEventKind::Purged: return "purged";
    case MessageEventKind::Deleted: return "deleted";
    case MessageEventKind::Moved: return "moved";
    case MessageEventKind::Requeued: return "requeued";
    }
    return "unknown";
}

std::optional<MessageEventKind> messageEventKindFromName(QStringView name)
{
    for (MessageEventKind kind : AllMessageEventKinds) {
        if (name == QLatin1StringView(messageEventKindName(kind)))
            return kind;
    }
    return std::nullopt;
}

} // namespace Broker
