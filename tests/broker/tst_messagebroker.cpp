// SPDX-License-Identifier: GPL-3.0-or-later
#include "enginefixture.h"

#include "core/messageid.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QTest>

using namespace Broker;
using namespace Broker::Testing;

class TestMessageBroker : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void createQueue_data();
    void createQueue();
    void createQueueTwiceConflicts();
    void deadLetterQueueIsCreatedWithItsQueue();
    void publishRecordsIdTimestampAndPublisher();
    void publishValidation_data();
    void publishValidation();
    void consumeIsFifoAndRemovesWithAcknowledge();
    void consumeValidation_data();
    void consumeValidation();
    void maxSizeRefusesWholeBatch();
    void leaseAckRemoves();
    void expiredLeaseRedeliversWithFreshReceipt();
    void nackRequeuesAtFront();
    void nackWithDelayWaits();
    void maxDeliveriesDeadLetters_data();
    void maxDeliveriesDeadLetters();
    void extendPostponesRedelivery();
    void ttlExpiredMessagesAreNeverDelivered_data();
    void ttlExpiredMessagesAreNeverDelivered();
    void delayedPublish();
    void priorityQueueOrdersByPriorityThenFifo();
    void browseDoesNotConsume();
    void redrive_data();
    void redrive();
    void purgeAndDelete();
    void countersAndSnapshot();
    void lifecycleOfOneMessage();
    void longPollIsWokenByPublish();
    void longPollTimesOutEmpty();
    void longPollFailsWhenQueueIsDeleted();
    void longPollEndsEmptyOnShutdown();
    void headersAndPriorityTravelWithTheMessage();
    void processorAcknowledges();
    void processorThatRejectsDeadLetters();
    void processorExceptionIsRecorded();
};

void TestMessageBroker::createQueue_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QByteArray>("options");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<QString>("expected"); // config JSON on success, error text otherwise

    QTest::addRow("defaults") << "orders" << QByteArray("{}") << true
                              << R"({"dead_letter_queue":null,"max_deliveries":5,"max_size":10000,"ttl":86400,"type":"list","visibility_timeout":30})";
    QTest::addRow("all-options") << "jobs.v2_x-1"
                                 << QByteArray(R"({"type":"priority","max_size":5,"ttl":60,"visibility_timeout":7,"max_deliveries":2,"dead_letter_queue":"failed"})")
                                 << true
                                 << R"({"dead_letter_queue":"failed","max_deliveries":2,"max_size":5,"ttl":60,"type":"priority","visibility_timeout":7})";
    QTest::addRow("dlq-true-means-name.dlq") << "mail" << QByteArray(R"({"dead_letter_queue":true})") << true
                                             << R"({"dead_letter_queue":"mail.dlq","max_deliveries":5,"max_size":10000,"ttl":86400,"type":"list","visibility_timeout":30})";
    QTest::addRow("stream") << "events" << QByteArray(R"({"type":"stream"})") << true
                            << R"({"dead_letter_queue":null,"max_deliveries":5,"max_size":10000,"ttl":86400,"type":"stream","visibility_timeout":30})";
    QTest::addRow("empty-name") << "" << QByteArray("{}") << false << "Queue name is required";
    QTest::addRow("name-with-slash") << "a/b" << QByteArray("{}") << false << "Invalid queue name";
    QTest::addRow("name-leading-dot") << ".hidden" << QByteArray("{}") << false << "Invalid queue name";
    QTest::addRow("name-129-chars") << QString(129, u'a') << QByteArray("{}") << false << "Invalid queue name";
    QTest::addRow("name-unicode") << QString::fromUtf8("zürich") << QByteArray("{}") << false << "Invalid queue name";
    QTest::addRow("unknown-option") << "q" << QByteArray(R"({"colour":"red"})") << false
                                    << "Unknown queue option 'colour' (known: type, max_size, ttl, visibility_timeout, max_deliveries, dead_letter_queue)";
    QTest::addRow("unknown-type") << "q" << QByteArray(R"({"type":"heap"})") << false
                                  << "Unknown queue type 'heap' (known: list, priority, stream)";
    QTest::addRow("max-size-zero") << "q" << QByteArray(R"({"max_size":0})") << false
                                   << "Invalid option 'max_size': expected a whole number from 1 to 100000000";
    QTest::addRow("ttl-as-string") << "q" << QByteArray(R"({"ttl":"60"})") << false
                                   << "Invalid option 'ttl': expected a whole number from 1 to 315360000";
    QTest::addRow("fractional-deliveries") << "q" << QByteArray(R"({"max_deliveries":1.5})") << false
                                           << "Invalid option 'max_deliveries': expected a whole number from 1 to 1000";
    QTest::addRow("dlq-is-itself") << "q" << QByteArray(R"({"dead_letter_queue":"q"})") << false
                                   << "Invalid option 'dead_letter_queue': a queue cannot be its own dead-letter queue";
    QTest::addRow("dlq-bad-name") << "q" << QByteArray(R"({"dead_letter_queue":"no way"})") << false
                                  << "Invalid option 'dead_letter_queue': not a valid queue name";
    QTest::addRow("dlq-number") << "q" << QByteArray(R"({"dead_letter_queue":3})") << false
                                << "Invalid option 'dead_letter_queue': expected a queue name, true or false";
}

