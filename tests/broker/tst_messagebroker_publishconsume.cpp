// SPDX-License-Identifier: GPL-3.0-or-later
// MessageBroker's publish and consume: what a message carries, input rules, size limits, order
// (FIFO, priority), delays and ttl.
// Built twice, like every tst_messagebroker_*: on the memory store and on the Redis store
// (BROKER_TEST_STORE=redis).
#include "enginefixture.h"

#include "core/messageid.h"

#include <QTest>

using namespace Broker;
using namespace Broker::Testing;

class TestMessageBrokerPublishConsume : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void publishRecordsIdTimestampAndPublisher();
    void publishValidation_data();
    void publishValidation();
    void consumeIsFifoAndRemovesWithAcknowledge();
    void consumeValidation_data();
    void consumeValidation();
    void maxSizeRefusesWholeBatch();
    void ttlExpiredMessagesAreNeverDelivered_data();
    void ttlExpiredMessagesAreNeverDelivered();
    void delayedPublish();
    void priorityQueueOrdersByPriorityThenFifo();
    void headersAndPriorityTravelWithTheMessage();
};

void TestMessageBrokerPublishConsume::publishRecordsIdTimestampAndPublisher()
{
    EngineFixture f;
    QVERIFY(f.create(QStringLiteral("q")).ok());
    const Result<PublishResult> published = f.publish(QStringLiteral("q"), {R"({"a":1})", "[1,2]", R"("text")"});
    QVERIFY(published.ok());
    const QList<QString> ids = published->messageIds();
    QCOMPARE(ids.size(), 3);
    QCOMPARE(published->queueSize, 3);
    QSet<QString> unique(ids.begin(), ids.end());
    QCOMPARE(unique.size(), 3);
    for (const QString &id : ids)
        QVERIFY2(MessageId::parse(id).has_value(), qPrintable(id));

    f.clock.advanceMs(1500);
    const Result<QList<Message>> got = f.consume(QStringLiteral("q"), 3);
    QVERIFY(got.ok());
    QCOMPARE(got->size(), 3);
    const Message &first = got->first();
    QCOMPARE(first.id, published->messageIds().first());
    QCOMPARE(first.data, QByteArray(R"({"a":1})"));
    QCOMPARE(first.publisher, QStringLiteral("alice"));
    QCOMPARE(first.timestamp, double(f.clock.nowMs() - 1500) / 1000.0);
    QCOMPARE(first.deliveryCount, 1);
    QVERIFY(first.receipt.isEmpty()); // acknowledge=true: nothing to acknowledge later
}

void TestMessageBrokerPublishConsume::publishValidation_data()
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

void TestMessageBrokerPublishConsume::publishValidation()
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

void TestMessageBrokerPublishConsume::consumeIsFifoAndRemovesWithAcknowledge()
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

void TestMessageBrokerPublishConsume::consumeValidation_data()
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

void TestMessageBrokerPublishConsume::consumeValidation()
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

void TestMessageBrokerPublishConsume::maxSizeRefusesWholeBatch()
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

void TestMessageBrokerPublishConsume::ttlExpiredMessagesAreNeverDelivered_data()
{
    QTest::addColumn<bool>("withDlq");
    QTest::addColumn<bool>("sweep"); // maintenance runs before the consumer asks
    QTest::addRow("dropped-at-delivery") << false << false;
    QTest::addRow("dropped-by-sweep") << false << true;
    QTest::addRow("dead-lettered-at-delivery") << true << false;
    QTest::addRow("dead-lettered-by-sweep") << true << true;
}

void TestMessageBrokerPublishConsume::ttlExpiredMessagesAreNeverDelivered()
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

void TestMessageBrokerPublishConsume::delayedPublish()
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

void TestMessageBrokerPublishConsume::priorityQueueOrdersByPriorityThenFifo()
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

void TestMessageBrokerPublishConsume::headersAndPriorityTravelWithTheMessage()
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

QTEST_GUILESS_MAIN(TestMessageBrokerPublishConsume)
#include "tst_messagebroker_publishconsume.moc"
