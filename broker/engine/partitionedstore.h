// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/clock.h"
#include "core/queuestore.h"

#include <QHash>

#include <deque>
#include <functional>
#include <optional>

namespace Broker {

// Partitioned queues (QueueConfig::partitions > 1) over any store. One logical queue Q is
// stored as the store queues Q, Q~1 … Q~(n-1) (Partitioning::storeQueue), each a plain queue
// with the same options; this decorator is the only place that knows, so the engine above it
// (long polls, processors, rates, the event log) and the stores below it stay as they are, and
// the memory store and Redis behave alike.
//
// - A publish with a key goes to the key's partition (Partitioning::partitionOf): one key, one
//   partition, its order kept. Without a key, publishes take the partitions in turn. A batch
//   goes to one partition whole, so that it stays all or nothing; it takes one key.
// - A consume starts at the next partition in turn and goes on to the others until it has
//   `count` messages or has asked each once: every partition is the first one as often as the
//   others, so none starves.
// - Message ids stay what the store made them. Receipts from partition i > 0 end in ".i"; an
//   ack, nack or extend without a receipt goes to the partition this broker delivered the
//   message from, or else to all of them at once (one holds it).
// - Queue information sums the partitions and lists each one (QueueInfo::partitions).
// - The partition count only grows: new partitions are made first, then the count is raised.
//   Publishes and consumes learn another broker's change within CountFreshMs; changes, purges and
//   deletes read the count afresh. A delete removes partition 0 first (then the queue is gone);
//   a create replaces partitions a stopped delete left behind, and keeps any a publish made
//   while it ran. A grow makes a stream's groups on the new partitions.
class PartitionedStore final : public QueueStore, private StoreListener
{
public:
    // How long a queue's partition count is used before it is read again (in the background,
    // while the old one goes on being used).
    static constexpr qint64 CountFreshMs = 2000;
    // Leases delivered here whose partition is remembered, for acks that bring no receipt.
    static constexpr qsizetype RememberedDeliveries = 65536;

    // `inner` and `clock` must outlive this store.
    PartitionedStore(QueueStore &inner, const Clock &clock, qsizetype rememberedDeliveries = RememberedDeliveries);
    ~PartitionedStore() override;

    QString backendName() const override { return m_inner.backendName(); }
    HealthStatus health() const override { return m_inner.health(); }
    StoreStatus status() const override { return m_inner.status(); }
    void setListener(StoreListener *listener) override { m_listener = listener; }
    void flush() override { m_inner.flush(); }

    void createQueue(const QString &name, const QueueConfig &config, Completion<QueueInfo> done) override;
    void deleteQueue(const QString &name, Completion<qint64> done) override;
    void purgeQueue(const QString &name, Completion<qint64> done) override;
    void updateQueue(const QString &name, const QueueConfigChange &change, Completion<QueueInfo> done) override;
    void listQueues(Completion<QList<QueueInfo>> done) override;
    void queueInfo(const QString &name, Completion<QueueInfo> done) override;
    void publish(const QString &name, const QList<NewMessage> &messages, const QString &publisher,
                 Completion<PublishResult> done) override;
    void consume(const QString &name, const ConsumeRequest &request, Completion<QList<Message>> done) override;
    void awaitMessages(const QString &name, qint64 untilMs) override;
    void ack(const QString &name, const MessageRef &ref, Completion<void> done) override;
    void nack(const QString &name, const MessageRef &ref, qint64 delayMs, Completion<NackResult> done) override;
    void extend(const QString &name, const MessageRef &ref, qint64 visibilityMs, Completion<qint64> done) override;
    void browse(const QString &name, const BrowseQuery &query, Completion<BrowsePage> done) override;
    void messageAction(const QString &name, const MessageAction &action, Completion<MessageActionResult> done) override;
    void redrive(const QString &name, const RedriveRequest &request, Completion<RedriveResult> done) override;
    void runMaintenance(Completion<qint64> done) override { m_inner.runMaintenance(std::move(done)); }

private:
    // StoreListener: store queue names become logical ones on the way up.
    void messageEvent(const MessageEvent &event) override;
    void messagesAvailable(const QString &queue) override;
    void storeIncident(const StoreIncident &incident) override;

