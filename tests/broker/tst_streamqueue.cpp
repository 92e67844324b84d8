// SPDX-License-Identifier: GPL-3.0-or-later
// Stream queues through the engine facade: consumer groups as Redis streams define them.
#include "enginefixture.h"

#include <QTest>

using namespace Broker;
using namespace Broker::Testing;

class TestStreamQueue : public QObject
{
    Q_OBJECT

private:
    static QString q() { return QStringLiteral("events"); }

private Q_SLOTS:
    void everyGroupSeesEveryMessage();
    void withinAGroupEachMessageGoesToOneConsumer();
    void pendingEntriesAreReclaimedAfterTheVisibilityTimeout();
    void nackMakesEntryClaimable();
    void ackNeedsGroupWhenPendingInSeveralGroups();
    void maxDeliveriesDeadLettersACopyPerGroup();
    void acknowledgedEntriesAreTrimmed();
    void delayIsRefused();
    void ttlExpiresEntriesOnce();
    void browseShowsTheLog();
};

void TestStreamQueue::everyGroupSeesEveryMessage()
{
    EngineFixture f;
    QVERIFY(f.create(q(), jsonObject(R"({"type":"stream"})")).ok());
    // A group exists from its first read; entries every existing group is done with are trimmed.
    QVERIFY(f.consume(q(), 1, true, 0, "audit")->isEmpty());
    QVERIFY(f.publish(q(), numbers(1, 3)).ok());
    QCOMPARE(payloadsOf(*f.consume(q(), 10, true, 0, "billing")), numbers(1, 3));
    QCOMPARE(payloadsOf(*f.consume(q(), 10, true, 0, "audit")), numbers(1, 3));
    QVERIFY(f.consume(q(), 10, true, 0, "billing")->isEmpty());
    QVERIFY(f.publish(q(), numbers(4, 4)).ok());
    QCOMPARE(payloadsOf(*f.consume(q(), 10, true, 0, "audit")), numbers(4, 4));
    const QueueInfo info = *f.info(q());
    QCOMPARE(info.groups.size(), 2);
    QCOMPARE(info.groups[0].name, QStringLiteral("audit"));
    QCOMPARE(info.groups[0].lag, 0);
    QCOMPARE(info.groups[1].name, QStringLiteral("billing"));
    QCOMPARE(info.groups[1].lag, 1);
    QCOMPARE(info.depth, 1); // the slowest group's backlog
}

void TestStreamQueue::withinAGroupEachMessageGoesToOneConsumer()
{
    EngineFixture f;
    QVERIFY(f.create(q(), jsonObject(R"({"type":"stream"})")).ok());
    QVERIFY(f.publish(q(), numbers(1, 4)).ok());
    const QList<Message> a = *f.consume(q(), 2, false, 0, "workers", "a");
    const QList<Message> b = *f.consume(q(), 5, false, 0, "workers", "b");
    QCOMPARE(payloadsOf(a), numbers(1, 2));
    QCOMPARE(payloadsOf(b), numbers(3, 4));
    QCOMPARE(a.first().group, QStringLiteral("workers"));
    const QueueInfo info = *f.info(q());
    QCOMPARE(info.inFlight, 4);
    QCOMPARE(info.groups.first().pending, 4);
    QCOMPARE(info.groups.first().consumers, (QList<QString>{"a", "b"}));
    for (const Message &m : a)
        QVERIFY(f.ack(q(), m.id, m.receipt).ok());
    QCOMPARE(f.info(q())->groups.first().pending, 2);
    QCOMPARE(f.ack(q(), a.first().id, a.first().receipt).error().code, ErrorCode::MessageNotFound);
}

void TestStreamQueue::pendingEntriesAreReclaimedAfterTheVisibilityTimeout()
{
    EngineFixture f;
    QVERIFY(f.create(q(), jsonObject(R"({"type":"stream","visibility_timeout":5})")).ok());
    QVERIFY(f.publish(q(), numbers(1, 2)).ok());
    const Message first = f.consume(q(), 1, false, 0, "g", "a")->first();
    f.advance(5000);
    // The expired entry comes first, to whichever consumer asks next, with a new receipt.
    const QList<Message> got = *f.consume(q(), 2, false, 0, "g", "b");
    QCOMPARE(payloadsOf(got), numbers(1, 2));
    QCOMPARE(got.first().deliveryCount, 2);
    QCOMPARE(f.ack(q(), first.id, first.receipt).error().code, ErrorCode::StaleReceipt);
    QVERIFY(f.ack(q(), got.first().id, got.first().receipt).ok());
}

void TestStreamQueue::nackMakesEntryClaimable()
{
    EngineFixture f;
    QVERIFY(f.create(q(), jsonObject(R"({"type":"stream"})")).ok());
    QVERIFY(f.publish(q(), numbers(1, 1)).ok());
    const Message m = f.consume(q(), 1, false, 0, "g", "a")->first();
    QVERIFY(f.nack(q(), m.id, m.receipt)->requeued);
    const Message again = f.consume(q(), 1, false, 0, "g", "b")->first();
    QCOMPARE(again.id, m.id);
    QCOMPARE(again.deliveryCount, 2);

    // With a delay the entry stays pending, owned by nobody, until the delay is over.
    QVERIFY(f.nack(q(), again.id, again.receipt, 3000)->requeued);
    QVERIFY(f.consume(q(), 1, false, 0, "g", "b")->isEmpty());
    f.advance(3000);
    QCOMPARE(f.consume(q(), 1, false, 0, "g", "b")->first().deliveryCount, 3);
}

