// SPDX-License-Identifier: GPL-3.0-or-later
// RedisOperations for queue administration: changing options, browsing by state with a search,
// operator actions on chosen messages and redrive with a selection and edits. Apart from
// redisoperations.cpp so that each file keeps one concern.
#include "redisoperations.h"

#include "browsefilter.h"
#include "knownqueues.h"
#include "rediseventrelay.h"
#include "redismessage.h"
#include "storeerrors.h"

#include "core/jsonfields.h"

#include <QSet>

namespace Broker {

using Redis::RedisReply;
using RedisScripts::integerOf;
using Retry = ResilientScriptRunner::Retry;

void RedisOperations::updateQueue(const QString &name, const QueueConfigChange &change, Completion<QueueInfo> done)
{
    QByteArrayList args;
    const auto set = [&args](const char *option, const QByteArray &value) { args << QByteArray(option) << value; };
    if (change.maxSize)
        set("max_size", QByteArray::number(*change.maxSize));
    if (change.ttlSeconds)
        set("ttl", QByteArray::number(*change.ttlSeconds));
    if (change.visibilityTimeoutSeconds)
        set("visibility_timeout", QByteArray::number(*change.visibilityTimeoutSeconds));
    if (change.maxDeliveries)
        set("max_deliveries", QByteArray::number(*change.maxDeliveries));
    if (change.deadLetterQueue)
        set("dead_letter_queue", change.deadLetterQueue->toUtf8());
    if (change.partitions)
        set("partitions", QByteArray::number(*change.partitions));
    run(m_script.update, name, args, Retry::Never, [this, name, done = std::move(done)](Result<RedisReply> reply) mutable {
        if (!reply)
            return done(reply.error());
        queueInfo(name, std::move(done)); // remembers the new configuration too
    });
}

void RedisOperations::browse(const QString &name, const BrowseQuery &query, Completion<BrowsePage> done)
{
    // On a cluster a dead-letter queue in another slot is read directly, for this queue's messages.
    if (m_cluster && query.state == MessageState::Dead) {
        return withConfig(name, [this, name, query, done = std::move(done)](Result<QueueConfig> config) mutable {
            if (!config)
                return done(config.error());
            const bool far = !config->deadLetterQueue.isEmpty() && apart(name, config->deadLetterQueue);
            browseIn(far ? config->deadLetterQueue : name, name, far, query, std::move(done));
        });
    }
    browseIn(name, name, false, query, std::move(done));
}

void RedisOperations::browseIn(const QString &queue, const QString &name, bool forOrigin, const BrowseQuery &query,
                               Completion<BrowsePage> done)
{
    const std::optional<QString> origin =
        query.state == MessageState::Dead ? std::optional<QString>(QString()) : std::nullopt;
    const BrowseFilter filter(query, origin);
    const bool scanning = filter.isActive();
    // The text as the stored message holds it: JSON-escaped inside the "d" string, quotes left off.
    QByteArray escapedText;
    if (!query.text.isEmpty()) {
        JsonFields::appendString(escapedText, query.text.toUtf8());
        escapedText = escapedText.mid(1, escapedText.size() - 2);
    }
    const QByteArrayList args{messageStateName(query.state),
                              QByteArray::number(query.offset),
                              QByteArray::number(query.limit),
                              QByteArray::number(scanning ? BrowseQuery::MaxScan : 0),
                              query.id.toUtf8(),
                              escapedText,
                              forOrigin ? name.toUtf8() : QByteArray()};
    run(m_script.browse, queue, args, Retry::Reads,
        [name, query, filter, scanning, forOrigin, done = std::move(done)](Result<RedisReply> reply) {
            // A dead-letter queue is made by the first message it gets: none yet, none dead.
            if (!reply && forOrigin && reply.error().code == ErrorCode::QueueNotFound) {
                BrowsePage none;
                none.nextOffset = -1;
                return done(std::move(none));
            }
            if (!reply)
                return done(reply.error());
            const qint64 inState = integerOf(reply->elements.value(0));
            const qint64 examined = integerOf(reply->elements.value(1));
            QList<Message> found;
            for (const RedisReply &item : reply->elements.value(2).elements) {
                Message message;
                if (!RedisMessage::decode(item.elements.value(0).string, name, message))
                    continue;
                message.deliveryCount = int(integerOf(item.elements.value(1)));
                const qint64 time = integerOf(item.elements.value(2));
                if (query.state == MessageState::Delayed)
                    message.dueMs = time;
                else if (query.state == MessageState::InFlight)
                    message.leaseDeadlineMs = time;
                message.group = QString::fromUtf8(item.elements.value(3).string);
                found.append(std::move(message));
            }
            BrowsePage page;
            if (!scanning) {
                page.messages = std::move(found);
                page.total = inState;
                page.scanned = query.offset + page.messages.size();
            } else {
                // The script's candidates, checked exactly, then paged here.
                qint64 matched = 0;
                for (Message &message : found) {
                    if (!filter.matches(message))
                        continue;
                    if (matched++ >= query.offset && page.messages.size() < query.limit)
                        page.messages.append(std::move(message));
                }
                page.total = matched;
                page.scanned = examined;
                page.truncated = examined < inState;
            }
            const qint64 next = query.offset + page.messages.size();
            page.nextOffset = next < page.total ? next : -1;
            done(std::move(page));
        });
}

void RedisOperations::messageAction(const QString &name, const MessageAction &action, Completion<MessageActionResult> done)
{
    if (action.kind != MessageAction::Kind::Move || !apart(name, action.target))
        return act(name, action, std::move(done));
    // On a cluster the script cannot see a target in another slot: it is checked here (it exists,
    // the messages fit), then they go by transfers. A target deleted in between gives them back.
    queueInfo(action.target, [this, name, action, done = std::move(done)](Result<QueueInfo> target) mutable {
        if (!target)
            return done(target.error().code == ErrorCode::QueueNotFound ? StoreErrors::targetNotFound() : target.error());
        const qint64 held = target->depth + target->delayed + target->inFlight;
        if (held + action.ids.size() > target->config.maxSize)
            return done(StoreErrors::queueFull());
        act(name, action, std::move(done));
    });
}

void RedisOperations::act(const QString &name, const MessageAction &action, Completion<MessageActionResult> done)
{
    QByteArrayList args{messageActionName(action.kind), action.target.toUtf8()};
    for (const QString &id : action.ids)
        args << id.toUtf8();
    run(m_script.messageAction, name, std::move(args), Retry::Never,
        [this, name, action, done = std::move(done)](Result<RedisReply> reply) {
            if (!reply)
                return done(reply.error());
            MessageActionResult result;
            result.affected = integerOf(reply->elements.value(0));
            QSet<QString> acted;
            for (const RedisReply &id : reply->elements.value(1).elements)
                acted.insert(QString::fromUtf8(id.string));
            for (const QString &id : action.ids) {
                if (!acted.contains(id))
                    result.missing.append(id);
            }
            if (result.affected > 0 && action.kind == MessageAction::Kind::Requeue)
                m_events.available(name);
            if (result.affected > 0 && action.kind == MessageAction::Kind::Move)
                m_events.available(action.target);
            done(std::move(result));
        },
        action.user);
}

void RedisOperations::redrive(const QString &name, const RedriveRequest &request, Completion<RedriveResult> done)
{
    if (!m_cluster)
        return redriveFrom(name, name, false, {}, request, std::move(done));
    // On a cluster a dead-letter queue in another slot runs the redrive itself, for this queue's
    // messages; the registry tells it which origins in other slots are still there.
    withConfig(name, [this, name, request, done = std::move(done)](Result<QueueConfig> config) mutable {
        if (!config)
            return done(config.error());
        const bool far = !config->deadLetterQueue.isEmpty() && apart(name, config->deadLetterQueue);
        registryEntries([this, name, far, dlq = config->deadLetterQueue, request, done = std::move(done)](
                            Result<QList<std::pair<QString, QByteArray>>> entries) mutable {
            if (!entries)
                return done(entries.error());
            QByteArray present;
            for (const auto &[queue, generation] : *entries)
                present += queue.toUtf8() + '\n';
            redriveFrom(far ? dlq : name, name, far, present, request, std::move(done));
        });
    });
}

void RedisOperations::redriveFrom(const QString &queue, const QString &name, bool forOrigin, const QByteArray &present,
                                  const RedriveRequest &request, Completion<RedriveResult> done)
{
    QByteArrayList args{forOrigin ? name.toUtf8() : QByteArray(),
                        present,
                        QByteArray::number(request.ids.isEmpty() ? request.limit : 0),
                        QByteArray::number(request.ids.size())};
    for (const QString &id : request.ids)
        args << id.toUtf8();
    // An edit goes in as the stored message holds a payload: one JSON string.
    for (auto it = request.edits.cbegin(); it != request.edits.cend(); ++it) {
        QByteArray stored;
        JsonFields::appendString(stored, it.value());
        args << it.key().toUtf8() << stored;
    }
    run(m_script.redrive, queue, std::move(args), Retry::Never,
        [name, request, forOrigin, done = std::move(done)](Result<RedisReply> reply) {
            if (!reply && forOrigin && reply.error().code == ErrorCode::QueueNotFound) {
                RedriveResult none; // no dead-letter queue yet: nothing to bring back
                none.missing = request.ids;
                return done(std::move(none));
            }
            if (!reply)
                return done(reply.error());
            RedriveResult result;
            result.moved = integerOf(reply->elements.value(0));
            QSet<QString> moved;
            for (const RedisReply &item : reply->elements.value(1).elements) {
                RedriveItem out;
                out.id = QString::fromUtf8(item.elements.value(0).string);
                out.origin = QString::fromUtf8(item.elements.value(1).string);
                Message before;
                if (RedisMessage::decode(item.elements.value(2).string, name, before))
                    out.before = before.data;
                const auto edit = request.edits.constFind(out.id);
                out.after = edit != request.edits.cend() ? *edit : out.before;
                moved.insert(out.id);
                result.messages.append(std::move(out));
            }
            for (const QString &id : request.ids) {
                if (!moved.contains(id))
                    result.missing.append(id);
            }
            done(std::move(result));
        },
        request.user);
}

} // namespace Broker
