// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A broker with a hand-driven clock, and synchronous helpers: on the memory store every operation
// completes before it returns (which each helper checks); on the Redis store (BROKER_TEST_STORE=redis)
// the helpers run the event loop until the reply is in.

#include "core/clock.h"
#include "engine/messagebroker.h"
#include "engine/queuetyperegistry.h"
#include "errors/errormanager.h"
#include "../support/teststore.h"

#include <QJsonDocument>
#include <QTest>

#include <memory>
#include <optional>

namespace Broker::Testing {

// The result of one operation. The completion shares the slot it writes into (it never points at
// this object): when a test fails early and its Captured is gone, a reply still on its way (a
// parked long poll ended by the broker's shutdown, a late Redis answer) finds live state.
template<typename T>
class Captured
{
public:
    Completion<T> sink()
    {
        return [result = m_result](Result<T> r) { result->emplace(std::move(r)); };
    }
    bool done() const { return m_result->has_value(); }
    Result<T> take()
    {
        if (testingRedis())
            waitUntil([this] { return m_result->has_value(); }, 10'000);
        if (!m_result->has_value())
            qFatal("the operation did not complete");
        return std::move(**m_result);
    }

private:
    std::shared_ptr<std::optional<Result<T>>> m_result = std::make_shared<std::optional<Result<T>>>();
};

inline QJsonObject jsonObject(const char *text)
{
    return QJsonDocument::fromJson(QByteArray(text)).object();
}

inline QByteArray json(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

struct EngineFixture
{
    explicit EngineFixture(EngineOptions options = {})
        : errors(clock), store(makeTestStore(types, clock)), broker(*store, types, clock, options, &errors)
    {
    }

    Result<QueueInfo> create(const QString &name, const QJsonObject &options = {})
    {
        // The wire format is read as the REST layer reads it; the engine takes the typed config.
        const Result<QueueConfig> config = QueueConfig::fromOptions(name, options, broker.options().queueDefaults);
        if (!config)
            return config.error();
        Captured<QueueInfo> c;
        broker.createQueue(name, *config, c.sink());
        return c.take();
    }
    Result<PublishResult> publish(const QString &queue, const QList<QByteArray> &payloads,
                                  const QString &user = QStringLiteral("alice"), qint64 delayMs = 0,
                                  const QList<int> &priorities = {})
    {
        QList<NewMessage> messages;
        for (qsizetype i = 0; i < payloads.size(); ++i) {
            NewMessage message;
            message.data = payloads[i];
            message.delayMs = delayMs;
            message.priority = priorities.value(i);
            messages.append(message);
        }
        Captured<PublishResult> c;
        broker.publish(queue, messages, user, c.sink());
        return c.take();
    }
    Result<QList<Message>> consume(const QString &queue, int count = 1, bool acknowledge = true,
                                   qint64 visibilityMs = 0, const QString &group = {},
                                   const QString &consumer = {})
    {
        ConsumeRequest request;
        request.count = count;
        request.acknowledge = acknowledge;
        request.visibilityTimeoutMs = visibilityMs;
        request.group = group;
        request.consumer = consumer;
        request.user = QStringLiteral("bob");
        Captured<QList<Message>> c;
        broker.consume(queue, request, 0, c.sink());
        return c.take();
    }
    Result<void> ack(const QString &queue, const QString &id, const QString &receipt = {},
                     const QString &group = {})
    {
        Captured<void> c;
        broker.ack(queue, MessageRef{id, receipt, group, QStringLiteral("bob")}, c.sink());
        return c.take();
    }
    Result<NackResult> nack(const QString &queue, const QString &id, const QString &receipt = {},
                            qint64 delayMs = 0)
    {
        Captured<NackResult> c;
        broker.nack(queue, MessageRef{id, receipt, {}, QStringLiteral("bob")}, delayMs, c.sink());
        return c.take();
    }
    Result<qint64> extend(const QString &queue, const QString &id, const QString &receipt, qint64 visibilityMs)
    {
        Captured<qint64> c;
        broker.extend(queue, MessageRef{id, receipt, {}, QStringLiteral("bob")}, visibilityMs, c.sink());
        return c.take();
    }
    Result<QueueInfo> info(const QString &queue)
    {
        Captured<QueueInfo> c;
        broker.queueInfo(queue, c.sink());
        return c.take();
    }
    Result<BrowsePage> browse(const QString &queue, qint64 offset, qint64 limit)
    {
        Captured<BrowsePage> c;
        broker.browse(queue, offset, limit, c.sink());
        return c.take();
    }
    Result<QueueInfo> update(const QString &name, const QJsonObject &options)
    {
        const Result<QueueConfigChange> change = QueueConfigChange::fromOptions(name, options);
        if (!change)
            return change.error();
        Captured<QueueInfo> c;
        broker.updateQueue(name, *change, c.sink());
        return c.take();
    }
    Result<BrowsePage> browse(const QString &queue, const BrowseQuery &query)
    {
        Captured<BrowsePage> c;
        broker.browse(queue, query, c.sink());
        return c.take();
    }
    Result<qint64> redrive(const QString &queue, qint64 limit = 0)
    {
        Captured<qint64> c;
        broker.redrive(queue, limit, QStringLiteral("admin"), c.sink());
        return c.take();
    }
    Result<qint64> purge(const QString &queue)
    {
        Captured<qint64> c;
        broker.purgeQueue(queue, c.sink());
        return c.take();
    }
    Result<qint64> remove(const QString &queue)
    {
        Captured<qint64> c;
        broker.deleteQueue(queue, c.sink());
        return c.take();
    }
    void advance(qint64 ms)
    {
        clock.advanceMs(ms);
        maintain();
    }
    void maintain()
    {
        broker.runMaintenance();
        waitForStore(*store);
    }

    ManualClock clock;
    QueueTypeRegistry types;
    ErrorManager errors;
    std::unique_ptr<QueueStore> store;
    MessageBroker broker;
};

// Payloads 1..n as JSON numbers: compact and easy to compare.
inline QList<QByteArray> numbers(int from, int to)
{
    QList<QByteArray> out;
    for (int i = from; i <= to; ++i)
        out.append(QByteArray::number(i));
    return out;
}

inline QList<QByteArray> payloadsOf(const QList<Message> &messages)
{
    QList<QByteArray> out;
    for (const Message &message : messages)
        out.append(message.data);
    return out;
}

} // namespace Broker::Testing
