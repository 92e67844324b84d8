// SPDX-License-Identifier: GPL-3.0-or-later
// How the Redis store writes messages: body and headers come back byte for byte, and the fields
// its Lua scripts read without decoding are where they expect them.
#include "storage/redismessage.h"

#include <QJsonDocument>
#include <QTest>

using namespace Broker;

class TestRedisMessage : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void roundTrip_data();
    void roundTrip();
    void scriptsFindIdAndTtlStartFirst();
    void otherWritersLayoutsRead();
    void foreignBytesAreRefused();
};

void TestRedisMessage::roundTrip_data()
{
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QString>("publisher");
    QTest::addRow("number") << QByteArray("12345678901234567890") << "alice";
    QTest::addRow("quotes-and-backslashes") << QByteArray(R"({"a":"say \"hi\" \\ there"})") << "bob";
    QTest::addRow("escaped-control") << QByteArray(R"("tab\there\nnewline\u0001")") << "carol";
    QTest::addRow("unicode") << QByteArray("\"z\xc3\xbcrich \xe2\x82\xac \xf0\x9f\x9a\x80\"") << "d\xc3\xa9nise";
    QTest::addRow("nested") << QByteArray(R"({"order":{"items":[1,2.50,true,null],"note":""}})") << "svc";
}

void TestRedisMessage::roundTrip()
{
    QFETCH(QByteArray, body);
    QFETCH(QString, publisher);
    NewMessage in;
    in.data = body;
    in.priority = -7;
    in.headers = QJsonDocument::fromJson(R"({"trace":"a\"b","n":3,"braces":"}{\\","o":{"x":[1]}})").object();
    const QByteArray stored = RedisMessage::encode(0xff, 1'767'225'600'123'456, in, publisher.toUtf8());
    QVERIFY(QJsonDocument::fromJson(stored).isObject()); // valid JSON for any Redis tool
    Message out;
    QVERIFY(RedisMessage::decode(stored, "q", out));
    QCOMPARE(out.data, body);
    QCOMPARE(out.id, QString("msg-00000000000000ff"));
    QCOMPARE(out.publisher, publisher);
    QCOMPARE(out.priority, -7);
    QCOMPARE(out.headers, in.headers);
    QCOMPARE(out.timestamp, 1'767'225'600.123456);
    QCOMPARE(out.queue, QString("q"));
    QVERIFY(out.originQueue.isEmpty());
}

void TestRedisMessage::scriptsFindIdAndTtlStartFirst()
{
    NewMessage in;
    in.data = "1";
    in.priority = 4;
    const QByteArray stored = RedisMessage::encode(1, 2'000'000'000, in, "p");
    QVERIFY2(stored.startsWith(R"({"id":"msg-0000000000000001","ts":2000000,"pr":4,)"), stored.constData());
    QCOMPARE(RedisMessage::idOf(stored), QString("msg-0000000000000001"));
    // What the scripts make of a dead-lettered message reads back as one.
    const QByteArray deadLettered = R"({"id":"msg-0000000000000001","ts":5,"dl":{"q":"orders","r":"expired","at":5000},)"
        + stored.mid(stored.indexOf("\"pr\""));
    Message out;
    QVERIFY(RedisMessage::decode(deadLettered, "orders.dlq", out));
    QCOMPARE(out.originQueue, QString("orders"));
    QCOMPARE(out.deadLetterReason, QString("expired"));
    QCOMPARE(out.deadLetteredAt, 5.0);
    QCOMPARE(out.data, QByteArray("1"));
}

void TestRedisMessage::otherWritersLayoutsRead()
{
    // Fields in another order, with spaces: read as any JSON object.
    Message out;
    QVERIFY(RedisMessage::decode(R"({ "d": "[1, 2]", "id": "msg-0000000000000002", "t": 1500000, "pr": 2 })", "q", out));
    QCOMPARE(out.id, QString("msg-0000000000000002"));
    QCOMPARE(out.data, QByteArray("[1, 2]"));
    QCOMPARE(out.priority, 2);
    QCOMPARE(out.timestamp, 1.5);
    // The stored layout with escapes another JSON writer makes (\u for non-ASCII, \/).
    Message escaped;
    QVERIFY(RedisMessage::decode(
        R"({"id":"msg-0000000000000003","ts":1,"pr":0,"t":2,"p":"d\u00e9nise","h":{},"d":"\"\ud83d\ude80 a\/b\""})", "q",
        escaped));
    QCOMPARE(escaped.data, QByteArray("\"\xf0\x9f\x9a\x80 a/b\""));
    QCOMPARE(escaped.publisher, QString::fromUtf8("d\xc3\xa9nise"));
    QVERIFY(escaped.headers.isEmpty());
}

void TestRedisMessage::foreignBytesAreRefused()
{
    Message out;
    NewMessage in;
    in.data = R"({"a":"b"})";
    const QByteArray stored = RedisMessage::encode(1, 2'000'000'000, in, "p");
    for (qsizetype cut = 1; cut < stored.size(); ++cut)
        QVERIFY2(!RedisMessage::decode(stored.left(cut), "q", out), stored.left(cut).constData());
    QVERIFY(!RedisMessage::decode("not json", "q", out));
    QVERIFY(!RedisMessage::decode(R"({"id":"x","d":{"not":"a string"}})", "q", out));
    QVERIFY(RedisMessage::idOf("plain").isEmpty());
}

QTEST_APPLESS_MAIN(TestRedisMessage)
#include "tst_redismessage.moc"
