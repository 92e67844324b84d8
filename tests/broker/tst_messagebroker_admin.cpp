// SPDX-License-Identifier: GPL-3.0-or-later
// MessageBroker's administration: changing a queue's options, and browsing its messages by state
// with a server-side filter and a scan bound.
// Built twice, like every tst_messagebroker_*: on the memory store and on the Redis store
// (BROKER_TEST_STORE=redis).
#include "enginefixture.h"

#include <QSignalSpy>
#include <QTest>

using namespace Broker;
using namespace Broker::Testing;

class TestMessageBrokerAdmin : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void updateQueue_data();
    void updateQueue();
    void updateOfAMissingQueueIsNotFound();
    void updatedOptionsApplyToTheNextOperations();
    void browseByState_data();
    void browseByState();
    void browseFilter_data();
    void browseFilter();
    void aFilteredBrowseStopsAtTheScanBound();
    void payloadBytesComeBackAsSent();
    void streamInFlightShowsPendingEntries();
};

namespace {

const char *Defaults =
    R"({"dead_letter_queue":null,"max_deliveries":5,"max_size":10000,"ttl":86400,"type":"list","visibility_timeout":30})";

QList<QString> idsOf(const QList<Message> &messages)
{
    QList<QString> out;
    for (const Message &message : messages)
        out.append(message.id);
    return out;
}

} // namespace

void TestMessageBrokerAdmin::updateQueue_data()
{
    QTest::addColumn<QByteArray>("options");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<QString>("expected"); // config JSON on success, error text otherwise

    QTest::addRow("max-size-only") << QByteArray(R"({"max_size":7})") << true
                                   << R"({"dead_letter_queue":"old.dlq","max_deliveries":5,"max_size":7,"ttl":86400,"type":"list","visibility_timeout":30})";
    QTest::addRow("every-changeable-option")
        << QByteArray(R"({"max_size":3,"ttl":60,"visibility_timeout":9,"max_deliveries":2,"dead_letter_queue":"failed"})")
        << true
        << R"({"dead_letter_queue":"failed","max_deliveries":2,"max_size":3,"ttl":60,"type":"list","visibility_timeout":9})";
    QTest::addRow("dlq-true-means-name.dlq") << QByteArray(R"({"dead_letter_queue":true})") << true
                                             << R"({"dead_letter_queue":"q.dlq","max_deliveries":5,"max_size":10000,"ttl":86400,"type":"list","visibility_timeout":30})";
    QTest::addRow("dlq-null-removes-it") << QByteArray(R"({"dead_letter_queue":null})") << true << Defaults;
    QTest::addRow("type-is-immutable") << QByteArray(R"({"type":"priority"})") << false
                                       << "Option 'type' cannot be changed: a queue keeps the type it was created with";
    QTest::addRow("type-with-others") << QByteArray(R"({"max_size":3,"type":"list"})") << false
                                      << "Option 'type' cannot be changed: a queue keeps the type it was created with";
    QTest::addRow("unknown-option") << QByteArray(R"({"colour":2})") << false
                                    << "Unknown queue option 'colour' (changeable: max_size, ttl, visibility_timeout, max_deliveries, dead_letter_queue, partitions)";
    QTest::addRow("partitions-only-grow") << QByteArray(R"({"partitions":0})") << false
                                          << "Invalid option 'partitions': expected a whole number from 1 to 64";
    QTest::addRow("nothing-to-change") << QByteArray("{}") << false
                                       << "Nothing to change: options names none of max_size, ttl, visibility_timeout, max_deliveries, dead_letter_queue, partitions";
    QTest::addRow("max-size-zero") << QByteArray(R"({"max_size":0})") << false
                                   << "Invalid option 'max_size': expected a whole number from 1 to 100000000";
    QTest::addRow("ttl-as-string") << QByteArray(R"({"ttl":"60"})") << false
                                   << "Invalid option 'ttl': expected a whole number from 1 to 315360000";
    QTest::addRow("dlq-is-itself") << QByteArray(R"({"dead_letter_queue":"q"})") << false
                                   << "Invalid option 'dead_letter_queue': a queue cannot be its own dead-letter queue";
}

