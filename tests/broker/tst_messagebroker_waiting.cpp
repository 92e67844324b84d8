// SPDX-License-Identifier: GPL-3.0-or-later
// MessageBroker's consumers that wait: long polls (woken, timed out, queue deleted, shutdown) and
// registered processors.
// Built twice, like every tst_messagebroker_*: on the memory store and on the Redis store
// (BROKER_TEST_STORE=redis).
#include "enginefixture.h"
#include "../support/controlledstore.h"

#include <QElapsedTimer>
#include <QTest>
#include <QTimer>

#include <stdexcept>

using namespace Broker;
using namespace Broker::Testing;

class TestMessageBrokerWaiting : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void longPollIsWokenByPublish();
    void aWakeUpBeforeTheEmptyAnswerIsNotLost();
    void longPollTimesOutEmpty();
    void longPollFailsWhenQueueIsDeleted();
    void longPollEndsEmptyOnShutdown();
    void processorAcknowledges();
    void processorThatRejectsDeadLetters();
    void processorExceptionIsRecorded();
};

void TestMessageBrokerWaiting::longPollIsWokenByPublish()
{
    EngineFixture f;
    QVERIFY(f.create(QStringLiteral("q")).ok());
    Captured<QList<Message>> c;
    ConsumeRequest request;
    QElapsedTimer timer;
    timer.start();
    f.broker.consume(QStringLiteral("q"), request, 5000, c.sink());
    QVERIFY(!c.done()); // parked
    Captured<QList<Message>> other; // other requests are not blocked meanwhile
    f.broker.consume(QStringLiteral("q"), request, 0, other.sink());
    QVERIFY(other.take()->isEmpty());

    QTimer::singleShot(50, [&] { QVERIFY(f.publish(QStringLiteral("q"), numbers(7, 7)).ok()); });
    QTRY_VERIFY_WITH_TIMEOUT(c.done(), 2000);
    QVERIFY2(timer.elapsed() < 1000, "woken by the publish, not by the timeout");
    QCOMPARE(payloadsOf(*c.take()), numbers(7, 7));
    QCOMPARE(f.info(QStringLiteral("q"))->depth, 0);
}

