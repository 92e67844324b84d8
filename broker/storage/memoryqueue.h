// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/queuestore.h"
#include "browsefilter.h"
#include "storedmessage.h"

#include <QSet>

#include <functional>
#include <vector>

namespace Broker {

class MemoryQueue;

// What a memory queue needs from the store that owns it. Everything happens in the engine's
// thread; nothing here blocks.
class MemoryQueueHost
{
public:
    virtual qint64 nowMs() const = 0;
    virtual quint64 newReceipt() = 0;
    virtual Message toMessage(const MemoryQueue &queue, const StoredMessage &message) const = 0;
    virtual void recordEvent(MessageEventKind kind, const MemoryQueue &queue, const StoredMessage &message,
                             const QString &user, const QString &detail = {}) = 0;
    // Hands a message the queue gives up on to its dead-letter queue, or drops it (counted) when
    // there is none.
    virtual void deadLetter(MemoryQueue &from, StoredMessage &&message, const QString &reason) = 0;

protected:
    ~MemoryQueueHost() = default;
};

// One queue of the memory store. Subclasses: OrderedQueue (list, priority, custom types) and
// StreamQueue (consumer groups). Counters, config and TTL rules are shared here.
class MemoryQueue
{
public:
    MemoryQueue(QString name, QueueConfig config, qint64 createdMs, MemoryQueueHost &host);
    virtual ~MemoryQueue() = default;
    MemoryQueue(const MemoryQueue &) = delete;
    MemoryQueue &operator=(const MemoryQueue &) = delete;

    const QString &name() const { return m_name; }
    const QueueConfig &config() const { return m_config; }
    // Options that may change (QueueConfigChange): they apply from now on, to the messages
    // already queued too (a shorter TTL expires them sooner). Never the type.
    void setConfig(QueueConfig config) { m_config = std::move(config); }
    qint64 createdMs() const { return m_createdMs; }
    QueueCounters &counters() { return m_counters; }
    const QueueCounters &counters() const { return m_counters; }
    QueueInfo info() const;

    // Everything the queue holds, as max_size counts it.
    virtual qint64 size() const = 0;
    virtual Result<void> checkPublish(const NewMessage &message) const;
    // Takes a message in: published, dead-lettered here, or redriven here.
    virtual void add(StoredMessage &&message) = 0;
    virtual Result<QList<Message>> consume(const ConsumeRequest &request) = 0;
    virtual Result<void> ack(const MessageRef &ref) = 0;
    virtual Result<NackResult> nack(const MessageRef &ref, qint64 delayMs) = 0;
    virtual Result<qint64> extend(const MessageRef &ref, qint64 visibilityMs) = 0;
    // One page of the messages in `query.state` (Dead is read as Ready: the store picks the
    // queue and the filter's origin), without touching them.
    virtual BrowsePage browse(const BrowseQuery &query, const BrowseFilter &filter) const = 0;
    // Drops everything; returns how many messages that was.
    virtual qint64 purge() = 0;
    // Removes up to `limit` (<= 0: all) dead-lettered messages (from `origin`, or from anywhere
    // when empty; only those in `only` when given), in order. A message whose origin queue
    // `returnable` refuses (it is gone) stays in its place and does not count.
    virtual void takeDeadLettered(const QString &origin, qint64 limit, const QSet<quint64> *only,
                                  const std::function<bool(const QString &)> &returnable,
                                  std::vector<StoredMessage> &out) = 0;
    // Removes the messages with these sequence numbers, whatever their state (a lease ends).
    virtual void takeMessages(const QSet<quint64> &sequences, std::vector<StoredMessage> &out) = 0;
    // Makes these messages deliverable now: delayed ones become ready, leased ones come back as a
    // nack would (their receipts go stale). Ready ones stay. `found` gets every one the queue holds.
    virtual void requeueMessages(const QSet<quint64> &sequences, const QString &user, QSet<quint64> &found) = 0;
    // Expires leases and TTLs, releases due delays. Returns the next time it has work (0: none)
    // and sets `becameAvailable` when messages became deliverable.
    virtual qint64 maintain(bool &becameAvailable) = 0;

    // Snapshots (journal compaction): everything the queue holds — ready, delayed and leased
    // messages, consumer groups — written so that load() into an empty queue of the same type
    // restores it exactly. Counters and config are the store's part of the snapshot.
    virtual void save(QDataStream &out) const = 0;
    virtual void load(QDataStream &in) = 0;

protected:
    virtual void fillInfo(QueueInfo &info) const = 0;

    bool isExpired(const StoredMessage &message, qint64 nowMs) const;
    qint64 ttlMs() const { return m_config.ttlSeconds * 1000; }
    qint64 visibilityMs(qint64 requestedMs) const;
    // Counts and records an expired message, then dead-letters or drops it.
    void expire(StoredMessage &&message);

    MemoryQueueHost &m_host;

private:
    QString m_name;
    QueueConfig m_config;
    qint64 m_createdMs;
    QueueCounters m_counters;
};

// Receipts are 16 hex digits of a random 64-bit number, fresh for every delivery.
QString formatReceipt(quint64 receipt);

} // namespace Broker
