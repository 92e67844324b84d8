// SPDX-License-Identifier: GPL-3.0-or-later
// MessageBroker's queues: creation and its options, the dead-letter queue made with its queue,
// purge and delete.
// Built twice, like every tst_messagebroker_*: on the memory store and on the Redis store
// (BROKER_TEST_STORE=redis).
#include "enginefixture.h"

#include <QTest>

using namespace Broker;
using namespace Broker::Testing;

class TestMessageBrokerQueues : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void createQueue_data();
    void createQueue();
    void createQueueTwiceConflicts();
    void deadLetterQueueIsCreatedWithItsQueue();
    void purgeAndDelete();
};

void TestMessageBrokerQueues::createQueue_data()
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
                                    << "Unknown queue option 'colour' (known: type, max_size, ttl, visibility_timeout, max_deliveries, dead_letter_queue, partitions)";
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

void TestMessageBrokerQueues::createQueue()
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

void TestMessageBrokerQueues::createQueueTwiceConflicts()
{
    EngineFixture f;
    QVERIFY(f.create(QStringLiteral("q")).ok());
    const Result<QueueInfo> again = f.create(QStringLiteral("q"));
    QVERIFY(!again.ok());
    QCOMPARE(again.error().code, ErrorCode::QueueExists);
    QCOMPARE(again.error().message, QStringLiteral("Queue already exists"));
}

void TestMessageBrokerQueues::deadLetterQueueIsCreatedWithItsQueue()
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

void TestMessageBrokerQueues::purgeAndDelete()
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

QTEST_GUILESS_MAIN(TestMessageBrokerQueues)
#include "tst_messagebroker_queues.moc"
