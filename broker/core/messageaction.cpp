// SPDX-License-Identifier: GPL-3.0-or-later
#include "messageaction.h"

namespace Broker {

const char *messageActionName(MessageAction::Kind kind)
{
    switch (kind) {
    case MessageAction::Kind::Delete: return "delete";
    case MessageAction::Kind::Requeue: return "requeue";
    case MessageAction::Kind::Move: return "move";
    case MessageAction::Kind::DeadLetter: return "dead_letter";
    }
    return "delete";
}

std::optional<MessageAction::Kind> messageActionFromName(QStringView name)
{
    using Kind = MessageAction::Kind;
    for (Kind kind : {Kind::Delete, Kind::Requeue, Kind::Move, Kind::DeadLetter}) {
        if (name == QLatin1StringView(messageActionName(kind)))
            return kind;
    }
    return std::nullopt;
}

} // namespace Broker
