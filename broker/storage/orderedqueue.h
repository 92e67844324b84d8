// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "memoryqueue.h"
#include "readyset.h"

#include <map>
#include <memory>
#include <set>
#include <unordered_map>

namespace Broker {

// A queue whose messages each go to one consumer, in the order its ReadySet defines (FIFO for
// list, priority for priority, anything for custom types). Delayed messages wait in a time-ordered
// map; leased messages wait in a lease table with a deadline index.
class OrderedQueue final : public MemoryQueue
{
public:
    OrderedQueue(QString name, QueueConfig config, qint64 createdMs, MemoryQueueHost &host,
                 std::unique_ptr<ReadySet> ready);

    qint64 size() const override;
    void add(StoredMessage &&message) override;
    Result<QList<Message>> consume(const ConsumeRequest &request) override;
    Result<void> ack(const MessageRef &ref) override;
    Result<NackResult> nack(const MessageRef &ref, qint64 delayMs) override;
    Result<qint64> extend(const MessageRef &ref, qint64 visibilityMs) override;
    BrowsePage browse(const BrowseQuery &query, const BrowseFilter &filter) const override;
    qint64 purge() override;
    void takeDeadLettered(const QString &origin, qint64 limit, const QSet<quint64> *only,
                          const std::function<bool(const QString &)> &returnable,
                          std::vector<StoredMessage> &out) override;
    void takeMessages(const QSet<quint64> &sequences, std::vector<StoredMessage> &out) override;
    void requeueMessages(const QSet<quint64> &sequences, const QString &user, QSet<quint64> &found) override;
    qint64 maintain(bool &becameAvailable) override;
    void save(QDataStream &out) const override;
    void load(QDataStream &in) override;

protected:
    void fillInfo(QueueInfo &info) const override;

private:
    struct Lease
    {
        StoredMessage message;
        quint64 receipt = 0;
        qint64 deadlineMs = 0;
    };
    using LeaseTable = std::unordered_map<quint64, Lease>;

    // Finds the lease `ref` names and checks its receipt.
    Result<LeaseTable::iterator> findLease(const MessageRef &ref);
    StoredMessage releaseLease(LeaseTable::iterator it);
    // A message back from a delivery: dead-lettered when it has had its deliveries, else queued
    // again (after `delayMs`). Returns true when it was queued again.
    bool giveBack(StoredMessage &&message, qint64 delayMs, const QString &reason);

    std::unique_ptr<ReadySet> m_ready;
    std::multimap<qint64, StoredMessage> m_delayed; // due time (ms) -> message
    LeaseTable m_leases;                            // by sequence number
    std::set<std::pair<qint64, quint64>> m_leaseDeadlines;
};

} // namespace Broker
