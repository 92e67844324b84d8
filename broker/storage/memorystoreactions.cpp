// SPDX-License-Identifier: GPL-3.0-or-later
// MemoryStore's actions on chosen messages and its redrive: apart from memorystore.cpp so that
// each file keeps one concern.
#include "memorystore.h"

#include "storeerrors.h"

#include "core/messageid.h"

#include <QSet>

namespace Broker {

namespace {

// The ids that name messages of this broker, as sequence numbers; the others are missing at once.
QSet<quint64> sequencesOf(const QList<QString> &ids)
{
    QSet<quint64> sequences;
    for (const QString &id : ids) {
        if (const std::optional<quint64> sequence = MessageId::parse(id))
            sequences.insert(*sequence);
    }
    return sequences;
}

QList<QString> missingOf(const QList<QString> &ids, const QSet<quint64> &found)
{
    QList<QString> missing;
    for (const QString &id : ids) {
        const std::optional<quint64> sequence = MessageId::parse(id);
        if (!sequence || !found.contains(*sequence))
            missing.append(id);
    }
    return missing;
}

// A message that changes queue starts afresh there: ready, no deliveries, a new TTL, no
// dead-letter record.
void startAfresh(StoredMessage &message, qint64 nowMs)
{
    MessageExtras &extras = message.ensureExtras();
    extras.originQueue.clear();
    extras.deadLetterReason.clear();
    extras.deadLetteredAtMs = 0;
    extras.ttlStartMs = nowMs;
    message.deliveryCount = 0;
    message.notBeforeMs = 0;
}

} // namespace

void MemoryStore::messageAction(const QString &name, const MessageAction &action, Completion<MessageActionResult> done)
{
    const Result<MemoryQueue *> found = find(name);
    if (!found)
        return done(found.error());
    MemoryQueue &queue = **found;
    const QSet<quint64> wanted = sequencesOf(action.ids);
    MessageActionResult result;

    if (action.kind == MessageAction::Kind::Requeue) {
        QSet<quint64> requeued;
        queue.requeueMessages(wanted, action.user, requeued);
        result.affected = requeued.size();
        result.missing = missingOf(action.ids, requeued);
        if (result.affected > 0)
            announceAvailable(name);
        return done(std::move(result));
    }

    MemoryQueue *target = nullptr;
    if (action.kind == MessageAction::Kind::Move) {
        const Result<MemoryQueue *> to = find(action.target);
        if (!to)
            return done(StoreErrors::targetNotFound());
        target = *to;
        // Judged on the ids asked for, before anything moves: all of them fit, or none moves.
        if (target->size() + wanted.size() > target->config().maxSize)
            return done(StoreErrors::queueFull());
    } else if (action.kind == MessageAction::Kind::DeadLetter && queue.config().deadLetterQueue.isEmpty()) {
        return done(StoreErrors::noDeadLetterQueue());
    }

    std::vector<StoredMessage> taken;
    queue.takeMessages(wanted, taken);
    QSet<quint64> affected;
    for (StoredMessage &message : taken) {
        affected.insert(message.sequence);
        switch (action.kind) {
        case MessageAction::Kind::Delete:
            recordEvent(MessageEventKind::Deleted, queue, message, action.user, {});
            break;
        case MessageAction::Kind::Move:
            recordEvent(MessageEventKind::Moved, queue, message, action.user, target->name());
            startAfresh(message, nowMs());
            target->add(std::move(message));
            break;
        case MessageAction::Kind::DeadLetter:
            deadLetter(queue, std::move(message), QStringLiteral("manual"));
            break;
        case MessageAction::Kind::Requeue: break; // answered above
        }
    }
    if (target && !taken.empty())
        announceAvailable(target->name());
    result.affected = affected.size();
    result.missing = missingOf(action.ids, affected);
    done(std::move(result));
}

void MemoryStore::redrive(const QString &name, const RedriveRequest &request, Completion<RedriveResult> done)
{
    const Result<MemoryQueue *> found = find(name);
    if (!found)
        return done(found.error());
    // Asked of a queue with a dead-letter queue: bring back what it sent there. Asked of any other
    // queue: send each dead-lettered message in it back where it came from.
    MemoryQueue *source = *found;
    QString origin;
    const QString &dlqName = source->config().deadLetterQueue;
    RedriveResult result;
    if (!dlqName.isEmpty()) {
        const Result<MemoryQueue *> dlq = find(dlqName);
        if (!dlq) {
            result.missing = request.ids;
            return done(std::move(result));
        }
        source = *dlq;
        origin = name;
    }

    const QSet<quint64> only = sequencesOf(request.ids);
    std::vector<StoredMessage> taken;
    // A message whose origin is gone stays where it is.
    const auto returnable = [this](const QString &queue) { return find(queue).ok(); };
    source->takeDeadLettered(origin, request.ids.isEmpty() ? request.limit : 0, request.ids.isEmpty() ? nullptr : &only,
                             returnable, taken);
    QSet<quint64> moved;
    for (StoredMessage &message : taken) {
        const Result<MemoryQueue *> target = find(message.extras->originQueue);
        Q_ASSERT(target); // returnable said so, a moment ago on this thread
        RedriveItem item;
        item.id = MessageId::format(message.sequence);
        item.origin = (*target)->name();
        item.before = message.data().toByteArray();
        const auto edit = request.edits.constFind(item.id);
        item.after = edit != request.edits.cend() ? *edit : item.before;
        if (edit != request.edits.cend())
            message.setData(*edit);
        startAfresh(message, nowMs());
        ++(*target)->counters().redriven;
        recordEvent(MessageEventKind::Redriven, **target, message, request.user, source->name());
        moved.insert(message.sequence);
        (*target)->add(std::move(message));
        announceAvailable(item.origin);
        result.messages.append(std::move(item));
    }
    result.moved = result.messages.size();
    if (!request.ids.isEmpty())
        result.missing = missingOf(request.ids, moved);
    done(std::move(result));
}

} // namespace Broker