void TestMessageBroker::createQueue()
{
    QFETCH(QString, name);
    QFETCH(QByteArray, options);
    QFETCH(bool, ok);
    QFETCH(QString, expected);

    EngineFixture f;
    const Result<QueueInfo> created = f.create(name, QJsonDocument::fromJson(options).object());
    QCOMPARE(created.ok(), ok);
    if (!ok) {
        QCOMPARE(created.error().code, ErrorCode::InvalidArgument);
        QCOMPARE(created.error().message, expected);
        return;
    }
    QCOMPARE(created->name, name);
    QCOMPARE(QString::fromUtf8(json(created->config.toJson())), expected);
    QCOMPARE(created->created, double(f.clock.nowMs()) / 1000.0);
    QVERIFY(f.info(name).ok());
}

void TestMessageBroker::createQueueTwiceConflicts()
{
    EngineFixture f;
    QVERIFY(f.create(QStringLiteral("q")).ok());
    const Result<QueueInfo> again = f.create(QStringLiteral("q"));
    QVERIFY(!again.ok());
    QCOMPARE(again.error().code, ErrorCode::QueueExists);
    QCOMPARE(again.error().message, QStringLiteral("Queue already exists"));
}

void TestMessageBroker::deadLetterQueueIsCreatedWithItsQueue()
{
    EngineFixture f;
    QVERIFY(f.create(QStringLiteral("mail"), jsonObject(R"({"dead_letter_queue":true})")).ok());
    const Result<QueueInfo> dlq = f.info(QStringLiteral("mail.dlq"));
    QVERIFY(dlq.ok());
    QCOMPARE(dlq->config.type, QStringLiteral("list"));
    QVERIFY(dlq->config.deadLetterQueue.isEmpty());
    // An existing queue is used as the DLQ as it is.
    QVERIFY(f.create(QStringLiteral("audit"), jsonObject(R"({"type":"priority"})")).ok());
    QVERIFY(f.create(QStringLiteral("orders"), jsonObject(R"({"dead_letter_queue":"audit"})")).ok());
    QCOMPARE(f.info(QStringLiteral("audit"))->config.type, QStringLiteral("priority"));
}

void TestMessageBroker::publishRecordsIdTimestampAndPublisher()
{
    EngineFixture f;
    QVERIFY(f.create(QStringLiteral("q")).ok());
    const Result<PublishResult> published = f.publish(QStringLiteral("q"), {R"({"a":1})", "[1,2]", R"("text")"});
    QVERIFY(published.ok());
    QCOMPARE(published->messageIds.size(), 3);
    QCOMPARE(published->queueSize, 3);
    QSet<QString> unique(published->messageIds.begin(), published->messageIds.end());
    QCOMPARE(unique.size(), 3);
    for (const QString &id : published->messageIds)
        QVERIFY2(MessageId::parse(id).has_value(), qPrintable(id));

    f.clock.advanceMs(1500);
    const Result<QList<Message>> got = f.consume(QStringLiteral("q"), 3);
    QVERIFY(got.ok());
    QCOMPARE(got->size(), 3);
    const Message &first = got->first();
    QCOMPARE(first.id, published->messageIds.first());
    QCOMPARE(first.data, QByteArray(R"({"a":1})"));
    QCOMPARE(first.publisher, QStringLiteral("alice"));
    QCOMPARE(first.timestamp, double(f.clock.nowMs() - 1500) / 1000.0);
    QCOMPARE(first.deliveryCount, 1);
    QVERIFY(first.receipt.isEmpty()); // acknowledge=true: nothing to acknowledge later
}

