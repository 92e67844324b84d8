// SPDX-License-Identifier: GPL-3.0-or-later
#include "browsequery.h"

namespace Broker {

const char *messageStateName(MessageState state)
{
    switch (state) {
    case MessageState::Ready: return "ready";
    case MessageState::Delayed: return "delayed";
    case MessageState::InFlight: return "in_flight";
    case MessageState::Dead: return "dead";
    }
    return "ready";
}

std::optional<MessageState> messageStateFromName(QStringView name)
{
    for (MessageState state : {MessageState::Ready, MessageState::Delayed, MessageState::InFlight, MessageState::Dead}) {
        if (name == QLatin1StringView(messageStateName(state)))
            return state;
    }
    return std::nullopt;
}

} // namespace Broker
