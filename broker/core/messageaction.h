// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QString>

#include <optional>

namespace Broker {

// One action on chosen messages of a queue, wherever they stand in it (ready, delayed, in flight).
struct MessageAction
{
    enum class Kind {
        Delete,     // gone for good
        Requeue,    // delayed or in flight: ready now (a lease ends, its receipt goes stale); ready: stays
        Move,       // to `target`, ready there, delivery count and TTL starting afresh
        DeadLetter, // into the queue's dead-letter queue with the reason "manual"
    };
    static constexpr int MaxIds = 1000;

    Kind kind = Kind::Delete;
    QList<QString> ids;
    QString target; // Move only
    QString user;   // who acts, for the event log
};

// "delete", "requeue", "move", "dead_letter": the wire names.
const char *messageActionName(MessageAction::Kind kind);
std::optional<MessageAction::Kind> messageActionFromName(QStringView name);

struct MessageActionResult
{
    qint64 affected = 0;
    QList<QString> missing; // ids the queue does not hold, in the order asked
};

// A redrive of a dead-letter queue's messages back to their origin queues, with a selection and
// edits. Without ids: up to `limit` (<= 0: all) of them, in order.
struct RedriveRequest
{
    qint64 limit = 0;
    QList<QString> ids;               // only these (empty: any)
    QHash<QString, QByteArray> edits; // id -> the payload it goes back with (compact JSON text)
    bool dryRun = false;              // answer what would move; move nothing
    QString user;

    bool isSelective() const { return !ids.isEmpty() || !edits.isEmpty(); }
};

// One message a redrive moved (or, dry, would move).
struct RedriveItem
{
    QString id;
    QString origin;    // where it goes back to
    QByteArray before; // its payload now
    QByteArray after;  // the payload it goes back with (the edit, or `before`)
};

struct RedriveResult
{
    qint64 moved = 0; // dry run: how many would move
    QList<RedriveItem> messages;
    QList<QString> missing; // asked-for ids that are not dead-lettered messages of this queue
};

} // namespace Broker
