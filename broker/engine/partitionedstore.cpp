// SPDX-License-Identifier: GPL-3.0-or-later
#include "partitionedstore.h"

#include "partitioning.h"

#include "errors/logging.h"
#include "storage/storeerrors.h"

#include <memory>

namespace Broker {

using Partitioning::storeQueue;

namespace {

void addCounters(QueueCounters &sum, const QueueCounters &c)
{
    sum.published += c.published;
    sum.delivered += c.delivered;
    sum.acked += c.acked;
    sum.nacked += c.nacked;
    sum.expired += c.expired;
    sum.deadLettered += c.deadLettered;
    sum.dropped += c.dropped;
    sum.redriven += c.redriven;
}

PartitionInfo partitionInfo(const QueueInfo &info, int index)
{
    return {index, info.depth, info.inFlight, info.delayed, info.counters, {}};
}

// Adds partition `part` (a store queue's information) to the logical queue `head`.
void addPartition(QueueInfo &head, const QueueInfo &part, int index)
{
    head.partitions.append(partitionInfo(part, index));
    head.depth += part.depth;
    head.inFlight += part.inFlight;
    head.delayed += part.delayed;
    addCounters(head.counters, part.counters);
    for (const ConsumerGroupInfo &group : part.groups) {
        const auto same = std::find_if(head.groups.begin(), head.groups.end(),
                                       [&group](const ConsumerGroupInfo &g) { return g.name == group.name; });
        if (same == head.groups.end()) {
            head.groups.append(group);
            continue;
        }
        same->pending += group.pending;
        same->lag += group.lag;
        for (const QString &consumer : group.consumers) {
            if (!same->consumers.contains(consumer))
                same->consumers.append(consumer);
        }
    }
}

void startPartitions(QueueInfo &head)
{
    if (head.partitions.isEmpty())
        head.partitions.append(partitionInfo(head, 0));
}

} // namespace

PartitionedStore::PartitionedStore(QueueStore &inner, const Clock &clock, qsizetype rememberedDeliveries)
    : m_inner(inner), m_clock(clock), m_rememberedDeliveries(rememberedDeliveries)
{
    m_inner.setListener(this);
}

PartitionedStore::~PartitionedStore()
{
    m_inner.setListener(nullptr);
}

QueueConfig PartitionedStore::partitionConfig(QueueConfig config)
{
    config.partitions = 1; // each partition is a plain queue; the count lives with partition 0
    return config;
}

// The partition count -----------------------------------------------------------------------

void PartitionedStore::remember(const QueueInfo &head)
{
    KnownCount &known = m_counts[head.name];
    if (known.created != head.created) { // made anew (here or by another broker): its groups are not made yet
        const QString groupsOf = head.name + QLatin1Char('\n');
        m_joinedGroups.removeIf([&groupsOf](const auto &joined) { return joined.key().startsWith(groupsOf); });
    }
    known.partitions = qMax(1, head.config.partitions);
    known.stream = head.config.type == QStringLiteral("stream");
    known.created = head.created;
    known.readAtMs = m_clock.nowMs();
    known.refreshing = false;
    m_partitionsSeen = m_partitionsSeen || head.config.partitions > 1;
}

bool PartitionedStore::isPlainNow(const QString &queue) const
{
    const auto known = m_counts.constFind(queue);
    return known != m_counts.cend() && known->partitions == 1 && m_clock.nowMs() - known->readAtMs < CountFreshMs;
}

void PartitionedStore::withPartitions(const QString &queue, std::function<void(Result<int>)> then)
{
    const auto known = m_counts.find(queue);
    if (known != m_counts.end()) {
        const int partitions = known->partitions;
        if (m_clock.nowMs() - known->readAtMs >= CountFreshMs && !known->refreshing) {
            known->refreshing = true;
            m_inner.queueInfo(queue, [this, queue](Result<QueueInfo> info) {
                if (info)
                    remember(*info);
                else if (info.error().code == ErrorCode::QueueNotFound)
                    m_counts.remove(queue);
                else if (const auto again = m_counts.find(queue); again != m_counts.end())
                    again->refreshing = false;
            });
        }
        return then(partitions);
    }
    m_inner.queueInfo(queue, [this, queue, then = std::move(then)](Result<QueueInfo> info) {
        if (info) {
            remember(*info);
            return then(info->config.partitions);
        }
        if (info.error().code == ErrorCode::QueueNotFound)
            return then(info.error());
        then(1); // the store cannot say now: the queue itself takes it (a Redis store spools it)
    });
}

void PartitionedStore::freshPartitions(const QString &queue, std::function<void(Result<int>)> then)
{
    m_inner.queueInfo(queue, [this, queue, then = std::move(then)](Result<QueueInfo> info) {
        if (!info)
            return then(info.error());
        remember(*info);
        then(info->config.partitions);
    });
}

void PartitionedStore::inTurn(int from, int to, std::function<void(int, std::function<void(bool)>)> step,
                              std::function<void()> finished)
{
    auto next = std::make_shared<std::function<void(int)>>();
    *next = [next, to, step = std::move(step), finished = std::move(finished)](int partition) {
        if (partition >= to) {
            finished();
            *next = nullptr; // breaks the cycle once done
            return;
        }
        step(partition, [next, partition, finished](bool goOn) {
            if (!*next)
                return;
            if (goOn)
                return (*next)(partition + 1);
            finished();
            *next = nullptr;
        });
    };
    (*next)(from);
}

// Queues -------------------------------------------------------------------------------------

void PartitionedStore::createQueue(const QString &name, const QueueConfig &config, Completion<QueueInfo> done)
{
    m_inner.createQueue(name, config, [this, name, config, done = std::move(done)](Result<QueueInfo> head) mutable {
        if (!head || config.partitions <= 1) {
            if (head)
                remember(*head);
            return done(std::move(head));
        }
        remember(*head);
        // A partition there already made well before this partition 0 is a leftover of a queue
        // of this name whose delete stopped half-way (partition 0 goes first): it is made anew,
        // not taken over with what it held. One made since is this queue's: a publish that
        // found it missing made it, and may have stored a message in it.
        createPartitions(name, partitionConfig(config), 1, config.partitions, head->created,
                         [this, name, done = std::move(done)](Result<void> made) mutable {
                             if (!made)
                                 return done(made.error());
                             queueInfo(name, std::move(done));
                         });
    });
}

void PartitionedStore::createPartitions(const QString &queue, const QueueConfig &config, int from, int to,
                                        std::optional<double> leftoversBefore, Completion<void> done)
{
    auto failure = std::make_shared<std::optional<Error>>();
    inTurn(
        from, to,
        [this, queue, config, leftoversBefore, failure](int partition, std::function<void(bool)> next) {
            const QString name = storeQueue(queue, partition);
            m_inner.createQueue(name, config, [this, name, config, leftoversBefore, failure, next](Result<QueueInfo> made) {
                if (made)
                    return next(true);
                if (made.error().code != ErrorCode::QueueExists) {
                    *failure = made.error();
                    return next(false);
                }
                if (!leftoversBefore)
                    return next(true); // an earlier attempt of this grow made it
                m_inner.queueInfo(name, [this, name, config, leftoversBefore, failure, next](Result<QueueInfo> there) {
                    if (!there || there->created + LeftoverMarginS >= *leftoversBefore)
                        return next(true); // this queue's, or gone meanwhile (a publish makes it again)
                    m_inner.deleteQueue(name, [this, name, config, failure, next](Result<qint64> removed) {
                        if (!removed && removed.error().code != ErrorCode::QueueNotFound) {
                            *failure = removed.error();
                            return next(false);
                        }
                        m_inner.createQueue(name, config, [failure, next](Result<QueueInfo> again) {
                            // Made meanwhile by a publish to the new queue: that one is ours.
                            if (!again && again.error().code != ErrorCode::QueueExists)
                                *failure = again.error();
                            next(!*failure);
                        });
                    });
                });
            });
        },
        [failure, done = std::move(done)]() {
            if (*failure)
                return done(**failure);
            done({});
        });
}

void PartitionedStore::deleteQueue(const QString &name, Completion<qint64> done)
{
    // The count read afresh (another broker may have grown the queue), and partition 0 first: once
    // it is gone the queue is, and a publish that finds a partition missing is not answered by
    // making it again (publishTo). A delete that stops after it leaves partitions nobody lists;
    // creating the queue again replaces them (createPartitions).
    freshPartitions(name, [this, name, done = std::move(done)](Result<int> partitions) mutable {
        if (!partitions)
            return done(partitions.error());
        m_inner.deleteQueue(name, [this, name, partitions = *partitions, done = std::move(done)](Result<qint64> head) mutable {
            if (!head)
                return done(head.error());
            m_counts.remove(name);
            m_publishTurns.remove(name);
            m_consumeTurns.remove(name);
            auto deleted = std::make_shared<qint64>(*head);
            auto failure = std::make_shared<std::optional<Error>>();
            inTurn(
                1, partitions,
                [this, name, deleted, failure](int partition, std::function<void(bool)> next) {
                    m_inner.deleteQueue(storeQueue(name, partition), [deleted, failure, next](Result<qint64> result) {
                        if (result)
                            *deleted += *result;
                        else if (result.error().code != ErrorCode::QueueNotFound)
                            *failure = result.error();
                        next(!*failure);
                    });
                },
                [name, deleted, failure, done = std::move(done)]() {
                    // The queue went with partition 0: the delete took effect, and a partition
                    // it could not remove is replaced, empty, when the queue is made again.
                    if (*failure)
                        qCWarning(lcStorage).noquote() << "Queue" << name << "deleted, but not all of its partitions:"
                                                       << (*failure)->message;
                    done(*deleted);
                });
        });
    });
}

void PartitionedStore::purgeQueue(const QString &name, Completion<qint64> done)
{
    freshPartitions(name, [this, name, done = std::move(done)](Result<int> partitions) mutable {
        if (!partitions)
            return done(partitions.error());
        if (*partitions == 1)
            return m_inner.purgeQueue(name, std::move(done));
        auto purged = std::make_shared<qint64>(0);
        auto failure = std::make_shared<std::optional<Error>>();
        inTurn(
            0, *partitions,
            [this, name, purged, failure](int partition, std::function<void(bool)> next) {
                m_inner.purgeQueue(storeQueue(name, partition), [purged, failure, partition, next](Result<qint64> result) {
                    if (result)
                        *purged += *result;
                    else if (partition == 0 || result.error().code != ErrorCode::QueueNotFound)
                        *failure = result.error();
                    next(!*failure);
                });
            },
            [purged, failure, done = std::move(done)]() {
                if (*failure)
                    return done(**failure);
                done(*purged);
            });
    });
}

void PartitionedStore::updateQueue(const QString &name, const QueueConfigChange &change, Completion<QueueInfo> done)
{
    // The count as partition 0 holds it now, not as this broker last read it: a grow by another
    // broker must not be taken for fewer partitions.
    m_inner.queueInfo(name, [this, name, change, done = std::move(done)](Result<QueueInfo> head) mutable {
        if (!head)
            return done(head.error());
        remember(*head);
        const int from = qMax(1, head->config.partitions);
        if (change.partitions && *change.partitions < from)
            return done(Error{ErrorCode::InvalidArgument,
                              QStringLiteral("Invalid option 'partitions': the queue has %1 and partitions only grow "
                                             "(fewer would strand the messages of the others)")
                                  .arg(from)});
        grow(name, *head, from, change, std::move(done));
    });
}

void PartitionedStore::grow(const QString &name, const QueueInfo &head, int from, const QueueConfigChange &change,
                            Completion<QueueInfo> done)
{
    const int to = change.partitions.value_or(from);
    const QueueConfig config = partitionConfig(change.appliedTo(head.config));
    QStringList groups;
    for (const ConsumerGroupInfo &group : head.groups)
        groups.append(group.name);
    // New partitions first, with the stream's groups: when the count goes up, every partition it
    // names is there, and none trims what a group has not seen.
    createPartitions(name, config, from, to, std::nullopt,
                     [this, name, from, to, groups, change, done = std::move(done)](Result<void> made) mutable {
                         if (!made)
                             return done(made.error());
                         makeGroups(name, groups, from, to,
                                    [this, name, from, change, done = std::move(done)](Result<void> grouped) mutable {
                                        if (!grouped)
                                            return done(grouped.error());
                                        applyChange(name, from, change, std::move(done));
                                    });
                     });
}

void PartitionedStore::applyChange(const QString &name, int from, const QueueConfigChange &change,
                                   Completion<QueueInfo> done)
{
    // The other options on the partitions there were before, then on partition 0 with the count.
    QueueConfigChange options = change;
    options.partitions.reset();
    auto failure = std::make_shared<std::optional<Error>>();
    inTurn(
        1, options.isEmpty() ? 1 : from,
        [this, name, options, failure](int partition, std::function<void(bool)> next) {
            m_inner.updateQueue(storeQueue(name, partition), options, [failure, next](Result<QueueInfo> result) {
                if (!result && result.error().code != ErrorCode::QueueNotFound)
                    *failure = result.error();
                next(!*failure);
            });
        },
        [this, name, change, failure, done = std::move(done)]() mutable {
            if (*failure)
                return done(**failure);
            m_inner.updateQueue(name, change, [this, name, done = std::move(done)](Result<QueueInfo> result) mutable {
                if (!result)
                    return done(result.error());
                remember(*result);
                queueInfo(name, std::move(done));
            });
        });
}

void PartitionedStore::makeGroups(const QString &queue, const QStringList &groups, int from, int to,
                                  Completion<void> done)
{
    auto failure = std::make_shared<std::optional<Error>>();
    inTurn(
        0, int(groups.size()) * qMax(0, to - from),
        [this, queue, groups, from, to, failure](int step, std::function<void(bool)> next) {
            ConsumeRequest none; // takes nothing; makes the group where it is not yet
            none.count = 0;
            none.group = groups.at(step / (to - from));
            m_inner.consume(storeQueue(queue, from + step % (to - from)), none, [failure, next](Result<QList<Message>> made) {
                if (!made)
                    *failure = made.error();
                next(!*failure);
            });
        },
        [failure, done = std::move(done)]() {
            if (*failure)
                return done(**failure);
            done({});
        });
}

void PartitionedStore::listQueues(Completion<QList<QueueInfo>> done)
{
    m_inner.listQueues([this, done = std::move(done)](Result<QList<QueueInfo>> all) {
        if (!all)
            return done(all.error());
        QList<QueueInfo> queues;
        QHash<QString, qsizetype> heads;
        QList<std::pair<Partitioning::StoreQueueName, const QueueInfo *>> parts;
        for (const QueueInfo &info : *all) {
            const Partitioning::StoreQueueName name = Partitioning::split(info.name);
            if (name.partition > 0) {
                parts.append({name, &info});
                continue;
            }
            remember(info);
            heads.insert(info.name, queues.size());
            queues.append(info);
        }
        std::sort(parts.begin(), parts.end(), [](const auto &a, const auto &b) { return a.first.partition < b.first.partition; });
        // A partition without its queue is left out: only a delete that stopped half-way leaves
        // one, and creating the queue again takes it back.
        for (const auto &[name, info] : parts) {
            const auto head = heads.constFind(name.queue);
            if (head == heads.cend())
                continue;
            QueueInfo &queue = queues[*head];
            startPartitions(queue);
            addPartition(queue, *info, name.partition);
        }
        done(std::move(queues));
    });
}

void PartitionedStore::queueInfo(const QString &name, Completion<QueueInfo> done)
{
    m_inner.queueInfo(name, [this, name, done = std::move(done)](Result<QueueInfo> head) mutable {
        if (!head)
            return done(std::move(head));
        remember(*head);
        if (head->config.partitions <= 1)
            return done(std::move(head));
        addPartitions(head.value(), head->config.partitions, std::move(done));
    });
}

void PartitionedStore::addPartitions(QueueInfo &head, int partitions, Completion<QueueInfo> done)
{
    auto info = std::make_shared<QueueInfo>(std::move(head));
    startPartitions(*info);
    auto failure = std::make_shared<std::optional<Error>>();
    inTurn(
        1, partitions,
        [this, info, failure](int partition, std::function<void(bool)> next) {
            m_inner.queueInfo(storeQueue(info->name, partition), [info, failure, partition, next](Result<QueueInfo> part) {
                if (part)
                    addPartition(*info, *part, partition);
                else if (part.error().code != ErrorCode::QueueNotFound)
                    *failure = part.error();
                next(!*failure);
            });
        },
        [info, failure, done = std::move(done)]() {
            if (*failure)
                return done(**failure);
            done(std::move(*info));
        });
}

} // namespace Broker
