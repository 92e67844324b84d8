// SPDX-License-Identifier: GPL-3.0-or-later
// MessageBroker's leases: ack, nack, extend, stale receipts, redelivery, max_deliveries to the
// dead-letter queue, and redrive back.
// Built twice, like every tst_messagebroker_*: on the memory store and on the Redis store
// (BROKER_TEST_STORE=redis).
#include "enginefixture.h"

#include <QTest>

using namespace Broker;
using namespace Broker::Testing;

class TestMessageBrokerLeases : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void leaseAckRemoves();
    void expiredLeaseRedeliversWithFreshReceipt();
    void nackRequeuesAtFront();
    void nackWithDelayWaits();
    void maxDeliveriesDeadLetters_data();
    void maxDeliveriesDeadLetters();
    void extendPostponesRedelivery();
    void redrive_data();
    void redrive();
};

void TestMessageBrokerLeases::leaseAckRemoves()
{
    EngineFixture f;
    QVERIFY(f.create(QStringLiteral("q")).ok());
    QVERIFY(f.publish(QStringLiteral("q"), numbers(1, 2)).ok());
    const Message leased = f.consume(QStringLiteral("q"), 1, false)->first();
    QCOMPARE(leased.receipt.size(), 16);
    QCOMPARE(leased.leaseDeadlineMs, f.clock.nowMs() + 30'000);
    QCOMPARE(f.info(QStringLiteral("q"))->inFlight, 1);
    QCOMPARE(f.info(QStringLiteral("q"))->depth, 1);

    QVERIFY(f.ack(QStringLiteral("q"), leased.id, leased.receipt).ok());
    QCOMPARE(f.info(QStringLiteral("q"))->inFlight, 0);
    const Result<void> again = f.ack(QStringLiteral("q"), leased.id, leased.receipt);
    QCOMPARE(again.error().code, ErrorCode::MessageNotFound);
    QCOMPARE(f.ack(QStringLiteral("q"), QStringLiteral("msg-zzz")).error().code, ErrorCode::MessageNotFound);
    QCOMPARE(f.ack(QStringLiteral("nope"), leased.id).error().code, ErrorCode::QueueNotFound);

    // gCore clients acknowledge without a receipt.
    const Message second = f.consume(QStringLiteral("q"), 1, false)->first();
    QVERIFY(f.ack(QStringLiteral("q"), second.id).ok());
    QCOMPARE(f.info(QStringLiteral("q"))->size(), 0);
}

void TestMessageBrokerLeases::expiredLeaseRedeliversWithFreshReceipt()
{
    EngineFixture f;
    QVERIFY(f.create(QStringLiteral("q"), jsonObject(R"({"visibility_timeout":10})")).ok());
    QVERIFY(f.publish(QStringLiteral("q"), numbers(1, 1)).ok());
    const Message first = f.consume(QStringLiteral("q"), 1, false)->first();

    f.advance(9'999);
    QVERIFY(f.consume(QStringLiteral("q"), 1, false)->isEmpty()); // still leased
    f.advance(1);
    QCOMPARE(f.info(QStringLiteral("q"))->depth, 1);
    const Message second = f.consume(QStringLiteral("q"), 1, false)->first();
    QCOMPARE(second.id, first.id);
    QCOMPARE(second.deliveryCount, 2);
    QVERIFY(second.receipt != first.receipt);

    // The stale receipt must not touch the new lease.
    const Result<void> stale = f.ack(QStringLiteral("q"), first.id, first.receipt);
    QCOMPARE(stale.error().code, ErrorCode::StaleReceipt);
    QCOMPARE(f.nack(QStringLiteral("q"), first.id, first.receipt).error().code, ErrorCode::StaleReceipt);
    QCOMPARE(f.extend(QStringLiteral("q"), first.id, first.receipt, 5000).error().code, ErrorCode::StaleReceipt);
    QCOMPARE(f.info(QStringLiteral("q"))->inFlight, 1);
    QCOMPARE(f.ack(QStringLiteral("q"), first.id, QStringLiteral("not-hex")).error().code,
             ErrorCode::InvalidArgument);
    QVERIFY(f.ack(QStringLiteral("q"), second.id, second.receipt).ok());
}

void TestMessageBrokerLeases::nackRequeuesAtFront()
{
    EngineFixture f;
    QVERIFY(f.create(QStringLiteral("q")).ok());
    QVERIFY(f.publish(QStringLiteral("q"), numbers(1, 3)).ok());
    const Message one = f.consume(QStringLiteral("q"), 1, false)->first();
    const Result<NackResult> nacked = f.nack(QStringLiteral("q"), one.id, one.receipt);
    QVERIFY(nacked.ok());
    QVERIFY(nacked->requeued);
    QVERIFY(!nacked->deadLettered);
    const QList<Message> again = *f.consume(QStringLiteral("q"), 3);
    QCOMPARE(payloadsOf(again), numbers(1, 3));
    QCOMPARE(again.first().deliveryCount, 2);
    QCOMPARE(f.info(QStringLiteral("q"))->counters.nacked, 1);
}

void TestMessageBrokerLeases::nackWithDelayWaits()
{
    EngineFixture f;
    QVERIFY(f.create(QStringLiteral("q")).ok());
    QVERIFY(f.publish(QStringLiteral("q"), numbers(1, 1)).ok());
    const Message one = f.consume(QStringLiteral("q"), 1, false)->first();
    QVERIFY(f.nack(QStringLiteral("q"), one.id, one.receipt, 5000)->requeued);
    QCOMPARE(f.info(QStringLiteral("q"))->delayed, 1);
    QVERIFY(f.consume(QStringLiteral("q"))->isEmpty());
    f.advance(4999);
    QVERIFY(f.consume(QStringLiteral("q"))->isEmpty());
    f.advance(1);
    QCOMPARE(payloadsOf(*f.consume(QStringLiteral("q"))), numbers(1, 1));
}

void TestMessageBrokerLeases::maxDeliveriesDeadLetters_data()
{
    QTest::addColumn<bool>("withDlq");
    QTest::addColumn<bool>("byNack");
    QTest::addRow("lease-expiry-to-dlq") << true << false;
    QTest::addRow("nack-to-dlq") << true << true;
    QTest::addRow("lease-expiry-dropped") << false << false;
    QTest::addRow("nack-dropped") << false << true;
}

void TestMessageBrokerLeases::maxDeliveriesDeadLetters()
{
    QFETCH(bool, withDlq);
    QFETCH(bool, byNack);

    EngineFixture f;
    QJsonObject options = jsonObject(R"({"max_deliveries":3,"visibility_timeout":1})");
    if (withDlq)
        options.insert(QStringLiteral("dead_letter_queue"), true);
    QVERIFY(f.create(QStringLiteral("jobs"), options).ok());
    const QString id = f.publish(QStringLiteral("jobs"), {R"({"job":42})"})->messageIds().first();

    for (int delivery = 1; delivery <= 3; ++delivery) {
        const QList<Message> got = *f.consume(QStringLiteral("jobs"), 1, false);
        QCOMPARE(got.size(), 1);
        QCOMPARE(got.first().deliveryCount, delivery);
        if (byNack) {
            const NackResult result = *f.nack(QStringLiteral("jobs"), id, got.first().receipt);
            QCOMPARE(result.requeued, delivery < 3);
            QCOMPARE(result.deadLettered, delivery == 3 && withDlq);
        } else {
            f.advance(1000);
        }
    }
    QVERIFY(f.consume(QStringLiteral("jobs"))->isEmpty());
    const QueueInfo info = *f.info(QStringLiteral("jobs"));
    QCOMPARE(info.size(), 0);
    QCOMPARE(info.counters.deadLettered, withDlq ? 1 : 0);
    QCOMPARE(info.counters.dropped, withDlq ? 0 : 1);

    if (withDlq) {
        const QList<Message> dead = *f.consume(QStringLiteral("jobs.dlq"));
        QCOMPARE(dead.size(), 1);
        QCOMPARE(dead.first().id, id);
        QCOMPARE(dead.first().data, QByteArray(R"({"job":42})"));
        QCOMPARE(dead.first().originQueue, QStringLiteral("jobs"));
        QCOMPARE(dead.first().deadLetterReason, QStringLiteral("max_deliveries"));
        QCOMPARE(dead.first().deadLetteredAt, double(f.clock.nowMs()) / 1000.0);
    }
}

void TestMessageBrokerLeases::extendPostponesRedelivery()
{
    EngineFixture f;
    QVERIFY(f.create(QStringLiteral("q"), jsonObject(R"({"visibility_timeout":10})")).ok());
    QVERIFY(f.publish(QStringLiteral("q"), numbers(1, 1)).ok());
    const Message leased = f.consume(QStringLiteral("q"), 1, false)->first();
    f.advance(8000);
    const Result<qint64> deadline = f.extend(QStringLiteral("q"), leased.id, leased.receipt, 20'000);
    QVERIFY(deadline.ok());
    QCOMPARE(*deadline, f.clock.nowMs() + 20'000);
    f.advance(19'999);
    QCOMPARE(f.info(QStringLiteral("q"))->inFlight, 1);
    QVERIFY(f.ack(QStringLiteral("q"), leased.id, leased.receipt).ok());
    QCOMPARE(f.extend(QStringLiteral("q"), leased.id, leased.receipt, 1000).error().code, ErrorCode::MessageNotFound);
}

void TestMessageBrokerLeases::redrive_data()
{
    QTest::addColumn<bool>("askOrigin"); // redrive asked of the origin queue, not of the DLQ
    QTest::addColumn<qint64>("limit");
    QTest::addColumn<qint64>("moved");
    QTest::addRow("from-dlq-all") << false << qint64(0) << qint64(3);
    QTest::addRow("from-origin-all") << true << qint64(0) << qint64(3);
    QTest::addRow("from-dlq-limited") << false << qint64(2) << qint64(2);
}

void TestMessageBrokerLeases::redrive()
{
    QFETCH(bool, askOrigin);
    QFETCH(qint64, limit);
    QFETCH(qint64, moved);

    EngineFixture f;
    const QJsonObject options = jsonObject(R"({"max_deliveries":1,"dead_letter_queue":"dead"})");
    QVERIFY(f.create(QStringLiteral("a"), options).ok());
    QVERIFY(f.create(QStringLiteral("b"), options).ok());
    QVERIFY(f.publish(QStringLiteral("a"), numbers(1, 3)).ok());
    QVERIFY(f.publish(QStringLiteral("b"), numbers(10, 10)).ok());
    for (const QString &queue : {QStringLiteral("a"), QStringLiteral("b")}) {
        const QList<Message> leased = *f.consume(queue, 10, false);
        for (const Message &m : leased)
            QVERIFY(f.nack(queue, m.id, m.receipt)->deadLettered);
    }
    QCOMPARE(f.info(QStringLiteral("dead"))->depth, 4);

    const Result<qint64> result = f.redrive(askOrigin ? QStringLiteral("a") : QStringLiteral("dead"), limit);
    QVERIFY(result.ok());
    if (askOrigin) {
        QCOMPARE(*result, moved);
        QCOMPARE(payloadsOf(*f.consume(QStringLiteral("dead"), 10)), numbers(10, 10)); // b's stays
    }
    const QList<Message> back = *f.consume(QStringLiteral("a"), 10, false);
    QCOMPARE(back.size(), askOrigin ? 3 : qMin<qint64>(moved, 3));
    QCOMPARE(back.first().deliveryCount, 1); // a fresh start
    QVERIFY(back.first().originQueue.isEmpty());
    QCOMPARE(f.info(QStringLiteral("a"))->counters.redriven, back.size());
    QCOMPARE(f.redrive(QStringLiteral("missing")).error().code, ErrorCode::QueueNotFound);
}

QTEST_GUILESS_MAIN(TestMessageBrokerLeases)
#include "tst_messagebroker_leases.moc"