// Another broker's publish announced (messagesAvailable) while this broker's consume is out, its
// empty answer arriving after: the poll that parks on it looks once more instead of waiting for
// the reaper. A memory store that holds its answers back plays the remote store.
void TestMessageBrokerWaiting::aWakeUpBeforeTheEmptyAnswerIsNotLost()
{
    ManualClock clock;
    QueueTypeRegistry types;
    ControlledStore store(types, clock);
    EngineOptions options;
    options.maintenanceIntervalMs = 3'600'000;
    MessageBroker broker(store, types, clock, options);
    Captured<QueueInfo> created;
    broker.createQueue(QStringLiteral("jobs"), QueueConfig{}, created.sink());
    QVERIFY(created.done());

    store.holdConsumeAnswers = true;
    std::optional<Result<QList<Message>>> polled;
    broker.consume(QStringLiteral("jobs"), ConsumeRequest{}, 10'000, [&](Result<QList<Message>> r) { polled = std::move(r); });
    QCOMPARE(store.heldConsumeAnswers(), 1); // it found the queue empty; the answer is on its way
    NewMessage message;
    message.data = "\"late\"";
    Captured<PublishResult> published; // straight into the store: the store tells the broker, as a wake-up would
    store.publish(QStringLiteral("jobs"), {message}, QStringLiteral("alice"), published.sink());
    QVERIFY(published.done());
    store.holdConsumeAnswers = false;
    store.releaseConsumeAnswers();
    QVERIFY(!polled.has_value()); // parked on the empty answer...
    QVERIFY(waitUntil([&] { return polled.has_value(); }, 1'000)); // ...and served on the next turn
    QVERIFY(polled->ok());
    QCOMPARE(polled->value().size(), 1);
    QCOMPARE(polled->value().first().data, QByteArray("\"late\""));
}

void TestMessageBrokerWaiting::longPollTimesOutEmpty()
{
    EngineFixture f;
    QVERIFY(f.create(QStringLiteral("q")).ok());
    Captured<QList<Message>> first;
    Captured<QList<Message>> second;
    QElapsedTimer timer;
    timer.start();
    f.broker.consume(QStringLiteral("q"), ConsumeRequest{}, 200, first.sink());
    f.broker.consume(QStringLiteral("q"), ConsumeRequest{}, 5000, second.sink());
    QTRY_VERIFY_WITH_TIMEOUT(first.done(), 2000);
    QVERIFY(timer.elapsed() >= 190);
    QVERIFY(first.take()->isEmpty());
    QVERIFY(!second.done());
    // One message wakes exactly one waiter.
    QVERIFY(f.publish(QStringLiteral("q"), numbers(1, 1)).ok());
    QTRY_VERIFY_WITH_TIMEOUT(second.done(), 2000);
    QCOMPARE(second.take()->size(), 1);
}

void TestMessageBrokerWaiting::longPollFailsWhenQueueIsDeleted()
{
    EngineFixture f;
    QVERIFY(f.create(QStringLiteral("q")).ok());
    Captured<QList<Message>> waiting;
    f.broker.consume(QStringLiteral("q"), ConsumeRequest{}, 5000, waiting.sink());
    QVERIFY(f.remove(QStringLiteral("q")).ok());
    QVERIFY(waiting.done());
    QCOMPARE(waiting.take().error().code, ErrorCode::QueueNotFound);
}

void TestMessageBrokerWaiting::longPollEndsEmptyOnShutdown()
{
    Captured<QList<Message>> waiting;
    {
        EngineFixture f;
        QVERIFY(f.create(QStringLiteral("q")).ok());
        f.broker.consume(QStringLiteral("q"), ConsumeRequest{}, 5000, waiting.sink());
        waitForStore(*f.store); // the store found nothing: the consumer waits in the broker
        QVERIFY(!waiting.done());
    }
    QVERIFY(waiting.done());
    QVERIFY(waiting.take()->isEmpty());
}

void TestMessageBrokerWaiting::processorAcknowledges()
{
    EngineFixture f;
    QVERIFY(f.create(QStringLiteral("q")).ok());
    QVERIFY(f.publish(QStringLiteral("q"), numbers(1, 3)).ok()); // before registration
    QList<QByteArray> seen;
    const int id = f.broker.registerProcessor(QStringLiteral("q"), [&](const Message &m) {
        seen.append(m.data);
        return true;
    });
    QVERIFY(f.publish(QStringLiteral("q"), numbers(4, 40)).ok());
    QTRY_COMPARE(seen.size(), 40);
    QCOMPARE(seen, numbers(1, 40));
    const QueueInfo info = *f.info(QStringLiteral("q"));
    QCOMPARE(info.size(), 0);
    QCOMPARE(info.counters.acked, 40);
    const ProcessorStatusList statuses = f.broker.processorStatuses();
    QCOMPARE(statuses.size(), 1);
    QCOMPARE(statuses.first().id, id);
    QCOMPARE(statuses.first().queue, QStringLiteral("q"));
    QCOMPARE(statuses.first().kind, QStringLiteral("callable"));
    QCOMPARE(statuses.first().successes, 40);
    QCOMPARE(statuses.first().failures, 0);
    QVERIFY(!statuses.first().failing);
    QVERIFY(f.broker.unregisterProcessor(id));
    QVERIFY(f.broker.processorStatuses().isEmpty());
    QVERIFY(!f.broker.unregisterProcessor(id));
    QVERIFY(f.publish(QStringLiteral("q"), numbers(1, 1)).ok());
    QTest::qWait(20);
    QCOMPARE(f.info(QStringLiteral("q"))->depth, 1);
}

void TestMessageBrokerWaiting::processorThatRejectsDeadLetters()
{
    EngineFixture f;
    QVERIFY(f.create(QStringLiteral("q"), jsonObject(R"({"max_deliveries":3,"dead_letter_queue":true})")).ok());
    int calls = 0;
    f.broker.registerProcessor(QStringLiteral("q"), [&](const Message &) {
        ++calls;
        return false;
    });
    QVERIFY(f.publish(QStringLiteral("q"), numbers(1, 1)).ok());
    QTRY_COMPARE(f.info(QStringLiteral("q.dlq"))->depth, 1);
    QCOMPARE(calls, 3);
    QCOMPARE(f.info(QStringLiteral("q"))->counters.nacked, 3);
    const ProcessorStatus status = f.broker.processorStatuses().value(0);
    QCOMPARE(status.failures, 3);
    QCOMPARE(status.successes, 0);
    QVERIFY(status.failing);
    QCOMPARE(status.lastError, QStringLiteral("declined"));
}

void TestMessageBrokerWaiting::processorExceptionIsRecorded()
{
    EngineFixture f;
    QVERIFY(f.create(QStringLiteral("q"), jsonObject(R"({"max_deliveries":1})")).ok());
    f.broker.registerProcessor(QStringLiteral("q"), [](const Message &) -> bool {
        throw std::runtime_error("database is down");
    });
    QVERIFY(f.publish(QStringLiteral("q"), numbers(1, 1)).ok());
    QTRY_COMPARE(f.info(QStringLiteral("q"))->counters.dropped, 1);
    const QList<ErrorRecord> errors = f.errors.recent();
    QCOMPARE(errors.size(), 1);
    QCOMPARE(errors.first().code, QStringLiteral("processor_failed"));
    QCOMPARE(errors.first().message, QStringLiteral("Processor on queue q threw: database is down"));
}

QTEST_GUILESS_MAIN(TestMessageBrokerWaiting)
#include "tst_messagebroker_waiting.moc"
