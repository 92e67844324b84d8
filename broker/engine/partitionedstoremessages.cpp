// SPDX-License-Identifier: GPL-3.0-or-later
// PartitionedStore's message operations: publish, consume, leases, browsing, actions, redrive and
// the store's events, apart from the queue administration in partitionedstore.cpp.
#include "partitionedstore.h"

#include "partitioning.h"

#include "storage/storeerrors.h"

#include <memory>

namespace Broker {

using Partitioning::storeQueue;

namespace {

// Dead letters of a partition name the queue they came from, not the partition.
void withLogicalOrigins(QList<Message> &messages)
{
    for (Message &message : messages) {
        if (!message.originQueue.isEmpty())
            message.originQueue = Partitioning::split(message.originQueue).queue;
    }
}

template<typename T>
Completion<T> logicalOrigins(Completion<T> done, QList<Message> &(*messagesOf)(T &))
{
    return [done = std::move(done), messagesOf](Result<T> result) {
        if (result)
            withLogicalOrigins(messagesOf(result.value()));
        done(std::move(result));
    };
}

QList<Message> &consumed(QList<Message> &messages) { return messages; }
QList<Message> &browsed(BrowsePage &page) { return page.messages; }

// The ids asked that every partition reported missing, in the order asked.
QList<QString> missingEverywhere(const QList<QString> &asked, const QHash<QString, int> &missingCount, int partitions)
{
    QList<QString> missing;
    for (const QString &id : asked) {
        if (missingCount.value(id) == partitions)
            missing.append(id);
    }
    return missing;
}

} // namespace

// Messages -----------------------------------------------------------------------------------

void PartitionedStore::publish(const QString &name, const QList<NewMessage> &messages, const QString &publisher,
                               Completion<PublishResult> done)
{
    const QString key = messages.isEmpty() ? QString() : messages.first().key;
    for (const NewMessage &message : messages) {
        if (message.key != key)
            return done(Error{ErrorCode::InvalidArgument,
                              QStringLiteral("Invalid key: a batch takes one key for all its messages")});
    }
    if (key.size() > QueueLimits::MaxPartitionKeyLength)
        return done(Error{ErrorCode::InvalidArgument, QStringLiteral("Invalid key: at most %1 characters")
                                                          .arg(QueueLimits::MaxPartitionKeyLength)});
    if (isPlainNow(name))
        return m_inner.publish(name, messages, publisher, std::move(done));
    withPartitions(name, [this, name, messages, publisher, key, done = std::move(done)](Result<int> partitions) mutable {
        if (!partitions)
            return done(partitions.error());
        if (*partitions == 1)
            return m_inner.publish(name, messages, publisher, std::move(done));
        const int partition = key.isEmpty() ? int(m_publishTurns[name]++ % quint32(*partitions))
                                            : Partitioning::partitionOf(key, *partitions);
        publishTo(name, partition, messages, publisher, std::move(done));
    });
}

void PartitionedStore::publishTo(const QString &queue, int partition, const QList<NewMessage> &messages,
                                 const QString &publisher, Completion<PublishResult> done)
{
    m_inner.publish(storeQueue(queue, partition), messages, publisher,
                    [this, queue, partition, messages, publisher, done = std::move(done)](Result<PublishResult> result) mutable {
                        if (result || partition == 0 || result.error().code != ErrorCode::QueueNotFound)
                            return done(std::move(result));
                        // A partition that is not there: partition 0 as it is now says why.
                        m_inner.queueInfo(queue, [this, queue, partition, messages, publisher,
                                                  done = std::move(done)](Result<QueueInfo> head) mutable {
                            if (!head)
                                return done(head.error());
                            remember(*head);
                            const int partitions = qMax(1, head->config.partitions);
                            if (partition >= partitions) {
                                // This broker's count was old (the queue was made again with
                                // fewer): the message goes where the count says now.
                                const QString key = messages.first().key;
                                const int now = key.isEmpty() ? int(m_publishTurns[queue]++ % quint32(partitions))
                                                              : Partitioning::partitionOf(key, partitions);
                                return publishTo(queue, now, messages, publisher, std::move(done));
                            }
                            // A grow or a create that stopped half-way: the partition is made from
                            // partition 0's options, then published to once more.
                            createPartitions(queue, partitionConfig(head->config), partition, partition + 1,
                                             std::nullopt,
                                             [this, queue, partition, messages, publisher,
                                              done = std::move(done)](Result<void> made) mutable {
                                                 if (!made)
                                                     return done(made.error());
                                                 m_inner.publish(storeQueue(queue, partition), messages, publisher,
                                                                 std::move(done));
                                             });
                        });
                    });
}

void PartitionedStore::consume(const QString &name, const ConsumeRequest &request, Completion<QList<Message>> done)
{
    if (isPlainNow(name)) {
        if (!m_partitionsSeen)
            return m_inner.consume(name, request, std::move(done));
        return m_inner.consume(name, request, logicalOrigins<QList<Message>>(std::move(done), consumed));
    }
    withPartitions(name, [this, name, request, done = std::move(done)](Result<int> partitions) mutable {
        if (!partitions)
            return done(partitions.error());
        if (*partitions == 1)
            return m_inner.consume(name, request, logicalOrigins<QList<Message>>(std::move(done), consumed));
        if (!m_counts.value(name).stream)
            return consumeFrom(name, *partitions, request, std::move(done));
        joinEverywhere(name, *partitions, request.group,
                       [this, name, partitions = *partitions, request, done = std::move(done)]() mutable {
                           consumeFrom(name, partitions, request, std::move(done));
                       });
    });
}

void PartitionedStore::joinEverywhere(const QString &queue, int partitions, const QString &group,
                                      std::function<void()> then)
{
    const QString key = queue + QLatin1Char('\n') + group;
    const int joined = m_joinedGroups.value(key);
    if (joined >= partitions)
        return then();
    makeGroups(queue, {group}, joined, partitions, [this, key, partitions, then = std::move(then)](Result<void> made) {
        // Not made everywhere (Redis away, a partition not made yet): tried again at the next consume.
        if (made)
            m_joinedGroups[key] = qMax(m_joinedGroups.value(key), partitions);
        then();
    });
}

void PartitionedStore::consumeFrom(const QString &queue, int partitions, const ConsumeRequest &request,
                                   Completion<QList<Message>> done)
{
    const int start = int(m_consumeTurns[queue]++ % quint32(partitions));
    auto taken = std::make_shared<QList<Message>>();
    auto failure = std::make_shared<std::optional<Error>>();
    inTurn(
        0, partitions,
        [this, queue, partitions, start, request, taken, failure](int step, std::function<void(bool)> next) {
            const int partition = (start + step) % partitions;
            ConsumeRequest rest = request;
            rest.count = request.count - int(taken->size());
            m_inner.consume(storeQueue(queue, partition), rest,
                            [this, queue, partition, request, taken, failure, next](Result<QList<Message>> got) {
                                if (!got) {
                                    // A partition not made yet holds nothing; any other failure ends the turn.
                                    if (partition == 0 || got.error().code != ErrorCode::QueueNotFound)
                                        *failure = got.error();
                                    return next(!*failure);
                                }
                                for (Message &message : got.value()) {
                                    taken->append(std::move(asLogical(message, queue, partition)));
                                    if (!request.acknowledge)
                                        rememberDelivery(taken->last().id, partition);
                                }
                                next(taken->size() < request.count);
                            });
        },
        [taken, failure, done = std::move(done)]() {
            // Messages taken are handed out even when a later partition failed: with
            // acknowledge=true they have left their partition already.
            if (*failure && taken->isEmpty())
                return done(**failure);
            withLogicalOrigins(*taken);
            done(std::move(*taken));
        });
}

void PartitionedStore::awaitMessages(const QString &name, qint64 untilMs)
{
    const int partitions = m_counts.value(name).partitions;
    for (int partition = 0; partition < partitions; ++partition)
        m_inner.awaitMessages(storeQueue(name, partition), untilMs);
}

Message &PartitionedStore::asLogical(Message &message, const QString &queue, int partition) const
{
    message.queue = queue;
    message.receipt = Partitioning::receiptWithPartition(message.receipt, partition);
    return message;
}

void PartitionedStore::rememberDelivery(const QString &id, int partition)
{
    if (m_rememberedDeliveries == 0)
        return;
    if (!m_deliveredFrom.contains(id)) {
        m_deliveryOrder.push_back(id);
        if (qsizetype(m_deliveryOrder.size()) > m_rememberedDeliveries) {
            m_deliveredFrom.remove(m_deliveryOrder.front());
            m_deliveryOrder.pop_front();
        }
    }
    m_deliveredFrom.insert(id, partition);
}

template<typename T>
void PartitionedStore::routed(const QString &queue, const MessageRef &ref,
                              std::function<void(const QString &, const MessageRef &, Completion<T>)> op, Completion<T> done)
{
    // A receipt that names a partition goes the long way even when the queue looks plain here:
    // another broker may have made it partitioned since this one last read it.
    if (isPlainNow(queue) && Partitioning::splitReceipt(ref.receipt).second == 0)
        return op(queue, ref, std::move(done));
    withPartitions(queue, [this, queue, ref, op = std::move(op), done = std::move(done)](Result<int> partitions) mutable {
        if (!partitions)
            return done(partitions.error());
        if (*partitions == 1 && Partitioning::splitReceipt(ref.receipt).second == 0)
            return op(queue, ref, std::move(done));
        MessageRef inner = ref;
        if (!ref.receipt.isEmpty()) {
            const auto [receipt, partition] = Partitioning::splitReceipt(ref.receipt);
            inner.receipt = receipt;
            if (partition < *partitions)
                return op(storeQueue(queue, partition), inner, std::move(done));
            // Past the count this broker knows: another broker may have grown the queue.
            return freshPartitions(queue, [queue, partition, inner, op, done = std::move(done)](Result<int> now) mutable {
                if (!now)
                    return done(now.error());
                if (partition >= *now)
                    return done(StoreErrors::staleReceipt());
                op(storeQueue(queue, partition), inner, std::move(done));
            });
        }
        if (const auto known = m_deliveredFrom.constFind(ref.id); known != m_deliveredFrom.cend())
            return op(storeQueue(queue, *known), inner, std::move(done));
        // Delivered by another broker: ask every partition at once; only the one that holds it acts.
        struct Answers
        {
            int pending = 0;
            std::optional<Result<T>> best;
        };
        auto answers = std::make_shared<Answers>();
        answers->pending = *partitions;
        for (int partition = 0; partition < *partitions; ++partition) {
            op(storeQueue(queue, partition), inner, [answers, done](Result<T> result) {
                // A success beats a refusal, and any refusal beats "not here".
                const bool better = !answers->best
                                    || (result.ok() && !answers->best->ok())
                                    || (!result.ok() && !answers->best->ok()
                                        && answers->best->error().code == ErrorCode::MessageNotFound
                                        && result.error().code != ErrorCode::MessageNotFound
                                        && result.error().code != ErrorCode::QueueNotFound);
                if (better)
                    answers->best = std::move(result);
                if (--answers->pending == 0)
                    done(std::move(*answers->best));
            });
        }
    });
}

void PartitionedStore::ack(const QString &name, const MessageRef &ref, Completion<void> done)
{
    routed<void>(name, ref, [this](const QString &queue, const MessageRef &r, Completion<void> d) {
        m_inner.ack(queue, r, std::move(d));
    }, std::move(done));
}

void PartitionedStore::nack(const QString &name, const MessageRef &ref, qint64 delayMs, Completion<NackResult> done)
{
    routed<NackResult>(name, ref, [this, delayMs](const QString &queue, const MessageRef &r, Completion<NackResult> d) {
        m_inner.nack(queue, r, delayMs, std::move(d));
    }, std::move(done));
}

void PartitionedStore::extend(const QString &name, const MessageRef &ref, qint64 visibilityMs, Completion<qint64> done)
{
    routed<qint64>(name, ref, [this, visibilityMs](const QString &queue, const MessageRef &r, Completion<qint64> d) {
        m_inner.extend(queue, r, visibilityMs, std::move(d));
    }, std::move(done));
}

void PartitionedStore::browse(const QString &name, const BrowseQuery &query, Completion<BrowsePage> done)
{
    withPartitions(name, [this, name, query, done = std::move(done)](Result<int> partitions) mutable {
        if (!partitions)
            return done(partitions.error());
        if (*partitions == 1)
            return m_inner.browse(name, query, logicalOrigins<BrowsePage>(std::move(done), browsed));
        // The partitions one after another, as if they were one line: the offset skips matches
        // across them, and each adds its total.
        struct Walk
        {
            BrowsePage page;
            qint64 skip = 0;
            std::optional<Error> failure;
        };
        auto walk = std::make_shared<Walk>();
        walk->skip = query.offset;
        inTurn(
            0, *partitions,
            [this, name, query, walk](int partition, std::function<void(bool)> next) {
                BrowseQuery part = query;
                part.offset = walk->skip;
                part.limit = qMax<qint64>(1, query.limit - walk->page.messages.size());
                m_inner.browse(storeQueue(name, partition), part, [this, name, query, walk, partition, next](Result<BrowsePage> got) {
                    if (!got) {
                        if (partition == 0 || got.error().code != ErrorCode::QueueNotFound)
                            walk->failure = got.error();
                        return next(!walk->failure);
                    }
                    walk->page.total += got->total;
                    walk->page.scanned += got->scanned;
                    walk->page.truncated = walk->page.truncated || got->truncated;
                    walk->skip = qMax<qint64>(0, walk->skip - got->total);
                    for (Message &message : got.value().messages) {
                        if (walk->page.messages.size() < query.limit)
                            walk->page.messages.append(std::move(asLogical(message, name, partition)));
                    }
                    next(true);
                });
            },
            [query, walk, done = std::move(done)]() {
                if (walk->failure)
                    return done(*walk->failure);
                const qint64 after = query.offset + walk->page.messages.size();
                walk->page.nextOffset = after < walk->page.total ? after : -1;
                withLogicalOrigins(walk->page.messages);
                done(std::move(walk->page));
            });
    });
}

void PartitionedStore::messageAction(const QString &name, const MessageAction &action, Completion<MessageActionResult> done)
{
    withPartitions(name, [this, name, action, done = std::move(done)](Result<int> partitions) mutable {
        if (!partitions)
            return done(partitions.error());
        if (*partitions == 1)
            return m_inner.messageAction(name, action, std::move(done));
        struct Sum
        {
            qint64 affected = 0;
            QHash<QString, int> missing; // id -> partitions that do not hold it
            std::optional<Error> failure;
        };
        auto sum = std::make_shared<Sum>();
        inTurn(
            0, *partitions,
            [this, name, action, sum](int partition, std::function<void(bool)> next) {
                m_inner.messageAction(storeQueue(name, partition), action, [sum, action, partition, next](Result<MessageActionResult> got) {
                    if (got) {
                        sum->affected += got->affected;
                        for (const QString &id : got->missing)
                            ++sum->missing[id];
                    } else if (partition > 0 && got.error().code == ErrorCode::QueueNotFound) {
                        for (const QString &id : action.ids) // a partition not made yet holds none
                            ++sum->missing[id];
                    } else {
                        sum->failure = got.error();
                    }
                    next(!sum->failure);
                });
            },
            [action, sum, partitions = *partitions, done = std::move(done)]() {
                if (sum->failure)
                    return done(*sum->failure);
                done(MessageActionResult{sum->affected, missingEverywhere(action.ids, sum->missing, partitions)});
            });
    });
}

void PartitionedStore::redrive(const QString &name, const RedriveRequest &request, Completion<RedriveResult> done)
{
    withPartitions(name, [this, name, request, done = std::move(done)](Result<int> partitions) mutable {
        if (!partitions)
            return done(partitions.error());
        if (*partitions == 1) {
            return m_inner.redrive(name, request, [done = std::move(done)](Result<RedriveResult> result) {
                if (result) {
                    for (RedriveItem &item : result.value().messages)
                        item.origin = Partitioning::split(item.origin).queue;
                }
                done(std::move(result));
            });
        }
        struct Sum
        {
            RedriveResult result;
            QHash<QString, int> missing;
            int answered = 0;
            std::optional<Error> failure;
        };
        auto sum = std::make_shared<Sum>();
        inTurn(
            0, *partitions,
            [this, name, request, sum](int partition, std::function<void(bool)> next) {
                RedriveRequest part = request;
                if (request.limit > 0)
                    part.limit = request.limit - sum->result.moved;
                m_inner.redrive(storeQueue(name, partition), part, [sum, request, partition, next](Result<RedriveResult> got) {
                    ++sum->answered;
                    if (!got) {
                        if (partition == 0 || got.error().code != ErrorCode::QueueNotFound)
                            sum->failure = got.error();
                        for (const QString &id : request.ids) // a partition not made yet holds none
                            ++sum->missing[id];
                        return next(!sum->failure);
                    }
                    sum->result.moved += got->moved;
                    for (RedriveItem &item : got.value().messages) {
                        item.origin = Partitioning::split(item.origin).queue;
                        sum->result.messages.append(std::move(item));
                    }
                    for (const QString &id : got->missing)
                        ++sum->missing[id];
                    next(request.limit <= 0 || sum->result.moved < request.limit);
                });
            },
            [request, sum, done = std::move(done)]() {
                if (sum->failure)
                    return done(*sum->failure);
                sum->result.missing = missingEverywhere(request.ids, sum->missing, sum->answered);
                done(std::move(sum->result));
            });
    });
}

// Events from the store ----------------------------------------------------------------------

void PartitionedStore::messageEvent(const MessageEvent &event)
{
    if (!m_listener)
        return;
    if (!Partitioning::isPartition(event.queue) && !Partitioning::isPartition(event.detail))
        return m_listener->messageEvent(event);
    MessageEvent logical = event;
    logical.queue = Partitioning::split(event.queue).queue;
    logical.detail = Partitioning::split(event.detail).queue; // a dead-letter queue or a move's target that is a partition
    m_listener->messageEvent(logical);
}

void PartitionedStore::messagesAvailable(const QString &queue)
{
    if (m_listener)
        m_listener->messagesAvailable(Partitioning::split(queue).queue);
}

void PartitionedStore::storeIncident(const StoreIncident &incident)
{
    if (m_listener)
        m_listener->storeIncident(incident);
}

} // namespace Broker
