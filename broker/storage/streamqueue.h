// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "memoryqueue.h"

#include <deque>
#include <map>
#include <set>
#include <unordered_map>

namespace Broker {

// A stream queue in memory, mirroring Redis streams: an append-only log read by consumer groups.
// Every group sees every entry; within a group each entry goes to one consumer and stays pending
// for it until acknowledged. A pending entry whose lease runs out becomes claimable by any
// consumer of the group (XAUTOCLAIM). Entries every group has acknowledged are trimmed; without
// any group, entries wait (until max_size refuses publishes or their TTL ends). A group created
// later starts at the oldest retained entry.
class StreamQueue final : public MemoryQueue
{
public:
    StreamQueue(QString name, QueueConfig config, qint64 createdMs, MemoryQueueHost &host);

    qint64 size() const override;
    Result<void> checkPublish(const NewMessage &message) const override;
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

    static QString defaultGroup() { return QStringLiteral("default"); }

protected:
    void fillInfo(QueueInfo &info) const override;

private:
    struct Entry
    {
        quint64 position = 0; // place in this log; ids keep their own numbers across queues
        StoredMessage message;
        bool removed = false; // taken out of the middle (redrive); trimmed when it reaches the front
    };
    struct Pending
    {
        QString consumer;
        quint32 deliveryCount = 0;
        qint64 deadlineMs = 0; // 0 while claimable
        quint64 receipt = 0;
    };
    struct Group
    {
        quint64 lastDelivered = 0;            // position of the newest entry handed to the group
        std::map<quint64, Pending> pending;   // by position
        std::set<std::pair<qint64, quint64>> deadlines;
        std::set<quint64> claimable;          // pending entries whose lease ran out, by position
        std::set<QString> consumers;
    };
    using GroupMap = std::map<QString, Group>;

    const Entry *entryAt(quint64 position) const;
    Result<std::pair<Group *, std::map<quint64, Pending>::iterator>> findPending(const MessageRef &ref);
    void deliver(Group &group, const QString &groupName, quint64 position, Pending &pending,
                 const ConsumeRequest &request, qint64 leaseMs, QList<Message> &out);
    void forgetPending(Group &group, std::map<quint64, Pending>::iterator it);
    // Takes an entry out of the log and of every group (redrive, actions); trim() drops it later.
    void removeEntry(Entry &entry, std::vector<StoredMessage> &out);
    // The group gives up on an entry: a copy goes to the dead-letter queue, the log keeps it.
    void deadLetterFromGroup(Group &group, std::map<quint64, Pending>::iterator it, const QString &reason);
    qint64 lag(const Group &group) const;
    void trim();

    std::deque<Entry> m_log;
    quint64 m_nextPosition = 1;
    std::unordered_map<quint64, quint64> m_positionOf; // message sequence -> position
    qint64 m_removedCount = 0;                          // entries marked removed but not yet trimmed
    GroupMap m_groups;
};

} // namespace Broker