void TestMessageBroker::publishValidation_data()
{
    QTest::addColumn<QList<QByteArray>>("payloads");
    QTest::addColumn<qint64>("delayMs");
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("message");

    QTest::addRow("no-messages") << QList<QByteArray>{} << qint64(0) << int(ErrorCode::InvalidArgument)
                                 << "Message is required";
    QTest::addRow("null-message") << QList<QByteArray>{"null"} << qint64(0) << int(ErrorCode::InvalidArgument)
                                  << "Message is required";
    QTest::addRow("empty-message") << QList<QByteArray>{""} << qint64(0) << int(ErrorCode::InvalidArgument)
                                   << "Message is required";
    QTest::addRow("too-large") << QList<QByteArray>{"\"" + QByteArray(256 * 1024, 'x') + "\""} << qint64(0)
                               << int(ErrorCode::PayloadTooLarge) << "Message too large (at most 262144 bytes)";
    QTest::addRow("batch-too-large") << numbers(1, 1001) << qint64(0) << int(ErrorCode::InvalidArgument)
                                     << "Too many messages in one batch (at most 1000)";
    QTest::addRow("negative-delay") << QList<QByteArray>{"1"} << qint64(-1) << int(ErrorCode::InvalidArgument)
                                    << "Invalid delay: expected 0 to 86400 seconds";
    // Due only when the default ttl (86400 s) has run out: it would expire undelivered.
    QTest::addRow("delay-reaches-ttl") << QList<QByteArray>{"1", "2"} << qint64(86'400'000)
                                       << int(ErrorCode::InvalidArgument)
                                       << "Invalid delay: must be shorter than the queue's ttl (86400 seconds)";
}

void TestMessageBroker::publishValidation()
{
    QFETCH(QList<QByteArray>, payloads);
    QFETCH(qint64, delayMs);
    QFETCH(int, code);
    QFETCH(QString, message);

    EngineFixture f;
    QVERIFY(f.create(QStringLiteral("q")).ok());
    const Result<PublishResult> result = f.publish(QStringLiteral("q"), payloads, QStringLiteral("alice"), delayMs);
    QVERIFY(!result.ok());
    QCOMPARE(int(result.error().code), code);
    QCOMPARE(result.error().message, message);
    QCOMPARE(f.info(QStringLiteral("q"))->size(), 0);
}

void TestMessageBroker::consumeIsFifoAndRemovesWithAcknowledge()
{
    EngineFixture f;
    QVERIFY(f.create(QStringLiteral("q")).ok());
    QVERIFY(f.publish(QStringLiteral("q"), numbers(1, 5)).ok());
    QCOMPARE(payloadsOf(*f.consume(QStringLiteral("q"), 2)), numbers(1, 2));
    QCOMPARE(payloadsOf(*f.consume(QStringLiteral("q"), 10)), numbers(3, 5));
    QVERIFY(f.consume(QStringLiteral("q"))->isEmpty());
    const Result<QueueInfo> info = f.info(QStringLiteral("q"));
    QCOMPARE(info->depth, 0);
    QCOMPARE(info->inFlight, 0);
    QCOMPARE(info->counters.delivered, 5);
    QCOMPARE(info->counters.acked, 5);

    const Result<QList<Message>> missing = f.consume(QStringLiteral("nope"));
    QCOMPARE(missing.error().code, ErrorCode::QueueNotFound);
    QCOMPARE(missing.error().message, QStringLiteral("Queue not found"));
}

