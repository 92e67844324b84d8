// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "memoryqueue.h"
#include "core/queuestore.h"
#include "readyset.h"

#include "core/clock.h"

#include <QHash>
#include <QStringList>

#include <functional>
#include <memory>
#include <unordered_map>

namespace Broker {

// The embedded store: every queue in this process's memory. Operations complete before they
// return (the completion runs inside the call). Single-threaded: use it from one thread only.
class MemoryStore final : public QueueStore, private MemoryQueueHost
{
public:
    // `types` and `clock` must outlive the store.
    MemoryStore(const QueueTypeCatalog &types, const Clock &clock);
    ~MemoryStore() override;

    // Where lease receipts come from; default: random. The journal records them and feeds the
    // same ones back when it replays.
    using ReceiptSource = std::function<quint64()>;
    void setReceiptSource(ReceiptSource source) { m_receiptSource = std::move(source); }
    // The number the next published message gets. Seeded from the clock at construction; the
    // journal sets it while replaying so that replayed messages keep their ids.
    quint64 nextSequence() const { return m_nextSequence; }
    void setNextSequence(quint64 sequence) { m_nextSequence = sequence; }
    const QueueTypeCatalog &queueTypes() const { return m_types; }

    // The whole store as bytes, and back: queues with their configs, counters and messages in
    // every state, the publisher table and the next message number. loadState() replaces what
    // the store holds; on malformed input it fails and the store is left empty.
    QByteArray saveState() const;
    Result<void> loadState(const QByteArray &state);
    // Forgets every queue and publisher (the next message number stays).
    void clear();

    QString backendName() const override { return QStringLiteral("memory"); }
    void setListener(StoreListener *listener) override { m_listener = listener; }

    void createQueue(const QString &name, const QueueConfig &config, Completion<QueueInfo> done) override;
    void deleteQueue(const QString &name, Completion<qint64> done) override;
    void purgeQueue(const QString &name, Completion<qint64> done) override;
    void updateQueue(const QString &name, const QueueConfigChange &change, Completion<QueueInfo> done) override;
    void listQueues(Completion<QList<QueueInfo>> done) override;
    void queueInfo(const QString &name, Completion<QueueInfo> done) override;
    void publish(const QString &name, const QList<NewMessage> &messages, const QString &publisher,
                 Completion<PublishResult> done) override;
    void consume(const QString &name, const ConsumeRequest &request, Completion<QList<Message>> done) override;
    void ack(const QString &name, const MessageRef &ref, Completion<void> done) override;
    void nack(const QString &name, const MessageRef &ref, qint64 delayMs, Completion<NackResult> done) override;
    void extend(const QString &name, const MessageRef &ref, qint64 visibilityMs, Completion<qint64> done) override;
    void browse(const QString &name, const BrowseQuery &query, Completion<BrowsePage> done) override;
    void redrive(const QString &name, qint64 limit, const QString &user, Completion<qint64> done) override;
    void runMaintenance(Completion<qint64> done) override;

private:
    // MemoryQueueHost
    qint64 nowMs() const override { return m_clock.nowMs(); }
    quint64 newReceipt() override;
    Message toMessage(const MemoryQueue &queue, const StoredMessage &message) const override;
    void recordEvent(MessageEventKind kind, const MemoryQueue &queue, const StoredMessage &message,
                     const QString &user, const QString &detail) override;
    void deadLetter(MemoryQueue &from, StoredMessage &&message, const QString &reason) override;

    Result<MemoryQueue *> find(const QString &name) const;
    MemoryQueue &insertQueue(const QString &name, const QueueConfig &config, qint64 createdMs);
    quint32 internPublisher(const QString &publisher);
    void announceAvailable(const QString &queue);
    // After a large drain, hands freed heap back to the system (glibc keeps it otherwise).
    void releaseMemoryAfterDrain(qint64 heldMessages);

    const QueueTypeCatalog &m_types;
    const Clock &m_clock;
    StoreListener *m_listener = nullptr;
    std::unordered_map<QString, std::unique_ptr<MemoryQueue>> m_queues;
    ReceiptSource m_receiptSource;
    quint64 m_nextSequence;             // seeded from the clock in microseconds: ids stay unique across restarts
    QStringList m_publishers;           // interned publisher names; a message keeps only the index
    QHash<QString, quint32> m_publisherIndex;
    qint64 m_peakHeldMessages = 0; // since memory was last handed back
};

} // namespace Broker
