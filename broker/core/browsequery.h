// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

#include <optional>

namespace Broker {

// Where a message stands in its queue, as browsing distinguishes it.
enum class MessageState {
    Ready,    // deliverable now, in delivery order
    Delayed,  // published or nacked with a delay, not yet due (by due time)
    InFlight, // out on a lease (by lease end); stream queues: pending in a consumer group
    Dead,     // dead-lettered messages that came from this queue (they live in its dead-letter queue)
};

// "ready", "delayed", "in_flight", "dead": the wire names.
const char *messageStateName(MessageState state);
std::optional<MessageState> messageStateFromName(QStringView name);

// What GET /queues/{q}/messages asks for: one state, one page, and an optional filter. Every
// filter given must match (and). Stores apply it where the messages are (Redis: in a script), so
// only matches travel.
struct BrowseQuery
{
    // A filtered browse examines at most this many messages of the state, in order, and says so
    // (BrowsePage::truncated) when it stopped there: a search never walks a million messages.
    static constexpr qint64 MaxScan = 10'000;

    MessageState state = MessageState::Ready;
    qint64 offset = 0; // matches to skip
    qint64 limit = 50; // matches to return at most
    QString text;      // a substring of the payload text as sent (bytes, case-sensitive); empty: any
    QString headerKey; // a header that must be present; empty: any
    std::optional<QString> headerValue; // and its value (a string header's text, else compact JSON)
    QString id;        // exactly this message id; empty: any

    bool isFiltered() const { return !text.isEmpty() || !headerKey.isEmpty() || !id.isEmpty(); }
};

} // namespace Broker