void TestMessageBroker::consumeValidation_data()
{
    QTest::addColumn<int>("count");
    QTest::addColumn<qint64>("waitMs");
    QTest::addColumn<qint64>("visibilityMs");
    QTest::addColumn<QString>("group");
    QTest::addColumn<QString>("message");

    QTest::addRow("count-zero") << 0 << qint64(0) << qint64(0) << QString() << "Invalid count: expected 1 to 1000";
    QTest::addRow("count-too-big") << 1001 << qint64(0) << qint64(0) << QString() << "Invalid count: expected 1 to 1000";
    QTest::addRow("wait-too-long") << 1 << qint64(20'001) << qint64(0) << QString()
                                   << "Invalid wait: expected 0 to 20 seconds";
    QTest::addRow("visibility-too-long") << 1 << qint64(0) << qint64(12 * 3600 * 1000 + 1) << QString()
                                         << "Invalid visibility_timeout: expected 1 to 43200 seconds";
    QTest::addRow("bad-group") << 1 << qint64(0) << qint64(0) << "a b" << "Invalid consumer group or consumer name";
}

void TestMessageBroker::consumeValidation()
{
    QFETCH(int, count);
    QFETCH(qint64, waitMs);
    QFETCH(qint64, visibilityMs);
    QFETCH(QString, group);
    QFETCH(QString, message);

    EngineFixture f;
    QVERIFY(f.create(QStringLiteral("q")).ok());
    QVERIFY(f.publish(QStringLiteral("q"), numbers(1, 1)).ok());
    ConsumeRequest request;
    request.count = count;
    request.visibilityTimeoutMs = visibilityMs;
    request.group = group;
    Captured<QList<Message>> c;
    f.broker.consume(QStringLiteral("q"), request, waitMs, c.sink());
    const Result<QList<Message>> result = c.take();
    QVERIFY(!result.ok());
    QCOMPARE(result.error().code, ErrorCode::InvalidArgument);
    QCOMPARE(result.error().message, message);
    QCOMPARE(f.info(QStringLiteral("q"))->depth, 1); // nothing consumed
}

void TestMessageBroker::maxSizeRefusesWholeBatch()
{
    EngineFixture f;
    QVERIFY(f.create(QStringLiteral("q"), jsonObject(R"({"max_size":5})")).ok());
    QVERIFY(f.publish(QStringLiteral("q"), numbers(1, 3)).ok());
    const Result<PublishResult> batch = f.publish(QStringLiteral("q"), numbers(4, 6));
    QVERIFY(!batch.ok());
    QCOMPARE(batch.error().code, ErrorCode::QueueFull);
    QCOMPARE(batch.error().message, QStringLiteral("Queue size limit reached"));
    QCOMPARE(f.info(QStringLiteral("q"))->depth, 3);
    QVERIFY(f.publish(QStringLiteral("q"), numbers(4, 5)).ok());
    // In-flight messages count toward the limit too.
    QCOMPARE(f.consume(QStringLiteral("q"), 1, false)->size(), 1);
    QCOMPARE(f.publish(QStringLiteral("q"), numbers(6, 6)).error().code, ErrorCode::QueueFull);
}

void TestMessageBroker::leaseAckRemoves()
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

void TestMessageBroker::expiredLeaseRedeliversWithFreshReceipt()
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

void TestMessageBroker::nackRequeuesAtFront()
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

void TestMessageBroker::nackWithDelayWaits()
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

void TestMessageBroker::maxDeliveriesDeadLetters_data()
{
    QTest::addColumn<bool>("withDlq");
    QTest::addColumn<bool>("byNack");
    QTest::addRow("lease-expiry-to-dlq") << true << false;
    QTest::addRow("nack-to-dlq") << true << true;
    QTest::addRow("lease-expiry-dropped") << false << false;
    QTest::addRow("nack-dropped") << false << true;
}

void TestMessageBroker::maxDeliveriesDeadLetters()
{
    QFETCH(bool, withDlq);
    QFETCH(bool, byNack);

    EngineFixture f;
    QJsonObject options = jsonObject(R"({"max_deliveries":3,"visibility_timeout":1})");
    if (withDlq)
        options.insert(QStringLiteral("dead_letter_queue"), true);
    QVERIFY(f.create(QStringLiteral("jobs"), options).ok());
    const QString id = f.publish(QStringLiteral("jobs"), {R"({"job":42})"})->messageIds.first();

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

void TestMessageBroker::extendPostponesRedelivery()
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

void TestMessageBroker::ttlExpiredMessagesAreNeverDelivered_data()
{
    QTest::addColumn<bool>("withDlq");
    QTest::addColumn<bool>("sweep"); // maintenance runs before the consumer asks
    QTest::addRow("dropped-at-delivery") << false << false;
    QTest::addRow("dropped-by-sweep") << false << true;
    QTest::addRow("dead-lettered-at-delivery") << true << false;
    QTest::addRow("dead-lettered-by-sweep") << true << true;
}

void TestMessageBroker::ttlExpiredMessagesAreNeverDelivered()
{
    QFETCH(bool, withDlq);
    QFETCH(bool, sweep);

    EngineFixture f;
    QJsonObject options = jsonObject(R"({"ttl":60})");
    if (withDlq)
        options.insert(QStringLiteral("dead_letter_queue"), true);
    QVERIFY(f.create(QStringLiteral("q"), options).ok());
    QVERIFY(f.publish(QStringLiteral("q"), numbers(1, 2)).ok());
    f.clock.advanceMs(30'000);
    QVERIFY(f.publish(QStringLiteral("q"), numbers(3, 3)).ok());
    f.clock.advanceMs(30'000); // 1 and 2 are now exactly 60 s old
    if (sweep) {
        f.maintain();
        QCOMPARE(f.info(QStringLiteral("q"))->depth, 1);
    }
    QCOMPARE(payloadsOf(*f.consume(QStringLiteral("q"), 10)), numbers(3, 3));
    const QueueInfo info = *f.info(QStringLiteral("q"));
    QCOMPARE(info.counters.expired, 2);
    QCOMPARE(info.counters.deadLettered, withDlq ? 2 : 0);
    if (withDlq) {
        const QList<Message> dead = *f.consume(QStringLiteral("q.dlq"), 10);
        QCOMPARE(payloadsOf(dead), numbers(1, 2));
        QCOMPARE(dead.first().deadLetterReason, QStringLiteral("expired"));
    }
}

void TestMessageBroker::delayedPublish()
{
    EngineFixture f;
    QVERIFY(f.create(QStringLiteral("q")).ok());
    QVERIFY(f.publish(QStringLiteral("q"), numbers(1, 1), QStringLiteral("alice"), 3000).ok());
    QVERIFY(f.publish(QStringLiteral("q"), numbers(2, 2)).ok());
    QCOMPARE(f.info(QStringLiteral("q"))->delayed, 1);
    QCOMPARE(payloadsOf(*f.consume(QStringLiteral("q"), 10)), numbers(2, 2));
    f.advance(3000);
    QCOMPARE(payloadsOf(*f.consume(QStringLiteral("q"), 10)), numbers(1, 1));
}

void TestMessageBroker::priorityQueueOrdersByPriorityThenFifo()
{
    EngineFixture f;
    QVERIFY(f.create(QStringLiteral("p"), jsonObject(R"({"type":"priority"})")).ok());
    QVERIFY(f.publish(QStringLiteral("p"), numbers(1, 6), QStringLiteral("alice"), 0, {0, 5, 0, 9, 5, -1}).ok());
    QCOMPARE(payloadsOf(f.browse(QStringLiteral("p"), 0, 10)->messages),
             (QList<QByteArray>{"4", "2", "5", "1", "3", "6"}));
    const Message top = f.consume(QStringLiteral("p"), 1, false)->first();
    QCOMPARE(top.data, QByteArray("4"));
    QCOMPARE(top.priority, 9);
    QVERIFY(f.nack(QStringLiteral("p"), top.id, top.receipt).ok());
    QCOMPARE(payloadsOf(*f.consume(QStringLiteral("p"), 10)), (QList<QByteArray>{"4", "2", "5", "1", "3", "6"}));
}

void TestMessageBroker::browseDoesNotConsume()
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

void TestMessageBroker::redrive_data()
{
    QTest::addColumn<bool>("askOrigin"); // redrive asked of the origin queue, not of the DLQ
    QTest::addColumn<qint64>("limit");
    QTest::addColumn<qint64>("moved");
    QTest::addRow("from-dlq-all") << false << qint64(0) << qint64(3);
    QTest::addRow("from-origin-all") << true << qint64(0) << qint64(3);
    QTest::addRow("from-dlq-limited") << false << qint64(2) << qint64(2);
}

void TestMessageBroker::redrive()
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

void TestMessageBroker::purgeAndDelete()
{
    EngineFixture f;
    QVERIFY(f.create(QStringLiteral("q")).ok());
    QVERIFY(f.publish(QStringLiteral("q"), numbers(1, 4)).ok());
    QVERIFY(f.publish(QStringLiteral("q"), numbers(5, 5), QStringLiteral("alice"), 1000).ok());
    QCOMPARE(f.consume(QStringLiteral("q"), 1, false)->size(), 1);
    QCOMPARE(*f.purge(QStringLiteral("q")), 5);
    QCOMPARE(f.info(QStringLiteral("q"))->size(), 0);
    QCOMPARE(f.purge(QStringLiteral("nope")).error().code, ErrorCode::QueueNotFound);

    QVERIFY(f.publish(QStringLiteral("q"), numbers(1, 1)).ok());
    QCOMPARE(*f.remove(QStringLiteral("q")), 2);
    QCOMPARE(f.info(QStringLiteral("q")).error().code, ErrorCode::QueueNotFound);
    QCOMPARE(f.remove(QStringLiteral("q")).error().message, QStringLiteral("Queue not found"));
    QCOMPARE(f.publish(QStringLiteral("q"), numbers(1, 1)).error().code, ErrorCode::QueueNotFound);
}

void TestMessageBroker::countersAndSnapshot()
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

void TestMessageBroker::lifecycleOfOneMessage()
{
    EngineFixture f;
    QVERIFY(f.create(QStringLiteral("q"), jsonObject(R"({"max_deliveries":2,"dead_letter_queue":true})")).ok());
    const QString id = f.publish(QStringLiteral("q"), numbers(1, 1))->messageIds.first();
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

void TestMessageBroker::longPollIsWokenByPublish()
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

void TestMessageBroker::longPollTimesOutEmpty()
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

void TestMessageBroker::longPollFailsWhenQueueIsDeleted()
{
    EngineFixture f;
    QVERIFY(f.create(QStringLiteral("q")).ok());
    Captured<QList<Message>> waiting;
    f.broker.consume(QStringLiteral("q"), ConsumeRequest{}, 5000, waiting.sink());
    QVERIFY(f.remove(QStringLiteral("q")).ok());
    QVERIFY(waiting.done());
    QCOMPARE(waiting.take().error().code, ErrorCode::QueueNotFound);
}

void TestMessageBroker::longPollEndsEmptyOnShutdown()
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

void TestMessageBroker::headersAndPriorityTravelWithTheMessage()
{
    EngineFixture f;
    QVERIFY(f.create(QStringLiteral("q")).ok());
    NewMessage message;
    message.data = R"({"order":7})";
    message.headers = jsonObject(R"({"trace":"abc","attempt":1})");
    message.priority = 3;
    Captured<PublishResult> published;
    f.broker.publish(QStringLiteral("q"), {message}, QStringLiteral("carol"), published.sink());
    QVERIFY(published.take().ok());
    const Message browsed = f.browse(QStringLiteral("q"), 0, 1)->messages.first();
    QCOMPARE(browsed.headers, message.headers);
    const Message got = f.consume(QStringLiteral("q"))->first();
    QCOMPARE(got.headers, message.headers);
    QCOMPARE(got.priority, 3);
    QCOMPARE(got.publisher, QStringLiteral("carol"));
    QCOMPARE(got.queue, QStringLiteral("q"));
}

void TestMessageBroker::processorAcknowledges()
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
    QVERIFY(f.broker.unregisterProcessor(id));
    QVERIFY(!f.broker.unregisterProcessor(id));
    QVERIFY(f.publish(QStringLiteral("q"), numbers(1, 1)).ok());
    QTest::qWait(20);
    QCOMPARE(f.info(QStringLiteral("q"))->depth, 1);
}

void TestMessageBroker::processorThatRejectsDeadLetters()
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
}

void TestMessageBroker::processorExceptionIsRecorded()
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

QTEST_GUILESS_MAIN(TestMessageBroker)
#include "tst_messagebroker.moc"