void TestMessageBrokerAdmin::updateQueue()
{
    QFETCH(QByteArray, options);
    QFETCH(bool, ok);
    QFETCH(QString, expected);

    EngineFixture f;
    QVERIFY(f.create(QStringLiteral("q"), jsonObject(R"({"dead_letter_queue":"old.dlq"})")));
    QVERIFY(f.publish(QStringLiteral("q"), numbers(1, 2)));
    QSignalSpy updated(&f.broker, &MessageBroker::queueUpdated);
    const Result<QueueInfo> result = f.update(QStringLiteral("q"), QJsonDocument::fromJson(options).object());
    QCOMPARE(result.ok(), ok);
    if (!ok) {
        QCOMPARE(result.error().code, ErrorCode::InvalidArgument);
        QCOMPARE(result.error().message, expected);
        QCOMPARE(f.info(QStringLiteral("q"))->config.deadLetterQueue, QStringLiteral("old.dlq"));
        QCOMPARE(updated.count(), 0);
        return;
    }
    QCOMPARE(json(result->config.toJson()), json(jsonObject(expected.toUtf8().constData())));
    // What the store keeps afterwards, and the messages are untouched.
    const Result<QueueInfo> info = f.info(QStringLiteral("q"));
    QCOMPARE(json(info->config.toJson()), json(jsonObject(expected.toUtf8().constData())));
    QCOMPARE(info->depth, 2);
    QCOMPARE(updated.count(), 1);
    // A dead-letter queue named by the change exists afterwards.
    if (!info->config.deadLetterQueue.isEmpty())
        QVERIFY(f.info(info->config.deadLetterQueue));
}

void TestMessageBrokerAdmin::updateOfAMissingQueueIsNotFound()
{
    EngineFixture f;
    const Result<QueueInfo> result = f.update(QStringLiteral("nope"), jsonObject(R"({"dead_letter_queue":true})"));
    QCOMPARE(result.error().code, ErrorCode::QueueNotFound);
    // A refused change leaves nothing behind: no dead-letter queue for a queue that is not there.
    QCOMPARE(f.info(QStringLiteral("nope.dlq")).error().code, ErrorCode::QueueNotFound);
}

void TestMessageBrokerAdmin::updatedOptionsApplyToTheNextOperations()
{
    EngineFixture f;
    QVERIFY(f.create(QStringLiteral("q"), jsonObject(R"({"max_deliveries":5})")));
    QVERIFY(f.publish(QStringLiteral("q"), numbers(1, 3)));
    // A smaller max_size refuses publishes while the queue holds more.
    QVERIFY(f.update(QStringLiteral("q"), jsonObject(R"({"max_size":3,"max_deliveries":1,"dead_letter_queue":true})")));
    QCOMPARE(f.publish(QStringLiteral("q"), numbers(4, 4)).error().code, ErrorCode::QueueFull);
    // max_deliveries 1: the first nack dead-letters into the new dead-letter queue.
    const QList<Message> leased = *f.consume(QStringLiteral("q"), 1, false);
    const Result<NackResult> nacked = f.nack(QStringLiteral("q"), leased.first().id, leased.first().receipt);
    QVERIFY(nacked);
    QVERIFY(nacked->deadLettered);
    QCOMPARE(f.info(QStringLiteral("q.dlq"))->depth, 1);
}

void TestMessageBrokerAdmin::browseByState_data()
{
    QTest::addColumn<QString>("state");
    QTest::addColumn<QList<QByteArray>>("payloads");
    QTest::addRow("ready") << "ready" << QList<QByteArray>{"1", "2"};
    QTest::addRow("delayed") << "delayed" << QList<QByteArray>{"\"later\""};
    QTest::addRow("in_flight") << "in_flight" << QList<QByteArray>{"\"leased\""};
    QTest::addRow("dead") << "dead" << QList<QByteArray>{"\"failed\""};
}

