// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Load on one queue from several brokers for the cluster's fault tests: per broker one publisher
// and one lease+ack consumer, each with one call in flight, and a ledger of what they saw (by
// message id) from which loss, double leases and unavailability are read.

#include "brokeronredis.h"

#include "core/messageid.h"

#include <QElapsedTimer>
#include <QHash>
#include <QSet>
#include <QTimer>

#include <algorithm>
#include <functional>
#include <memory>

namespace Broker::Testing {

// What the brokers' publishers and consumers saw, kept by message id.
struct Ledger
{
    explicit Ledger(qint64 visibility) : visibilityMs(visibility) { clock.start(); }
    const qint64 visibilityMs; // of the consumers' leases
    QElapsedTimer clock;
    QSet<QString> acknowledgedPublishes;
    qint64 publishFailures = 0;
    qint64 lastPublishOkMs = 0;
    qint64 longestGapMs = 0; // between two acknowledged publishes
    struct Lease
    {
        qint64 deadlineMs = 0; // on `clock`
        bool acked = false;
    };
    QHash<QString, Lease> leases; // the latest lease of each id
    QSet<QString> acked;
    qint64 deliveries = 0;
    qint64 doubleLeases = 0;         // leased again while an earlier lease, not acked, still ran
    qint64 redeliveredAfterAck = 0;  // leased again after an acknowledged ack
    qint64 consumeFailures = 0;
    qint64 ackFailures = 0;
    QHash<QString, int> failures; // "publish: <message>" -> times, for the report

    void failed(const char *what, const Error &error) { ++failures[QLatin1StringView(what) + QStringLiteral(": ") + error.message]; }
    QString failureReport() const
    {
        QStringList lines;
        for (auto it = failures.cbegin(); it != failures.cend(); ++it)
            lines.append(QStringLiteral("%1 x%2").arg(it.key()).arg(it.value()));
        return lines.join(QStringLiteral("; "));
    }

    qint64 now() const { return clock.elapsed(); }
    void published(const QString &id)
    {
        acknowledgedPublishes.insert(id);
        const qint64 at = now();
        if (lastPublishOkMs > 0)
            longestGapMs = std::max(longestGapMs, at - lastPublishOkMs);
        lastPublishOkMs = at;
    }
    void leased(const Message &message)
    {
        ++deliveries;
        const qint64 at = now();
        if (acked.contains(message.id))
            ++redeliveredAfterAck;
        else if (const auto earlier = leases.constFind(message.id); earlier != leases.cend() && !earlier->acked
                 && earlier->deadlineMs > at + 200) // 200 ms: the two clocks' reading of "expired"
            ++doubleLeases;
        leases.insert(message.id, Lease{at + visibilityMs, false});
    }
    void ackedOk(const QString &id)
    {
        acked.insert(id);
        leases[id].acked = true;
    }
    // Acknowledged publishes no consumer was ever given. (One whose ack got no answer, because
    // the node died with it, was delivered: whether the ack took is unknown, not a loss; the
    // message comes back after its lease if it did not.)
    qint64 lost() const
    {
        qint64 n = 0;
        for (const QString &id : acknowledgedPublishes)
            n += leases.contains(id) ? 0 : 1;
        return n;
    }
    // Delivered messages whose ack never succeeded and that did not come back.
    qint64 ackOutcomeUnknown() const
    {
        qint64 n = 0;
        for (const QString &id : acknowledgedPublishes)
            n += leases.contains(id) && !acked.contains(id) ? 1 : 0;
        return n;
    }
};

// One publisher and one consumer per broker, each with one call in flight, until stopped.
class Load
{
public:
    Load(BrokerOnRedis &on, const QString &queue, Ledger &ledger) : m_on(on), m_queue(queue), m_ledger(ledger) {}

    void start()
    {
        m_running = true;
        m_publishing = true;
        publishNext();
        consumeNext();
    }
    void stopPublishing() { m_publishing = false; }
    void stop() { m_running = false; }
    bool idle() const { return !m_publishInFlight && !m_consumeInFlight; }

private:
    void later(std::function<void()> step) { QTimer::singleShot(10, std::move(step)); }