    // Calls `then` with the queue's partition count: the one known when it is fresh or the store
    // cannot say now (Redis away: publishes are spooled to the queue itself), else the store's.
    void withPartitions(const QString &queue, std::function<void(Result<int>)> then);
    // The count partition 0 holds now (admin operations, and a partition found missing).
    void freshPartitions(const QString &queue, std::function<void(Result<int>)> then);
    static QueueConfig partitionConfig(QueueConfig config); // a partition's: a plain queue's
    void remember(const QueueInfo &head);
    // True when `queue` is known to be a plain queue, read less than CountFreshMs ago: the hot
    // path, with no store call and nothing to rewrite.
    bool isPlainNow(const QString &queue) const;
    // Runs `step` for each of partitions from..to-1 in turn; `step` answers false to stop.
    static void inTurn(int from, int to, std::function<void(int, std::function<void(bool)>)> step,
                       std::function<void()> finished);
    // A partition that is there already is this queue's (a grow asked again, or made by a
    // publish that found it missing), unless it was made more than LeftoverMarginS before
    // `leftoversBefore` (unix seconds: the new partition 0's time, on a create): then it is a
    // leftover of a deleted queue of that name, and is made anew, empty.
    static constexpr double LeftoverMarginS = 5.0;
    void createPartitions(const QString &queue, const QueueConfig &config, int from, int to,
                          std::optional<double> leftoversBefore, Completion<void> done);
    // Makes each of `groups` on partitions from..to-1 (a consume of no message makes a group).
    void makeGroups(const QString &queue, const QStringList &groups, int from, int to, Completion<void> done);
    void publishTo(const QString &queue, int partition, const QList<NewMessage> &messages, const QString &publisher,
                   Completion<PublishResult> done);
    void consumeFrom(const QString &queue, int partitions, const ConsumeRequest &request, Completion<QList<Message>> done);
    void grow(const QString &name, const QueueInfo &head, int from, const QueueConfigChange &change,
              Completion<QueueInfo> done);
    void applyChange(const QString &name, int from, const QueueConfigChange &change, Completion<QueueInfo> done);
    // A consumer group of a stream queue is made on every partition the first time this broker
    // serves it (a consume of no message makes a group): a partition where the group was not
    // made yet would trim what the other groups acknowledged before the group saw it.
    void joinEverywhere(const QString &queue, int partitions, const QString &group, std::function<void()> then);
    void addPartitions(QueueInfo &head, int partitions, Completion<QueueInfo> done);
    // An ack, nack or extend: to the partition its receipt or this broker's delivery names, or
    // to all at once. `op` runs one on a store queue.
    template<typename T>
    void routed(const QString &queue, const MessageRef &ref,
                std::function<void(const QString &, const MessageRef &, Completion<T>)> op, Completion<T> done);
    Message &asLogical(Message &message, const QString &queue, int partition) const;
    void rememberDelivery(const QString &id, int partition);

    QueueStore &m_inner;
    const Clock &m_clock;
    StoreListener *m_listener = nullptr;
    struct KnownCount
    {
        int partitions = 1;
        bool stream = false;
        double created = 0; // partition 0's: another time is another queue of that name
        qint64 readAtMs = 0;
        bool refreshing = false;
    };
    QHash<QString, KnownCount> m_counts;
    bool m_partitionsSeen = false; // a partitioned queue was seen: dead letters may name a partition
    // Per queue, the partition the next unkeyed publish goes to, and the next consume starts at.
    QHash<QString, quint32> m_publishTurns;
    QHash<QString, quint32> m_consumeTurns;
    QHash<QString, int> m_joinedGroups; // queue + '\n' + group -> partitions it was made on
    QHash<QString, int> m_deliveredFrom; // message id -> partition, for RememberedDeliveries leases
    std::deque<QString> m_deliveryOrder;
    qsizetype m_rememberedDeliveries;
};

} // namespace Broker