void TestMessageBrokerAdmin::browseByState()
{
    QFETCH(QString, state);
    QFETCH(QList<QByteArray>, payloads);

    EngineFixture f;
    const QString q = QStringLiteral("q");
    QVERIFY(f.create(q, jsonObject(R"({"dead_letter_queue":true,"max_deliveries":1})")));
    // One message dead-lettered, one leased, one delayed, two ready.
    QVERIFY(f.publish(q, {"\"failed\""}));
    const Message failed = f.consume(q, 1, false)->first();
    QVERIFY(f.nack(q, failed.id, failed.receipt)->deadLettered);
    QVERIFY(f.publish(q, {"\"leased\""}));
    const Message leased = f.consume(q, 1, false)->first();
    QVERIFY(f.publish(q, {"\"later\""}, QStringLiteral("alice"), 60'000));
    QVERIFY(f.publish(q, numbers(1, 2)));

    BrowseQuery query;
    query.state = *messageStateFromName(state);
    const Result<BrowsePage> page = f.browse(q, query);
    QVERIFY2(page, page ? "" : qPrintable(page.error().message));
    QCOMPARE(payloadsOf(page->messages), payloads);
    QCOMPARE(page->total, payloads.size());
    QVERIFY(!page->truncated);
    const Message &first = page->messages.first();
    switch (query.state) {
    case MessageState::Ready:
        QCOMPARE(first.leaseDeadlineMs, 0);
        QCOMPARE(first.dueMs, 0);
        break;
    case MessageState::Delayed:
        QCOMPARE(first.dueMs, f.clock.nowMs() + 60'000);
        break;
    case MessageState::InFlight:
        QCOMPARE(first.id, leased.id);
        QCOMPARE(first.leaseDeadlineMs, leased.leaseDeadlineMs);
        QCOMPARE(first.deliveryCount, 1);
        QVERIFY(first.receipt.isEmpty()); // the lease's proof stays with its consumer
        break;
    case MessageState::Dead:
        QCOMPARE(first.id, failed.id);
        QCOMPARE(first.originQueue, q);
        QCOMPARE(first.deadLetterReason, QStringLiteral("max_deliveries"));
        // The dead-letter queue itself shows it as its own dead-lettered message too.
        QCOMPARE(idsOf(f.browse(QStringLiteral("q.dlq"), query)->messages), QList<QString>{failed.id});
        break;
    }
}

void TestMessageBrokerAdmin::browseFilter_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("header"); // "key:value" or "key"
    QTest::addColumn<int>("idOf");       // index of the published message whose id is asked for; -1: none
    QTest::addColumn<QList<int>>("expected");

    QTest::addRow("text") << "apple" << "" << -1 << QList<int>{0, 2};
    QTest::addRow("text-is-case-sensitive") << "APPLE" << "" << -1 << QList<int>{};
    QTest::addRow("text-with-quotes-and-keys") << R"("kind":"pear")" << "" << -1 << QList<int>{1};
    QTest::addRow("text-not-in-envelope") << "alice" << "" << -1 << QList<int>{};
    QTest::addRow("header-value") << "" << "region:eu" << -1 << QList<int>{0, 1};
    QTest::addRow("header-number-value") << "" << "attempt:3" << -1 << QList<int>{2};
    QTest::addRow("header-present") << "" << "attempt" << -1 << QList<int>{1, 2};
    QTest::addRow("header-missing") << "" << "region:us" << -1 << QList<int>{};
    QTest::addRow("id") << "" << "" << 1 << QList<int>{1};
    QTest::addRow("all-of-them") << "apple" << "region:eu" << 0 << QList<int>{0};
    QTest::addRow("id-and-other-text") << "pear" << "" << 0 << QList<int>{};
}

void TestMessageBrokerAdmin::browseFilter()
{
    QFETCH(QString, text);
    QFETCH(QString, header);
    QFETCH(int, idOf);
    QFETCH(QList<int>, expected);

    EngineFixture f;
    QVERIFY(f.create(QStringLiteral("q")));
    const QList<QPair<QByteArray, const char *>> messages{
        {R"({"kind":"apple","n":1})", R"({"region":"eu"})"},
        {R"({"kind":"pear","n":2})", R"({"region":"eu","attempt":1})"},
        {R"(["apple pie"])", R"({"attempt":3})"},
        {R"("plain text")", "{}"},
    };
    QList<QString> ids;
    for (const auto &[data, headers] : messages) {
        NewMessage message;
        message.data = data;
        message.headers = jsonObject(headers);
        Captured<PublishResult> c;
        f.broker.publish(QStringLiteral("q"), {message}, QStringLiteral("alice"), c.sink());
        ids.append(c.take()->messageIds().first());
    }

    BrowseQuery query;
    query.text = text;
    if (!header.isEmpty()) {
        const qsizetype colon = header.indexOf(u':');
        query.headerKey = colon < 0 ? header : header.left(colon);
        if (colon >= 0)
            query.headerValue = header.mid(colon + 1);
    }
    if (idOf >= 0)
        query.id = ids[idOf];
    const Result<BrowsePage> page = f.browse(QStringLiteral("q"), query);
    QVERIFY2(page, page ? "" : qPrintable(page.error().message));
    QList<QString> expectedIds;
    for (int index : expected)
        expectedIds.append(ids[index]);
    QCOMPARE(idsOf(page->messages), expectedIds);
    QCOMPARE(page->total, expected.size());
    QCOMPARE(page->scanned, 4);
    QVERIFY(!page->truncated);

    // Pages of matches: skip one, take one.
    if (expected.size() >= 2) {
        query.offset = 1;
        query.limit = 1;
        const BrowsePage second = *f.browse(QStringLiteral("q"), query);
        QCOMPARE(idsOf(second.messages), QList<QString>{expectedIds[1]});
        QCOMPARE(second.total, expected.size());
        QCOMPARE(second.nextOffset, expected.size() > 2 ? 2 : -1);
    }
}

void TestMessageBrokerAdmin::aFilteredBrowseStopsAtTheScanBound()
{
    EngineFixture f;
    QVERIFY(f.create(QStringLiteral("big"), jsonObject(R"({"max_size":20000})")));
    const qint64 count = BrowseQuery::MaxScan + 5;
    for (qint64 from = 0; from < count; from += 1000) {
        QList<QByteArray> batch;
        for (qint64 i = from; i < qMin(count, from + 1000); ++i)
            batch.append(i == count - 1 ? QByteArray("\"needle\"") : QByteArray::number(i));
        QVERIFY(f.publish(QStringLiteral("big"), batch));
    }
    BrowseQuery query;
    query.text = QStringLiteral("needle");
    const BrowsePage beyond = *f.browse(QStringLiteral("big"), query);
    QVERIFY(beyond.messages.isEmpty()); // the match lies past the bound
    QCOMPARE(beyond.scanned, BrowseQuery::MaxScan);
    QVERIFY(beyond.truncated);

    query.text = QStringLiteral("999");
    const BrowsePage within = *f.browse(QStringLiteral("big"), query);
    QCOMPARE(payloadsOf(within.messages).first(), QByteArray("999"));
    QVERIFY(within.truncated);

    // Unfiltered pages are not bounded: the last message is one page away.
    BrowseQuery last;
    last.offset = count - 1;
    last.limit = 1;
    const BrowsePage tail = *f.browse(QStringLiteral("big"), last);
    QCOMPARE(payloadsOf(tail.messages), QList<QByteArray>{"\"needle\""});
    QCOMPARE(tail.total, count);
    QVERIFY(!tail.truncated);
}

void TestMessageBrokerAdmin::payloadBytesComeBackAsSent()
{
    // Key order, spacing inside strings and escapes are the publisher's: nothing re-sorts them.
    const QByteArray payload = R"({"zeta":1,"alpha":{"y":[3,1,2],"b":"x \"q\" \u00e9"},"mid":null})";
    EngineFixture f;
    const QString q = QStringLiteral("q");
    QVERIFY(f.create(q, jsonObject(R"({"dead_letter_queue":true,"max_deliveries":1})")));
    QVERIFY(f.publish(q, {payload}));
    QVERIFY(f.publish(q, {payload}, QStringLiteral("alice"), 30'000));
    QCOMPARE(f.browse(q, 0, 1)->messages.first().data, payload);
    BrowseQuery delayed;
    delayed.state = MessageState::Delayed;
    QCOMPARE(f.browse(q, delayed)->messages.first().data, payload);
    const Message leased = f.consume(q, 1, false)->first();
    QVERIFY(f.nack(q, leased.id, leased.receipt)->deadLettered);
    BrowseQuery dead;
    dead.state = MessageState::Dead;
    QCOMPARE(f.browse(q, dead)->messages.first().data, payload);
    QVERIFY(f.redrive(q));
    QCOMPARE(f.browse(q, 0, 1)->messages.first().data, payload);
}

void TestMessageBrokerAdmin::streamInFlightShowsPendingEntries()
{
    EngineFixture f;
    QVERIFY(f.create(QStringLiteral("s"), jsonObject(R"({"type":"stream"})")));
    QVERIFY(f.publish(QStringLiteral("s"), numbers(1, 3)));
    const QList<Message> leased = *f.consume(QStringLiteral("s"), 2, false, 0, QStringLiteral("billing"), QStringLiteral("b1"));
    BrowseQuery query;
    query.state = MessageState::InFlight;
    const BrowsePage page = *f.browse(QStringLiteral("s"), query);
    QCOMPARE(payloadsOf(page.messages), numbers(1, 2));
    QCOMPARE(page.messages.first().group, QStringLiteral("billing"));
    QCOMPARE(page.messages.first().leaseDeadlineMs, leased.first().leaseDeadlineMs);
    QCOMPARE(page.messages.first().deliveryCount, 1);
    query.state = MessageState::Delayed;
    QCOMPARE(f.browse(QStringLiteral("s"), query)->total, 0);
}

QTEST_GUILESS_MAIN(TestMessageBrokerAdmin)
#include "tst_messagebroker_admin.moc"