void TestStreamQueue::ackNeedsGroupWhenPendingInSeveralGroups()
{
    EngineFixture f;
    QVERIFY(f.create(q(), jsonObject(R"({"type":"stream"})")).ok());
    QVERIFY(f.publish(q(), numbers(1, 1)).ok());
    const Message one = f.consume(q(), 1, false, 0, "one")->first();
    const Message two = f.consume(q(), 1, false, 0, "two")->first();
    QCOMPARE(f.ack(q(), one.id).error().code, ErrorCode::InvalidArgument);
    QVERIFY(f.ack(q(), one.id, one.receipt).ok());     // the receipt picks the group
    QVERIFY(f.ack(q(), two.id, {}, "two").ok());       // so does the group
    QCOMPARE(f.info(q())->inFlight, 0);
}

void TestStreamQueue::maxDeliveriesDeadLettersACopyPerGroup()
{
    EngineFixture f;
    QVERIFY(f.create(q(), jsonObject(R"({"type":"stream","max_deliveries":2,"dead_letter_queue":true})")).ok());
    QVERIFY(f.consume(q(), 1, true, 0, "h")->isEmpty());
    QVERIFY(f.publish(q(), numbers(1, 1)).ok());
    for (int i = 0; i < 2; ++i) {
        const Message m = f.consume(q(), 1, false, 0, "g")->first();
        const NackResult r = *f.nack(q(), m.id, m.receipt);
        QCOMPARE(r.deadLettered, i == 1);
    }
    // The other group still gets the entry: dead-lettering is per group.
    QCOMPARE(payloadsOf(*f.consume(q(), 1, true, 0, "h")), numbers(1, 1));
    const QList<Message> dead = *f.consume(QStringLiteral("events.dlq"), 10);
    QCOMPARE(payloadsOf(dead), numbers(1, 1));
    QCOMPARE(dead.first().originQueue, q());
    QCOMPARE(f.info(q())->counters.deadLettered, 1);
}

void TestStreamQueue::acknowledgedEntriesAreTrimmed()
{
    EngineFixture f;
    QVERIFY(f.create(q(), jsonObject(R"({"type":"stream","max_size":3})")).ok());
    QVERIFY(f.publish(q(), numbers(1, 3)).ok());
    // Without a group nothing is trimmed and max_size refuses more: entries are never dropped silently.
    QCOMPARE(f.publish(q(), numbers(4, 4)).error().code, ErrorCode::QueueFull);
    const QList<Message> got = *f.consume(q(), 3, false, 0, "g");
    QCOMPARE(f.publish(q(), numbers(4, 4)).error().code, ErrorCode::QueueFull); // still pending
    QVERIFY(f.ack(q(), got[0].id, got[0].receipt).ok());
    QVERIFY(f.ack(q(), got[1].id, got[1].receipt).ok());
    QCOMPARE(f.info(q())->size(), 1);
    QVERIFY(f.publish(q(), numbers(4, 5)).ok());
}

void TestStreamQueue::delayIsRefused()
{
    EngineFixture f;
    QVERIFY(f.create(q(), jsonObject(R"({"type":"stream"})")).ok());
    const Result<PublishResult> result = f.publish(q(), numbers(1, 1), "alice", 1000);
    QCOMPARE(result.error().code, ErrorCode::InvalidArgument);
    QCOMPARE(result.error().message, QStringLiteral("Delayed messages are not supported on stream queues"));
}

void TestStreamQueue::ttlExpiresEntriesOnce()
{
    EngineFixture f;
    QVERIFY(f.create(q(), jsonObject(R"({"type":"stream","ttl":10})")).ok());
    QVERIFY(f.publish(q(), numbers(1, 2)).ok());
    QCOMPARE(f.consume(q(), 1, false, 0, "g")->size(), 1);
    f.advance(10'000);
    QVERIFY(f.consume(q(), 5, false, 0, "g")->isEmpty());
    QVERIFY(f.consume(q(), 5, false, 0, "h")->isEmpty());
    const QueueInfo info = *f.info(q());
    QCOMPARE(info.counters.expired, 2);
    QCOMPARE(info.size(), 0);
    QCOMPARE(info.inFlight, 0);
}

void TestStreamQueue::browseShowsTheLog()
{
    EngineFixture f;
    QVERIFY(f.create(q(), jsonObject(R"({"type":"stream"})")).ok());
    QVERIFY(f.publish(q(), numbers(1, 5)).ok());
    QCOMPARE(payloadsOf(f.browse(q(), 1, 3)->messages), numbers(2, 4));
    QCOMPARE(f.browse(q(), 1, 3)->nextOffset, 4);
}

QTEST_GUILESS_MAIN(TestStreamQueue)
#include "tst_streamqueue.moc"
