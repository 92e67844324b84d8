// SPDX-License-Identifier: GPL-3.0-or-later
// What MessageBroker shows without changing anything: browse, counters and the snapshot, a
// message's lifecycle events.
// Built twice, like every tst_messagebroker_*: on the memory store and on the Redis store
// (BROKER_TEST_STORE=redis).
#include "enginefixture.h"

#include <QTest>

using namespace Broker;
using namespace Broker::Testing;

class TestMessageBrokerObservation : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void browseDoesNotConsume();
    void countersAndSnapshot();
    void lifecycleOfOneMessage();
};

void TestMessageBrokerObservation::browseDoesNotConsume()
{
    EngineFixture f;
    QVERIFY(f.create(QStringLiteral("q")).ok());
    QVERIFY(f.publish(QStringLiteral("q"), numbers(1, 5)).ok());
    const BrowsePage first = *f.browse(QStringLiteral("q"), 0, 2);
    QCOMPARE(payloadsOf(first.messages), numbers(1, 2));
    QCOMPARE(first.total, 5);
    QCOMPARE(first.nextOffset, 2);
    const BrowsePage last = *f.browse(QStringLiteral("q"), 4, 2);
    QCOMPARE(payloadsOf(last.messages), numbers(5, 5));
    QCOMPARE(last.nextOffset, -1);
    QCOMPARE(f.browse(QStringLiteral("q"), 0, 0).error().message, QStringLiteral("Invalid limit: expected 1 to 1000"));
    QCOMPARE(f.info(QStringLiteral("q"))->depth, 5);
    QCOMPARE(f.info(QStringLiteral("q"))->counters.delivered, 0);
}

void TestMessageBrokerObservation::countersAndSnapshot()
{
    EngineFixture f;
    QVERIFY(f.create(QStringLiteral("a")).ok());
    QVERIFY(f.create(QStringLiteral("b")).ok());
    f.maintain(); // first rate sample
    QVERIFY(f.publish(QStringLiteral("a"), numbers(1, 10)).ok());
    QVERIFY(f.publish(QStringLiteral("b"), numbers(1, 4)).ok());
    QCOMPARE(f.consume(QStringLiteral("a"), 6)->size(), 6);
    const QList<Message> leased = *f.consume(QStringLiteral("b"), 2, false);
    QVERIFY(f.ack(QStringLiteral("b"), leased[0].id).ok());
    f.advance(1000);

    Captured<BrokerSnapshot> c;
    f.broker.snapshot(0, c.sink());
    const BrokerSnapshot snapshot = *c.take();
    QCOMPARE(snapshot.storage, f.store->backendName());
    QCOMPARE(snapshot.health, HealthStatus::Healthy);
    QCOMPARE(snapshot.queues.size(), 2);
    QCOMPARE(snapshot.queues[0].name, QStringLiteral("a"));
    QCOMPARE(snapshot.messagesTotal, 4 + 3); // a: 4 ready; b: 2 ready + 1 in flight
    QCOMPARE(snapshot.messagesProcessed, 6 + 1);
    QCOMPARE(snapshot.queues[0].rates.publish1s, 10.0);
    QCOMPARE(snapshot.queues[0].rates.consume1s, 6.0);
    QCOMPARE(snapshot.rates.publish1s, 14.0);
    // Events: 14 published, 6 delivered+acked, 2 delivered, 1 acked.
    QCOMPARE(snapshot.recentEvents.size(), 14 + 12 + 2 + 1);
    QCOMPARE(snapshot.lastEventNumber, quint64(29));

    Captured<BrokerSnapshot> later;
    f.broker.snapshot(snapshot.lastEventNumber, later.sink());
    QVERIFY(later.take()->recentEvents.isEmpty());
}

void TestMessageBrokerObservation::lifecycleOfOneMessage()
{
    EngineFixture f;
    QVERIFY(f.create(QStringLiteral("q"), jsonObject(R"({"max_deliveries":2,"dead_letter_queue":true})")).ok());
    const QString id = f.publish(QStringLiteral("q"), numbers(1, 1))->messageIds().first();
    QVERIFY(f.publish(QStringLiteral("q"), numbers(2, 2)).ok()); // noise
    f.clock.advanceMs(100);
    Message m = f.consume(QStringLiteral("q"), 1, false)->first();
    QVERIFY(f.nack(QStringLiteral("q"), id, m.receipt).ok());
    f.clock.advanceMs(200);
    m = f.consume(QStringLiteral("q"), 1, false)->first();
    QVERIFY(f.nack(QStringLiteral("q"), id, m.receipt)->deadLettered);
    QVERIFY(f.redrive(QStringLiteral("q.dlq")).ok());
    f.clock.advanceMs(300);
    const QList<Message> rest = *f.consume(QStringLiteral("q"), 2);
    QCOMPARE(rest.size(), 2);
    QCOMPARE(rest.last().id, id); // redriven messages join the back of the line

    QStringList steps;
    for (const MessageEvent &event : f.broker.lifecycle(id))
        steps << QString::fromLatin1(messageEventKindName(event.kind)) + QLatin1Char('@') + event.queue;
    QCOMPARE(steps, (QStringList{"published@q", "delivered@q", "nacked@q", "delivered@q", "nacked@q",
                                 "dead_lettered@q", "redriven@q", "delivered@q", "acked@q"}));
    const QList<MessageEvent> events = f.broker.lifecycle(id);
    QCOMPARE(events.last().timeMs - events.first().timeMs, 600);
    QCOMPARE(events.first().user, QStringLiteral("alice"));
    QVERIFY(f.broker.lifecycle(QStringLiteral("bogus")).isEmpty());
}

QTEST_GUILESS_MAIN(TestMessageBrokerObservation)
#include "tst_messagebroker_observation.moc"
