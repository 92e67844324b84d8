// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QStringView>

#include <optional>

namespace Broker {

enum class MessageEventKind : quint8 {
    Published,
    Delivered,
    Acked,
    Nacked,
    LeaseExpired, // the lease ran out; the message goes back to the queue
    Expired,      // TTL ran out before delivery
    DeadLettered, // moved to the dead-letter queue (detail: the reason)
    Dropped,      // given up on with no dead-letter queue (detail: the reason)
    Redriven,     // moved from a dead-letter queue back to its origin (queue: the origin)
    Purged,       // the whole queue was emptied (sequence 0, detail: how many)
    Deleted,      // removed by an operator (POST /queues/{q}/messages/actions)
    Moved,        // moved by an operator to another queue (detail: the target)
    Requeued,     // made deliverable now by an operator (a lease or a delay ended early)
};

// Every kind, in declaration order.
inline constexpr MessageEventKind AllMessageEventKinds[] = {
    MessageEventKind::Published, MessageEventKind::Delivered, MessageEventKind::Acked, MessageEventKind::Nacked,
    MessageEventKind::LeaseExpired, MessageEventKind::Expired, MessageEventKind::DeadLettered, MessageEventKind::Dropped,
    MessageEventKind::Redriven, MessageEventKind::Purged, MessageEventKind::Deleted, MessageEventKind::Moved,
    MessageEventKind::Requeued};

const char *messageEventKindName(MessageEventKind kind);
// The kind messageEventKindName() calls `name`; none for any other text.
std::optional<MessageEventKind> messageEventKindFromName(QStringView name);

// One step in a message's life. Small on purpose: the engine keeps thousands of these.
struct MessageEvent
{
    quint64 number = 0;   // place in the broker's event sequence, assigned by the event log
    qint64 timeMs = 0;
    MessageEventKind kind = MessageEventKind::Published;
    int deliveryCount = 0;
    quint64 sequence = 0; // the message id's number (MessageId::format)
    QString queue;
    QString user;         // who caused it; empty for the broker itself (expiry, reaper)
    QString detail;       // dead-letter reason, target queue or count, depending on the kind
};

} // namespace Broker