    void publishNext()
    {
        if (!m_running || !m_publishing)
            return;
        NewMessage message;
        message.data = QByteArray::number(++m_sequence);
        m_publishInFlight = true;
        m_on.broker.publish(m_queue, {message}, QStringLiteral("load"), [this](Result<PublishResult> result) {
            m_publishInFlight = false;
            if (result.ok() && !result->messageSequences.isEmpty()) {
                m_ledger.published(MessageId::format(result->messageSequences.first()));
                publishNext();
            } else {
                ++m_ledger.publishFailures;
                m_ledger.failed("publish", result.error());
                later([this] { publishNext(); });
            }
        });
    }

    void consumeNext()
    {
        if (!m_running)
            return;
        ConsumeRequest request;
        request.count = 5;
        request.acknowledge = false;
        request.visibilityTimeoutMs = m_ledger.visibilityMs;
        request.user = QStringLiteral("load");
        m_consumeInFlight = true;
        m_on.broker.consume(m_queue, request, 200, [this](Result<QList<Message>> result) {
            if (!result.ok()) {
                m_consumeInFlight = false;
                ++m_ledger.consumeFailures;
                m_ledger.failed("consume", result.error());
                later([this] { consumeNext(); });
                return;
            }
            if (result->isEmpty()) {
                m_consumeInFlight = false;
                consumeNext();
                return;
            }
            auto pending = std::make_shared<int>(int(result->size()));
            for (const Message &message : *result) {
                m_ledger.leased(message);
                const MessageRef ref{message.id, message.receipt, {}, QStringLiteral("load")};
                m_on.broker.ack(m_queue, ref, [this, id = message.id, pending](Result<void> acked) {
                    if (acked.ok())
                        m_ledger.ackedOk(id);
                    else {
                        ++m_ledger.ackFailures;
                        m_ledger.failed("ack", acked.error());
                    }
                    if (--*pending == 0) {
                        m_consumeInFlight = false;
                        consumeNext();
                    }
                });
            }
        });
    }

    BrokerOnRedis &m_on;
    const QString m_queue;
    Ledger &m_ledger;
    bool m_running = false;
    bool m_publishing = false;
    bool m_publishInFlight = false;
    bool m_consumeInFlight = false;
    qint64 m_sequence = 0;
};

// Three brokers on `cluster`, once each has read a slot map with every slot served.
inline std::vector<std::unique_ptr<BrokerOnRedis>> threeBrokers(const RedisStoreOptions &options,
                                                               QueueTypeRegistry &types, const Clock &clock)
{
    std::vector<std::unique_ptr<BrokerOnRedis>> brokers;
    for (int i = 0; i < 3; ++i)
        brokers.push_back(std::make_unique<BrokerOnRedis>(options, types, clock));
    waitUntil([&] {
        return std::all_of(brokers.begin(), brokers.end(), [](const auto &on) {
            return on->store.cluster()->refreshes() > 0 && on->store.cluster()->allSlotsServed();
        });
    }, 10'000);
    return brokers;
}

// The load of every broker on `queue`, started.
inline std::vector<std::unique_ptr<Load>> startLoads(const std::vector<std::unique_ptr<BrokerOnRedis>> &brokers,
                                                     const QString &queue, Ledger &ledger)
{
    std::vector<std::unique_ptr<Load>> loads;
    for (const auto &on : brokers) {
        loads.push_back(std::make_unique<Load>(*on, queue, ledger));
        loads.back()->start();
    }
    return loads;
}

// Stops publishing, lets the consumers take what is left (leases whose ack got no answer come
// back once they run out, and are taken again), then stops them.
inline void drain(const std::vector<std::unique_ptr<Load>> &loads, const Ledger &ledger)
{
    for (const auto &load : loads)
        load->stopPublishing();
    waitUntil([&] { return ledger.lost() == 0 && ledger.ackOutcomeUnknown() == 0; }, int(ledger.visibilityMs) + 3'000);
    for (const auto &load : loads)
        load->stop();
    waitUntil([&] { return std::all_of(loads.begin(), loads.end(), [](const auto &load) { return load->idle(); }); }, 5'000);
}

} // namespace Broker::Testing
