// SPDX-License-Identifier: GPL-3.0-or-later
// MessageBroker's administration of queues and their messages: changing a queue's options,
// browsing its messages by state, acting on chosen messages, and redrive with edits and dry runs. Apart from messagebroker.cpp so that each file keeps one concern.
#include "messagebroker.h"

#include "core/validation.h"

#include <QSet>

#include <memory>

namespace Broker {

void MessageBroker::updateQueue(const QString &name, const QueueConfigChange &change, Completion<QueueInfo> done)
{
    if (const Result<void> check = Validation::queueName(name); !check)
        return done(check.error());
    if (change.isEmpty())
        return done(Error{ErrorCode::InvalidArgument, QStringLiteral("Nothing to change")});
    if (change.deadLetterQueue && *change.deadLetterQueue == name)
        return done(Error{ErrorCode::InvalidArgument,
                          QStringLiteral("Invalid option 'dead_letter_queue': a queue cannot be its own dead-letter queue")});
    auto update = [this, name, change, done = watched("update queue", std::move(done))]() mutable {
        m_store.updateQueue(name, change, [this, name, done = std::move(done)](Result<QueueInfo> result) {
            if (result) {
                addRates(result.value());
                Q_EMIT queueUpdated(name);
            }
            done(std::move(result));
        });
    };
    if (!change.deadLetterQueue || change.deadLetterQueue->isEmpty())
        return update();
    // Only for a queue that exists: a change refused with 404 leaves no dead-letter queue behind.
    m_store.queueInfo(name, [this, dlq = *change.deadLetterQueue, update = std::move(update)](
                                Result<QueueInfo> existing) mutable {
        if (!existing)
            return update(); // the store answers for it (not found, unavailable)
        ensureDeadLetterQueue(dlq, std::move(update));
    });
}

void MessageBroker::browse(const QString &queue, const BrowseQuery &query, Completion<BrowsePage> done)
{
    if (const Result<void> valid = Validation::all({Validation::queueName(queue), Validation::browseQuery(query, m_options)});
        !valid) {
        return done(valid.error());
    }
    m_store.browse(queue, query, watched("browse", std::move(done)));
}

namespace {

Result<void> actionIds(const QList<QString> &ids, const char *what)
{
    if (ids.size() > MessageAction::MaxIds)
        return Error{ErrorCode::InvalidArgument,
                     QStringLiteral("Too many ids: at most %1 %2").arg(MessageAction::MaxIds).arg(QLatin1StringView(what))};
    for (const QString &id : ids) {
        if (const Result<void> valid = Validation::messageId(id); !valid)
            return valid;
    }
    return {};
}

} // namespace

void MessageBroker::messageAction(const QString &queue, const MessageAction &action, Completion<MessageActionResult> done)
{
    if (const Result<void> valid = Validation::all({Validation::queueName(queue), actionIds(action.ids, "per action")}); !valid)
        return done(valid.error());
    if (action.ids.isEmpty())
        return done(Error{ErrorCode::InvalidArgument, QStringLiteral("ids is required: the messages to act on")});
    if (action.kind == MessageAction::Kind::Move) {
        if (action.target.isEmpty())
            return done(Error{ErrorCode::InvalidArgument, QStringLiteral("target is required: the queue to move to")});
        if (const Result<void> valid = Validation::queueName(action.target); !valid)
            return done(valid.error());
        if (action.target == queue)
            return done(Error{ErrorCode::InvalidArgument, QStringLiteral("Invalid target: the messages are in that queue already")});
    }
    m_store.messageAction(queue, action, watched("message action", std::move(done)));
}

Result<void> MessageBroker::checkRedrive(const QString &queue, const RedriveRequest &request) const
{
    if (const Result<void> valid = Validation::all({Validation::queueName(queue), Validation::redriveLimit(request.limit),
                                                    actionIds(request.ids, "per redrive"),
                                                    actionIds(request.edits.keys(), "edited per redrive")});
        !valid) {
        return valid;
    }
    for (auto it = request.edits.cbegin(); it != request.edits.cend(); ++it) {
        if (!request.ids.isEmpty() && !request.ids.contains(it.key()))
            return Error{ErrorCode::InvalidArgument,
                         QStringLiteral("Invalid edits: message %1 is not among the ids").arg(it.key())};
        if (const Result<void> valid = Validation::all({Validation::messagePresent(it.value()),
                                                        Validation::messageSize(it.value().size(), m_options.maxMessageBytes)});
            !valid) {
            return Error{valid.error().code, QStringLiteral("Invalid edit of %1: %2").arg(it.key(), valid.error().message)};
        }
    }
    return {};
}

void MessageBroker::redrive(const QString &queue, const RedriveRequest &request, Completion<RedriveResult> done)
{
    if (const Result<void> valid = checkRedrive(queue, request); !valid)
        return done(valid.error());
    // Edits alone choose their messages: an edit never sends the unedited rest along.
    RedriveRequest chosen = request;
    if (chosen.ids.isEmpty() && !chosen.edits.isEmpty())
        chosen.ids = chosen.edits.keys();
    if (!chosen.dryRun)
        return m_store.redrive(queue, chosen, watched("redrive", std::move(done)));
    previewRedrive(queue, chosen, std::move(done));
}

void MessageBroker::previewRedrive(const QString &queue, const RedriveRequest &request, Completion<RedriveResult> done)
{
    // What a redrive would take is what browsing the dead state shows (within its scan bound);
    // of those, the ones whose origin queue still exists would move, up to the limit.
    BrowseQuery dead;
    dead.state = MessageState::Dead;
    dead.limit = BrowseQuery::MaxScan;
    m_store.browse(queue, dead, [this, request, done = watched("redrive preview", std::move(done))](
                                    Result<BrowsePage> page) mutable {
        if (!page)
            return done(page.error());
        auto result = std::make_shared<RedriveResult>();
        QSet<QString> seen;
        for (const Message &message : page->messages) {
            if (!request.ids.isEmpty() && !request.ids.contains(message.id))
                continue;
            seen.insert(message.id);
            const auto edit = request.edits.constFind(message.id);
            result->messages.append({message.id, message.originQueue, message.data,
                                     edit != request.edits.cend() ? *edit : message.data});
        }
        for (const QString &id : request.ids) {
            if (!seen.contains(id))
                result->missing.append(id);
        }
        QSet<QString> origins;
        for (const RedriveItem &item : result->messages)
            origins.insert(item.origin);
        struct Pending
        {
            qsizetype waiting = 0;
            QSet<QString> gone;
        };
        auto pending = std::make_shared<Pending>();
        pending->waiting = origins.size();
        const qint64 limit = request.ids.isEmpty() ? request.limit : 0;
        auto finish = [result, pending, limit, done = std::move(done)]() mutable {
            // A message whose origin is gone stays where it is and does not count towards the
            // limit, in a dry run as in a real one.
            result->messages.removeIf([&](const RedriveItem &item) { return pending->gone.contains(item.origin); });
            if (limit > 0 && result->messages.size() > limit)
                result->messages.resize(limit);
            result->moved = result->messages.size();
            done(std::move(*result));
        };
        if (origins.isEmpty())
            return finish();
        auto shared = std::make_shared<decltype(finish)>(std::move(finish));
        for (const QString &origin : std::as_const(origins)) {
            m_store.queueInfo(origin, [origin, pending, shared](Result<QueueInfo> info) {
                if (!info && info.error().code == ErrorCode::QueueNotFound)
                    pending->gone.insert(origin);
                if (--pending->waiting == 0)
                    (*shared)();
            });
        }
    });
}

void MessageBroker::redrive(const QString &queue, qint64 limit, const QString &user, Completion<qint64> done)
{
    RedriveRequest request;
    request.limit = limit;
    request.user = user;
    redrive(queue, request, [done = std::move(done)](Result<RedriveResult> result) {
        if (!result)
            return done(result.error());
        done(result->moved);
    });
}

} // namespace Broker
