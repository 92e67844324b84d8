// SPDX-License-Identifier: GPL-3.0-or-later
// The RESP codec alone: commands formatted byte for byte as hiredis formats them, and replies
// read into RedisReply values whole, in pieces, nested, and refused when damaged or too large.
#include "redis/respcodec.h"

#include <hiredis/hiredis.h>

#include <QTest>

#include <limits>

using namespace Broker::Redis;

class TestRespCodec : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void commandAsHiredisFormatsIt_data();
    void commandAsHiredisFormatsIt();
    void commandAppendsToWhatIsThere();
    void decimalIsQByteArrayNumber();
    void readsEveryType();
    void readsNestedArraysByteByByte();
    void readsSeveralRepliesFromOneFeed();
    void protocolErrorStopsTheReader();
    void boundRefusesAnOverlongReply();
    void arrayHeaderCostsNothingUntilItsElementsCome();
    void anArrayWhoseElementsNeverEndIsRefused();
    void anArrayOverTheBoundInOneFeedIsRefusedWhileRead();
    void theBoundIsPerReply();
};

namespace {

QByteArray hiredisFormat(const QByteArrayList &args)
{
    std::vector<const char *> argv;
    std::vector<size_t> lengths;
    for (const QByteArray &arg : args) {
        argv.push_back(arg.constData());
        lengths.push_back(size_t(arg.size()));
    }
    char *formatted = nullptr;
    const int length = redisFormatCommandArgv(&formatted, int(argv.size()), argv.data(), lengths.data());
    const QByteArray out(formatted, length);
    redisFreeCommand(formatted);
    return out;
}

RedisReply readOne(const QByteArray &bytes)
{
    RespReader reader(1 << 20);
    if (!reader.feed(bytes))
        return {};
    return reader.next().value_or(RedisReply{});
}

} // namespace

void TestRespCodec::commandAsHiredisFormatsIt_data()
{
    QTest::addColumn<QByteArrayList>("args");
    QTest::addRow("ping") << QByteArrayList{"PING"};
    QTest::addRow("empty-argument") << QByteArrayList{"SET", "k", ""};
    QTest::addRow("binary-with-crlf-and-nul") << QByteArrayList{"SET", "k", QByteArray("a\r\n\0b", 5)};
    QByteArrayList many{"FCALL", "f", "12"};
    for (int i = 0; i < 12; ++i)
        many << QByteArray("{queue}:") + QByteArray::number(i);
    QTest::addRow("twelve-keys") << many;
    QTest::addRow("large-value") << QByteArrayList{"LPUSH", "q", QByteArray(1'000'003, 'x')};
}

void TestRespCodec::commandAsHiredisFormatsIt()
{
    QFETCH(QByteArrayList, args);
    QByteArray out;
    QVERIFY(appendCommand(out, args));
    QCOMPARE(out, hiredisFormat(args));
}

void TestRespCodec::commandAppendsToWhatIsThere()
{
    QByteArray out = "*1\r\n$4\r\nPING\r\n";
    QVERIFY(appendCommand(out, {"GET", "k"}));
    QCOMPARE(out, QByteArray("*1\r\n$4\r\nPING\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"));
}

