// SPDX-License-Identifier: GPL-3.0-or-later
// No loss across a broker restart with the journal on: messages a webhook processor held (leased,
// its target never answered) when the broker stopped are delivered again after the restart, once
// their leases run out; the others go out at once; nothing is dead-lettered or lost.
#include "engine/messagebroker.h"
#include "engine/queuetyperegistry.h"
#include "engine/webhookprocessor.h"
#include "storage/journaledstore.h"

#include "../support/httptarget.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>

using namespace Broker;
using namespace Broker::Testing;

class TestProcessorRestart : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void inFlightMessagesAreDeliveredAfterARestart();

private:
    std::unique_ptr<JournaledStore> open()
    {
        Result<std::unique_ptr<JournaledStore>> store =
            JournaledStore::open(m_types, m_clock, {m_dir.filePath(QStringLiteral("journal")), JournalWriter::Fsync::Never});
        if (!store)
            qWarning("%s", qPrintable(store.error().message));
        return store ? std::move(store.value()) : nullptr;
    }
    // The result of one operation; a change completes once its record is written (group commit).
    template<typename T>
    static Result<T> now(const std::function<void(Completion<T>)> &call)
    {
        auto out = std::make_shared<std::optional<Result<T>>>();
        call([out](Result<T> r) { out->emplace(std::move(r)); });
        if (!QTest::qWaitFor([&] { return out->has_value(); }, 10'000))
            qFatal("the operation did not complete");
        return std::move(**out);
    }
    static int addWebhook(MessageBroker &broker, const QUrl &url)
    {
        WebhookProcessorOptions options;
        options.url = url;
        options.timeoutMs = 60'000; // the lease: 65 s of the test's clock
        return broker.registerProcessor(QStringLiteral("orders"), std::make_unique<WebhookProcessor>(options), 2);
    }

    QueueTypeRegistry m_types;
    ManualClock m_clock;
    QTemporaryDir m_dir;
};

void TestProcessorRestart::inFlightMessagesAreDeliveredAfterARestart()
{
    QVERIFY(m_dir.isValid());
    QSet<QByteArray> held;
    {
        HttpTarget hanging({QStringLiteral("hang")});
        std::unique_ptr<JournaledStore> store = open();
        QVERIFY(store);
        MessageBroker broker(*store, m_types, m_clock);
        QueueConfig config = QueueConfig::withDefaults(broker.options().queueDefaults);
        config.maxDeliveries = 3;
        config.deadLetterQueue = QStringLiteral("orders.dlq");
        QVERIFY(now<QueueInfo>([&](auto done) { broker.createQueue(QStringLiteral("orders"), config, done); }).ok());
        QList<NewMessage> messages;
        for (int i = 1; i <= 5; ++i)
            messages.append(NewMessage{QByteArray::number(i), {}, 0, 0, {}});
        QVERIFY(now<PublishResult>([&](auto done) { broker.publish(QStringLiteral("orders"), messages, QStringLiteral("alice"), done); }).ok());
        addWebhook(broker, hanging.url());
        QTRY_COMPARE(hanging.requests().size(), 2); // concurrency 2: two held, three waiting
        QCOMPARE(broker.processorStatuses().value(0).inFlight, 2);
        for (const HttpTarget::Request &request : hanging.requests())
            held.insert(request.header("X-BrokerDesk-Message-Id"));
        store->flush();
        // The broker stops (as BrokerHost::stop does: engine, then store) with two messages in flight.
    }

    HttpTarget answering({QStringLiteral("200")});
    std::unique_ptr<JournaledStore> store = open();
    QVERIFY(store);
    MessageBroker broker(*store, m_types, m_clock);
    addWebhook(broker, answering.url());
    const auto acked = [&] {
        return now<QueueInfo>([&](auto done) { broker.queueInfo(QStringLiteral("orders"), done); })->counters.acked;
    };
    // The three that were waiting go out at once; the two held ones when their leases run out.
    QTRY_COMPARE(acked(), 3);
    QCOMPARE(answering.requests().size(), 3);
    for (const HttpTarget::Request &request : answering.requests())
        QVERIFY(!held.contains(request.header("X-BrokerDesk-Message-Id")));
    m_clock.advanceMs(65'001);
    broker.runMaintenance();
    QTRY_COMPARE(acked(), 5);
    QCOMPARE(answering.requests().size(), 5);
    QSet<QByteArray> redelivered;
    for (const HttpTarget::Request &request : answering.requests().mid(3)) {
        redelivered.insert(request.header("X-BrokerDesk-Message-Id"));
        QCOMPARE(request.header("X-BrokerDesk-Delivery-Count"), QByteArray("2"));
    }
    QCOMPARE(redelivered, held);
    const QueueInfo info = *now<QueueInfo>([&](auto done) { broker.queueInfo(QStringLiteral("orders"), done); });
    QCOMPARE(info.size(), 0);
    QCOMPARE(info.counters.deadLettered, 0);
    QCOMPARE(now<QueueInfo>([&](auto done) { broker.queueInfo(QStringLiteral("orders.dlq"), done); })->depth, 0);
}

QTEST_GUILESS_MAIN(TestProcessorRestart)
#include "tst_processorrestart.moc"
