// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A memory store whose health and status the test sets (a store that turned read-only, lost its
// backend, ...) and that counts how often every queue was listed: what health checks cost. It
// can also hold back consumes' answers, as a remote store's answers take their time.

#include "storage/memorystore.h"

#include <functional>
#include <utility>
#include <vector>

namespace Broker::Testing {

class ControlledStore final : public QueueStore
{
public:
    ControlledStore(const QueueTypeCatalog &types, const Clock &clock) : m_inner(types, clock) {}

    HealthStatus reportedHealth = HealthStatus::Healthy;
    StoreStatus reportedStatus;
    int listings = 0;
    bool failListings = false; // listQueues answers Unavailable (the backend went away)

    QString backendName() const override { return m_inner.backendName(); }
    HealthStatus health() const override { return reportedHealth; }
    StoreStatus status() const override { return reportedStatus; }
    void setListener(StoreListener *listener) override { m_inner.setListener(listener); }

    void createQueue(const QString &name, const QueueConfig &config, Completion<QueueInfo> done) override
    {
        m_inner.createQueue(name, config, std::move(done));
    }
    void updateQueue(const QString &name, const QueueConfigChange &change, Completion<QueueInfo> done) override
    {
        m_inner.updateQueue(name, change, std::move(done));
    }
    void deleteQueue(const QString &name, Completion<qint64> done) override { m_inner.deleteQueue(name, std::move(done)); }
    void purgeQueue(const QString &name, Completion<qint64> done) override { m_inner.purgeQueue(name, std::move(done)); }
    void listQueues(Completion<QList<QueueInfo>> done) override
    {
        ++listings;
        if (failListings)
            return done(Error{ErrorCode::Unavailable, QStringLiteral("Storage backend unreachable")});
        m_inner.listQueues(std::move(done));
    }
    void queueInfo(const QString &name, Completion<QueueInfo> done) override { m_inner.queueInfo(name, std::move(done)); }
    void publish(const QString &name, const QList<NewMessage> &messages, const QString &publisher,
                 Completion<PublishResult> done) override
    {
        m_inner.publish(name, messages, publisher, std::move(done));
    }
    // While set, a consume runs at once but its answer waits for releaseConsumeAnswers().
    bool holdConsumeAnswers = false;
    void consume(const QString &name, const ConsumeRequest &request, Completion<QList<Message>> done) override
    {
        if (!holdConsumeAnswers)
            return m_inner.consume(name, request, std::move(done));
        m_inner.consume(name, request, [this, done = std::move(done)](Result<QList<Message>> answer) {
            m_heldAnswers.push_back([done, answer = std::move(answer)]() mutable { done(std::move(answer)); });
        });
    }
    int heldConsumeAnswers() const { return int(m_heldAnswers.size()); }
    void releaseConsumeAnswers()
    {
        for (auto &answer : std::exchange(m_heldAnswers, {}))
            answer();
    }
    void ack(const QString &name, const MessageRef &ref, Completion<void> done) override
    {
        m_inner.ack(name, ref, std::move(done));
    }
    void nack(const QString &name, const MessageRef &ref, qint64 delayMs, Completion<NackResult> done) override
    {
        m_inner.nack(name, ref, delayMs, std::move(done));
    }
    void extend(const QString &name, const MessageRef &ref, qint64 visibilityMs, Completion<qint64> done) override
    {
        m_inner.extend(name, ref, visibilityMs, std::move(done));
    }
    void browse(const QString &name, const BrowseQuery &query, Completion<BrowsePage> done) override
    {
        m_inner.browse(name, query, std::move(done));
    }
    void messageAction(const QString &name, const MessageAction &action, Completion<MessageActionResult> done) override
    {
        m_inner.messageAction(name, action, std::move(done));
    }
    void redrive(const QString &name, const RedriveRequest &request, Completion<RedriveResult> done) override
    {
        m_inner.redrive(name, request, std::move(done));
    }
    void runMaintenance(Completion<qint64> done) override { m_inner.runMaintenance(std::move(done)); }

private:
    MemoryStore m_inner;
    std::vector<std::function<void()>> m_heldAnswers;
};

} // namespace Broker::Testing
