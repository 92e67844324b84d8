// SPDX-License-Identifier: GPL-3.0-or-later
#include "memorystore.h"

#include "orderedqueue.h"
#include "storeerrors.h"
#include "streamqueue.h"

#include "core/messageid.h"

#include <QDataStream>
#include <QIODevice>
#include <QRandomGenerator>

#include <algorithm>

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace Broker {

using StoreErrors::queueNotFound;

MemoryStore::MemoryStore(const QueueTypeCatalog &types, const Clock &clock)
    : m_types(types), m_clock(clock), m_nextSequence(quint64(clock.nowMs()) * 1000)
{
}

MemoryStore::~MemoryStore() = default;

Result<MemoryQueue *> MemoryStore::find(const QString &name) const
{
    const auto it = m_queues.find(name);
    if (it == m_queues.end())
        return queueNotFound();
    return it->second.get();
}

MemoryQueue &MemoryStore::insertQueue(const QString &name, const QueueConfig &config, qint64 createdMs)
{
    MemoryQueueHost &host = *this;
    std::unique_ptr<MemoryQueue> queue;
    if (m_types.kindOf(config.type) == QueueKind::Stream)
        queue = std::make_unique<StreamQueue>(name, config, createdMs, host);
    else
        queue = std::make_unique<OrderedQueue>(name, config, createdMs, host, m_types.createReadySet(config.type));
    MemoryQueue &ref = *queue;
    m_queues[name] = std::move(queue);
    return ref;
}

void MemoryStore::createQueue(const QString &name, const QueueConfig &config, Completion<QueueInfo> done)
{
    // The type is registered (QueueStore's contract: the engine checks it for every caller; the
    // journal checks what it replays, loadState() what it loads).
    if (m_queues.contains(name))
        return done(StoreErrors::queueExists());
    done(insertQueue(name, config, nowMs()).info());
}

void MemoryStore::deleteQueue(const QString &name, Completion<qint64> done)
{
    const auto it = m_queues.find(name);
    if (it == m_queues.end())
        return done(queueNotFound());
    // Mirrors what Redis reports: the queue's record always, its message structure while non-empty.
    const qint64 keys = 1 + (it->second->size() > 0 ? 1 : 0);
    m_queues.erase(it);
    done(keys);
}

void MemoryStore::purgeQueue(const QString &name, Completion<qint64> done)
{
    const Result<MemoryQueue *> queue = find(name);
    if (!queue)
        return done(queue.error());
    const qint64 purged = (*queue)->purge();
    if (m_listener) {
        MessageEvent event;
        event.timeMs = nowMs();
        event.kind = MessageEventKind::Purged;
        event.queue = name;
        event.detail = QString::number(purged);
        m_listener->messageEvent(event);
    }
    done(purged);
}

void MemoryStore::updateQueue(const QString &name, const QueueConfigChange &change, Completion<QueueInfo> done)
{
    const Result<MemoryQueue *> queue = find(name);
    if (!queue)
        return done(queue.error());
    (*queue)->setConfig(change.appliedTo((*queue)->config()));
    done((*queue)->info());
}

void MemoryStore::listQueues(Completion<QList<QueueInfo>> done)
{
    // Sort the queues, not their infos: swapping pointers is cheaper than moving QueueInfos.
    std::vector<const MemoryQueue *> queues;
    queues.reserve(m_queues.size());
    for (const auto &[name, queue] : m_queues)
        queues.push_back(queue.get());
    std::sort(queues.begin(), queues.end(),
              [](const MemoryQueue *a, const MemoryQueue *b) { return a->name() < b->name(); });
    QList<QueueInfo> infos;
    infos.reserve(qsizetype(queues.size()));
    for (const MemoryQueue *queue : queues)
        infos.append(queue->info());
    done(std::move(infos));
}

void MemoryStore::queueInfo(const QString &name, Completion<QueueInfo> done)
{
    const Result<MemoryQueue *> queue = find(name);
    if (!queue)
        return done(queue.error());
    done((*queue)->info());
}

void MemoryStore::publish(const QString &name, const QList<NewMessage> &messages, const QString &publisher,
                          Completion<PublishResult> done)
{
    const Result<MemoryQueue *> found = find(name);
    if (!found)
        return done(found.error());
    MemoryQueue &queue = **found;
    for (const NewMessage &message : messages) {
        if (const Result<void> check = queue.checkPublish(message); !check)
            return done(check.error());
    }
    if (queue.size() + messages.size() > queue.config().maxSize)
        return done(StoreErrors::queueFull());

    const quint32 publisherIndex = internPublisher(publisher);
    const qint64 now = nowMs();
    PublishResult result;
    result.messageSequences.reserve(messages.size());
    bool anyReady = false;
    for (const NewMessage &in : messages) {
        StoredMessage message;
        message.sequence = m_nextSequence++;
        message.timestampUs = now * 1000;
        message.notBeforeMs = in.delayMs > 0 ? now + in.delayMs : 0;
        message.priority = in.priority;
        message.publisher = publisherIndex;
        message.setData(in.data);
        if (!in.headers.isEmpty())
            message.ensureExtras().headers = in.headers;
        anyReady |= message.notBeforeMs == 0;
        result.messageSequences.append(message.sequence);
        ++queue.counters().published;
        recordEvent(MessageEventKind::Published, queue, message, publisher, {});
        queue.add(std::move(message));
    }
    result.queueSize = queue.size();
    if (anyReady)
        announceAvailable(name);
    done(std::move(result));
}

void MemoryStore::consume(const QString &name, const ConsumeRequest &request, Completion<QList<Message>> done)
{
    const Result<MemoryQueue *> queue = find(name);
    if (!queue)
        return done(queue.error());
    done((*queue)->consume(request));
}

void MemoryStore::ack(const QString &name, const MessageRef &ref, Completion<void> done)
{
    const Result<MemoryQueue *> queue = find(name);
    if (!queue)
        return done(queue.error());
    done((*queue)->ack(ref));
}

void MemoryStore::nack(const QString &name, const MessageRef &ref, qint64 delayMs, Completion<NackResult> done)
{
    const Result<MemoryQueue *> queue = find(name);
    if (!queue)
        return done(queue.error());
    Result<NackResult> result = (*queue)->nack(ref, delayMs);
    if (result && result->requeued && delayMs <= 0)
        announceAvailable(name);
    done(std::move(result));
}

void MemoryStore::extend(const QString &name, const MessageRef &ref, qint64 visibilityMs, Completion<qint64> done)
{
    const Result<MemoryQueue *> queue = find(name);
    if (!queue)
        return done(queue.error());
    done((*queue)->extend(ref, visibilityMs));
}

void MemoryStore::browse(const QString &name, const BrowseQuery &query, Completion<BrowsePage> done)
{
    const Result<MemoryQueue *> queue = find(name);
    if (!queue)
        return done(queue.error());
    if (query.state != MessageState::Dead)
        return done((*queue)->browse(query, BrowseFilter(query)));
    // As redrive reads it: the dead-letter queue's messages from this queue, or this queue's own
    // dead-lettered messages when it has no dead-letter queue (it is one).
    const QString &dlqName = (*queue)->config().deadLetterQueue;
    if (dlqName.isEmpty())
        return done((*queue)->browse(query, BrowseFilter(query, QString())));
    const Result<MemoryQueue *> dlq = find(dlqName);
    if (!dlq)
        return done(BrowsePage{});
    done((*dlq)->browse(query, BrowseFilter(query, name)));
}

void MemoryStore::runMaintenance(Completion<qint64> done)
{
    // Dead-lettering may create a queue; work on a stable list.
    std::vector<MemoryQueue *> queues;
    queues.reserve(m_queues.size());
    for (const auto &[name, queue] : m_queues)
        queues.push_back(queue.get());

    qint64 next = 0;
    qint64 held = 0;
    for (MemoryQueue *queue : queues) {
        held += queue->size();
        bool available = false;
        const qint64 due = queue->maintain(available);
        if (available)
            announceAvailable(queue->name());
        if (due != 0 && (next == 0 || due < next))
            next = due;
    }
    releaseMemoryAfterDrain(held);
    done(next);
}

void MemoryStore::releaseMemoryAfterDrain(qint64 heldMessages)
{
    // Trimming costs a few milliseconds, so only after a drain of at least 100,000 messages that
    // took away at least half of what was held.
    constexpr qint64 MinimumDrain = 100'000;
    m_peakHeldMessages = std::max(m_peakHeldMessages, heldMessages);
    if (m_peakHeldMessages - heldMessages < MinimumDrain || heldMessages > m_peakHeldMessages / 2)
        return;
#ifdef __GLIBC__
    malloc_trim(0);
#endif
    m_peakHeldMessages = heldMessages;
}

namespace {

constexpr quint32 StateMagic = 0x42445354; // "BDST"
constexpr quint16 StateVersion = 2; // 2: each queue's partitions after its creation time
constexpr quint16 StateVersionBeforePartitions = 1;
constexpr QDataStream::Version StateStreamVersion = QDataStream::Qt_6_4;

void writeCounters(QDataStream &out, const QueueCounters &c)
{
    out << c.published << c.delivered << c.acked << c.nacked << c.expired << c.deadLettered << c.dropped << c.redriven;
}

void readCounters(QDataStream &in, QueueCounters &c)
{
    in >> c.published >> c.delivered >> c.acked >> c.nacked >> c.expired >> c.deadLettered >> c.dropped >> c.redriven;
}

} // namespace

QByteArray MemoryStore::saveState() const
{
    QByteArray state;
    qint64 messages = 0;
    for (const auto &[name, queue] : m_queues)
        messages += queue->size();
    state.reserve(qsizetype(messages) * 300); // a guess that saves the doubling copies of large states
    QDataStream out(&state, QIODevice::WriteOnly);
    out.setVersion(StateStreamVersion);
    out << StateMagic << StateVersion << m_nextSequence << m_publishers;
    // In name order, so that the same state always gives the same bytes.
    std::vector<const MemoryQueue *> queues;
    for (const auto &[name, queue] : m_queues)
        queues.push_back(queue.get());
    std::sort(queues.begin(), queues.end(), [](const MemoryQueue *a, const MemoryQueue *b) { return a->name() < b->name(); });
    out << quint64(queues.size());
    for (const MemoryQueue *queue : queues) {
        out << queue->name() << queue->config() << queue->createdMs() << qint32(queue->config().partitions);
        writeCounters(out, queue->counters());
        queue->save(out);
    }
    return state;
}

void MemoryStore::clear()
{
    m_queues.clear();
    m_publishers.clear();
    m_publisherIndex.clear();
}

Result<void> MemoryStore::loadState(const QByteArray &state)
{
    clear();
    QDataStream in(state);
    in.setVersion(StateStreamVersion);
    quint32 magic = 0;
    quint16 version = 0;
    in >> magic >> version;
    if (magic != StateMagic || (version != StateVersion && version != StateVersionBeforePartitions))
        return Error{ErrorCode::Internal, QStringLiteral("not a memory store snapshot of a known version")};
    quint64 count = 0;
    in >> m_nextSequence >> m_publishers >> count;
    for (qsizetype i = 0; i < m_publishers.size(); ++i)
        m_publisherIndex.insert(m_publishers[i], quint32(i));
    for (quint64 i = 0; i < count && in.status() == QDataStream::Ok; ++i) {
        QString name;
        QueueConfig config;
        qint64 createdMs = 0;
        in >> name >> config >> createdMs;
        if (version != StateVersionBeforePartitions) {
            qint32 partitions = 1;
            in >> partitions;
            config.partitions = partitions;
        }
        if (!m_types.contains(config.type)) {
            m_queues.clear();
            return Error{ErrorCode::Internal, QStringLiteral("queue %1 has the unknown type '%2'").arg(name, config.type)};
        }
        MemoryQueue &queue = insertQueue(name, config, createdMs);
        readCounters(in, queue.counters());
        queue.load(in);
    }
    if (in.status() != QDataStream::Ok || !in.atEnd()) {
        m_queues.clear();
        return Error{ErrorCode::Internal, QStringLiteral("the snapshot is malformed")};
    }
    return {};
}

quint64 MemoryStore::newReceipt()
{
    return m_receiptSource ? m_receiptSource() : QRandomGenerator::global()->generate64();
}

Message MemoryStore::toMessage(const MemoryQueue &queue, const StoredMessage &stored) const
{
    Message message;
    message.id = MessageId::format(stored.sequence);
    message.queue = queue.name();
    message.data = stored.data().toByteArray();
    message.publisher = m_publishers.value(qsizetype(stored.publisher));
    message.timestamp = double(stored.timestampUs) / 1e6;
    message.priority = stored.priority;
    message.deliveryCount = int(stored.deliveryCount);
    if (const MessageExtras *extras = stored.extras.get()) {
        message.headers = extras->headers;
        message.originQueue = extras->originQueue;
        message.deadLetterReason = extras->deadLetterReason;
        message.deadLetteredAt = double(extras->deadLetteredAtMs) / 1000.0;
    }
    return message;
}

void MemoryStore::recordEvent(MessageEventKind kind, const MemoryQueue &queue, const StoredMessage &message,
                              const QString &user, const QString &detail)
{
    if (!m_listener)
        return;
    MessageEvent event;
    // A publish happens at the message's own timestamp (taken once for a whole batch).
    event.timeMs = kind == MessageEventKind::Published ? message.timestampUs / 1000 : nowMs();
    event.kind = kind;
    event.deliveryCount = int(message.deliveryCount);
    event.sequence = message.sequence;
    event.queue = queue.name();
    event.user = user;
    event.detail = detail;
    m_listener->messageEvent(event);
}

void MemoryStore::deadLetter(MemoryQueue &from, StoredMessage &&message, const QString &reason)
{
    const QString dlqName = from.config().deadLetterQueue;
    if (dlqName.isEmpty()) {
        ++from.counters().dropped;
        recordEvent(MessageEventKind::Dropped, from, message, {}, reason);
        return;
    }
    auto it = m_queues.find(dlqName);
    MemoryQueue &dlq = it != m_queues.end() ? *it->second : insertQueue(dlqName, QueueConfig{}, nowMs());
    ++from.counters().deadLettered;
    recordEvent(MessageEventKind::DeadLettered, from, message, {}, reason);
    MessageExtras &extras = message.ensureExtras();
    extras.originQueue = from.name();
    extras.deadLetterReason = reason;
    extras.deadLetteredAtMs = nowMs();
    extras.ttlStartMs = extras.deadLetteredAtMs;
    message.deliveryCount = 0;
    message.notBeforeMs = 0;
    // A dead-letter queue takes what it is given even beyond max_size: refusing would lose it.
    dlq.add(std::move(message));
    announceAvailable(dlqName);
}

quint32 MemoryStore::internPublisher(const QString &publisher)
{
    const auto it = m_publisherIndex.constFind(publisher);
    if (it != m_publisherIndex.cend())
        return it.value();
    const quint32 index = quint32(m_publishers.size());
    m_publishers.append(publisher);
    m_publisherIndex.insert(publisher, index);
    return index;
}

void MemoryStore::announceAvailable(const QString &queue)
{
    if (m_listener)
        m_listener->messagesAvailable(queue);
}

} // namespace Broker