void TestRespCodec::decimalIsQByteArrayNumber()
{
    // The shared small ones and the made ones, across the edge and beyond.
    for (const qint64 n : {qint64(0), qint64(1), qint64(9), qint64(10), qint64(63), qint64(64), qint64(-1),
                           qint64(30'000), std::numeric_limits<qint64>::max(), std::numeric_limits<qint64>::min()})
        QCOMPARE(decimal(n), QByteArray::number(n));
}

void TestRespCodec::readsEveryType()
{
    const RedisReply status = readOne("+OK\r\n");
    QCOMPARE(status.type, RedisReply::Type::Status);
    QVERIFY(status.isText("OK"));
    const RedisReply error = readOne("-NOSCRIPT No matching script\r\n");
    QVERIFY(error.isError());
    QCOMPARE(error.errorCode(), QByteArray("NOSCRIPT"));
    const RedisReply integer = readOne(":-42\r\n");
    QCOMPARE(integer.type, RedisReply::Type::Integer);
    QCOMPARE(integer.integer, -42);
    const RedisReply bulk = readOne(QByteArray("$5\r\na\r\n\0b\r\n", 11));
    QCOMPARE(bulk.type, RedisReply::Type::String);
    QCOMPARE(bulk.string, QByteArray("a\r\n\0b", 5));
    QCOMPARE(readOne("$0\r\n\r\n").type, RedisReply::Type::String);
    QVERIFY(readOne("$-1\r\n").isNil());
    QVERIFY(readOne("*-1\r\n").isNil());
    const RedisReply empty = readOne("*0\r\n");
    QCOMPARE(empty.type, RedisReply::Type::Array);
    QVERIFY(empty.elements.isEmpty());
}

void TestRespCodec::readsNestedArraysByteByByte()
{
    // A script's reply: [payload, [events...]] with a nil, an integer and an empty array inside.
    const QByteArray bytes = "*3\r\n*2\r\n$2\r\nid\r\n:7\r\n*4\r\n$9\r\nPublished\r\n$-1\r\n*0\r\n+OK\r\n:1\r\n";
    RespReader reader(1024);
    std::optional<RedisReply> reply;
    for (qsizetype i = 0; i < bytes.size(); ++i) {
        QVERIFY(!reply);
        QVERIFY(reader.feed(bytes.mid(i, 1)));
        reply = reader.next();
    }
    QVERIFY(reply);
    QCOMPARE(reply->type, RedisReply::Type::Array);
    QCOMPARE(reply->elements.size(), 3);
    const RedisReply &first = reply->elements[0];
    QCOMPARE(first.elements.size(), 2);
    QCOMPARE(first.elements[0].string, QByteArray("id"));
    QCOMPARE(first.elements[1].integer, 7);
    const RedisReply &events = reply->elements[1];
    QCOMPARE(events.elements.size(), 4);
    QCOMPARE(events.elements[0].string, QByteArray("Published"));
    QVERIFY(events.elements[1].isNil());
    QCOMPARE(events.elements[2].type, RedisReply::Type::Array);
    QVERIFY(events.elements[2].elements.isEmpty());
    QVERIFY(events.elements[3].isText("OK"));
    QCOMPARE(reply->elements[2].integer, 1);
    QCOMPARE(reader.buffered(), 0);
    QVERIFY(!reader.next());
}

void TestRespCodec::readsSeveralRepliesFromOneFeed()
{
    RespReader reader(1024);
    QVERIFY(reader.feed("+OK\r\n:1\r\n*1\r\n$1\r\nx\r\n$3\r\nab"));
    QVERIFY(reader.next()->isText("OK"));
    QCOMPARE(reader.next()->integer, 1);
    QCOMPARE(reader.next()->elements.value(0).string, QByteArray("x"));
    QVERIFY(!reader.next());
    QVERIFY(!reader.failed());
    QVERIFY(reader.feed("c\r\n"));
    QCOMPARE(reader.next()->string, QByteArray("abc"));
}

void TestRespCodec::protocolErrorStopsTheReader()
{
    // Inside an array that is half read: what was made of it is freed (the sanitized build checks).
    RespReader reader(1024);
    QVERIFY(reader.feed("*3\r\n$2\r\nok\r\n*2\r\n:1\r\n?what\r\n"));
    QVERIFY(!reader.next());
    QVERIFY(reader.failed());
    QVERIFY2(reader.error().contains(QLatin1String("Protocol error")), qPrintable(reader.error()));
    QVERIFY(!reader.feed("+OK\r\n"));
    QVERIFY(!reader.next());
}

void TestRespCodec::boundRefusesAnOverlongReply()
{
    RespReader reader(64);
    QVERIFY(reader.feed("$100\r\n"));
    QVERIFY(!reader.next());
    QVERIFY(!reader.feed(QByteArray(80, 'x')));
    QVERIFY(reader.failed());
    QVERIFY2(reader.error().contains(QLatin1String("64 bytes")), qPrintable(reader.error()));
}

void TestRespCodec::arrayHeaderCostsNothingUntilItsElementsCome()
{
    // A header claiming two billion elements: memory only for the ones that came, and the bound
    // on unread bytes ends it as for any other reply.
    RespReader reader(4096);
    QVERIFY(reader.feed("*2000000000\r\n:1\r\n*2\r\n$1\r\na\r\n:2\r\n"));
    QVERIFY(!reader.next());
    QVERIFY(!reader.failed());
    QByteArray more;
    for (int i = 0; i < 2000; ++i) // 8,000 bytes at once: over the bound
        more += ":7\r\n";
    QVERIFY(!reader.feed(more));
    QVERIFY(reader.failed());
    QVERIFY2(reader.error().contains(QLatin1String("4096 bytes")), qPrintable(reader.error()));
}

void TestRespCodec::anArrayWhoseElementsNeverEndIsRefused()
{
    // Elements fed a few at a time, each feed well under the bound on unread bytes: what they take
    // parsed (an integer of 4 bytes is a RedisReply of several times that) is counted too, and
    // ends the reply at the bound rather than when memory runs out.
    RespReader reader(64 * 1024);
    QVERIFY(reader.feed("*2000000000\r\n"));
    QByteArray elements;
    for (int i = 0; i < 500; ++i)
        elements += ":7\r\n";
    int feeds = 0;
    while (feeds < 1000 && reader.feed(elements) && !reader.next() && !reader.failed())
        ++feeds;
    QVERIFY(reader.failed());
    QVERIFY2(reader.error().contains(QLatin1String("65536 bytes")), qPrintable(reader.error()));
    QVERIFY2(feeds * elements.size() < 64 * 1024, qPrintable(QString::number(feeds)));
    QVERIFY(!reader.next());
}

void TestRespCodec::anArrayOverTheBoundInOneFeedIsRefusedWhileRead()
{
    // 5 KiB of elements in one feed, far under the bound as bytes, over it as values: the read
    // stops part-way (hiredis frees what was built) and says why.
    RespReader reader(64 * 1024);
    QByteArray reply = "*1200\r\n";
    for (int i = 0; i < 1200; ++i)
        reply += ":7\r\n";
    QVERIFY(reader.feed(reply));
    QVERIFY(!reader.next());
    QVERIFY(reader.failed());
    QVERIFY2(reader.error().contains(QLatin1String("a reply larger than 65536 bytes")), qPrintable(reader.error()));
    QVERIFY(!reader.feed("+OK\r\n"));
}

void TestRespCodec::theBoundIsPerReply()
{
    // Replies taken out give their share back: many small ones pass a small bound in sum.
    RespReader reader(1024);
    for (int i = 0; i < 200; ++i) {
        QVERIFY(reader.feed("*3\r\n:1\r\n$2\r\nab\r\n:3\r\n"));
        const std::optional<RedisReply> reply = reader.next();
        QVERIFY2(reply, qPrintable(reader.error()));
        QCOMPARE(reply->elements.size(), qsizetype(3));
    }
}

QTEST_APPLESS_MAIN(TestRespCodec)
#include "tst_respcodec.moc"
