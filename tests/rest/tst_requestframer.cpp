// SPDX-License-Identifier: GPL-3.0-or-later
#include "rest/requestframer.h"

#include <QRandomGenerator>
#include <QTest>

using namespace Broker::Rest;

class TestRequestFramer : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void frames_data();
    void frames();
    void bytewiseFeedingGivesTheSameAnswer();
    void pipelinedRequestsAreSeparated();
    void randomInputNeverCrashesOrOverruns();
};

void TestRequestFramer::frames_data()
{
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<int>("status"); // 0 need more, 200 complete, else the refusal
    QTest::addColumn<qsizetype>("length");

    const QByteArray get = "GET /health HTTP/1.1\r\nHost: x\r\n\r\n";
    QTest::addRow("get") << get << 200 << get.size();
    QTest::addRow("bare-lf-head") << QByteArray("GET / HTTP/1.1\nHost: x\n\n") << 400 << qsizetype(0);
    QTest::addRow("bare-lf-field") << QByteArray("GET / HTTP/1.1\r\nHost: x\nA: b\r\n\r\n") << 400 << qsizetype(0);
    QTest::addRow("bare-lf-end") << QByteArray("GET / HTTP/1.1\r\nHost: x\r\n\n") << 400 << qsizetype(0);
    QTest::addRow("bare-cr") << QByteArray("GET / HTTP/1.1\rHost: x\r\n\r\n") << 400 << qsizetype(0);
    QTest::addRow("cr-cr-lf") << QByteArray("GET / HTTP/1.1\r\r\nHost: x\r\n\r\n") << 400 << qsizetype(0);
    QTest::addRow("bare-cr-unfinished-line") << QByteArray("GET / HTTP/1.1\r\nHost: x\ry") << 400 << qsizetype(0);
    QTest::addRow("cr-last-byte") << QByteArray("GET / HTTP/1.1\r\nHost: x\r") << 0 << qsizetype(0);
    QTest::addRow("leading-empty-lines") << QByteArray("\r\n\r\nGET / HTTP/1.1\r\n\r\n") << 200 << qsizetype(22);
    QTest::addRow("partial-head") << QByteArray("GET /health HTTP/1.1\r\nHo") << 0 << qsizetype(0);
    QTest::addRow("body") << QByteArray("POST /q HTTP/1.1\r\nContent-Length: 3\r\n\r\nabcEXTRA") << 200 << qsizetype(42);
    QTest::addRow("partial-body") << QByteArray("POST /q HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc") << 0 << qsizetype(0);
    QTest::addRow("chunked") << QByteArray("POST /q HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n")
                             << 200 << qsizetype(61);
    QTest::addRow("chunked-ext-trailer") << QByteArray("POST /q HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3;x=1\r\nabc\r\n0\r\nT: v\r\n\r\n")
                                         << 200 << qsizetype(71);
    const QByteArray chunkedHead = "POST /q HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n";
    QTest::addRow("chunk-size-0x") << QByteArray(chunkedHead + "0xd\r\nabcdefghijklm\r\n0\r\n\r\n") << 400 << qsizetype(0);
    QTest::addRow("chunk-size-plus") << QByteArray(chunkedHead + "+d\r\nabcdefghijklm\r\n0\r\n\r\n") << 400 << qsizetype(0);
    QTest::addRow("chunk-size-minus") << QByteArray(chunkedHead + "-1\r\na\r\n0\r\n\r\n") << 400 << qsizetype(0);
    QTest::addRow("chunk-size-space") << QByteArray(chunkedHead + " 3\r\nabc\r\n0\r\n\r\n") << 400 << qsizetype(0);
    QTest::addRow("chunk-size-empty") << QByteArray(chunkedHead + "\r\nabc\r\n0\r\n\r\n") << 400 << qsizetype(0);
    QTest::addRow("chunk-size-bws-ext") << QByteArray(chunkedHead + "3 ;x\r\nabc\r\n0\r\n\r\n") << 200 << qsizetype(64);
    QTest::addRow("chunk-data-no-crlf") << QByteArray(chunkedHead + "3\r\nabcXY0\r\n\r\n") << 400 << qsizetype(0);
    QTest::addRow("chunk-data-lf-only") << QByteArray(chunkedHead + "3\r\nabc\n0\r\n\r\n") << 400 << qsizetype(0);
    QTest::addRow("chunk-line-bare-lf") << QByteArray(chunkedHead + "3\nabc\r\n0\r\n\r\n") << 400 << qsizetype(0);
    QTest::addRow("chunk-last-bare-lf") << QByteArray(chunkedHead + "3\r\nabc\r\n0\r\n\n") << 400 << qsizetype(0);
    QTest::addRow("chunk-uppercase-hex") << QByteArray(chunkedHead + "A\r\n0123456789\r\n0\r\n\r\n") << 200
                                         << qsizetype(68);
    QTest::addRow("too-long-body") << QByteArray("POST /q HTTP/1.1\r\nContent-Length: 1025\r\n\r\n") << 413 << qsizetype(0);
    QTest::addRow("chunked-too-long") << QByteArray("POST /q HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n401\r\n") << 413
                                      << qsizetype(0);
    QTest::addRow("too-many-fields") << QByteArray("GET / HTTP/1.1\r\n" + QByteArray("A: b\r\n").repeated(11) + "\r\n") << 431
                                     << qsizetype(0);
    QTest::addRow("head-too-big") << QByteArray("GET / HTTP/1.1\r\nA: " + QByteArray(600, 'x')) << 431 << qsizetype(0);
    QTest::addRow("both-lengths") << QByteArray("POST /q HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n")
                                  << 400 << qsizetype(0);
    QTest::addRow("two-lengths") << QByteArray("POST /q HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n") << 400
                                 << qsizetype(0);
    QTest::addRow("signed-length") << QByteArray("POST /q HTTP/1.1\r\nContent-Length: +3\r\n\r\n") << 400 << qsizetype(0);
    QTest::addRow("gzip-coding") << QByteArray("POST /q HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n") << 501 << qsizetype(0);
    QTest::addRow("unknown-method") << QByteArray("BREW /pot HTTP/1.1\r\n\r\n") << 501 << qsizetype(0);
    QTest::addRow("http2") << QByteArray("GET / HTTP/2.0\r\n\r\n") << 505 << qsizetype(0);
    QTest::addRow("garbage") << QByteArray("hello\r\n\r\n") << 400 << qsizetype(0);
    QTest::addRow("folded") << QByteArray("GET / HTTP/1.1\r\nA: b\r\n c\r\n\r\n") << 400 << qsizetype(0);
    QTest::addRow("control-char") << QByteArray("GET / HTTP/1.1\r\nA: b\x01\r\n\r\n") << 400 << qsizetype(0);
    QTest::addRow("expect-other") << QByteArray("GET / HTTP/1.1\r\nExpect: x\r\n\r\n") << 417 << qsizetype(0);
}

void TestRequestFramer::frames()
{
    QFETCH(QByteArray, input);
    QFETCH(int, status);
    QFETCH(qsizetype, length);
    HttpLimits limits;
    limits.maxBodyBytes = 1024;
    limits.maxHeaderBytes = 512;
    limits.maxHeaderFields = 10;
    RequestFramer framer(limits);
    const RequestFramer::Status result = framer.progress(input);
    if (status == 0) {
        QCOMPARE(result, RequestFramer::Status::NeedMore);
    } else if (status == 200) {
        QCOMPARE(result, RequestFramer::Status::Complete);
        QCOMPARE(framer.messageBytes(), length);
    } else {
        QCOMPARE(result, RequestFramer::Status::Error);
        QCOMPARE(framer.errorStatus(), status);
    }
}

void TestRequestFramer::bytewiseFeedingGivesTheSameAnswer()
{
    const QByteArray request = "POST /q HTTP/1.1\r\nExpect: 100-continue\r\nConnection: close\r\n"
                               "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n";
    RequestFramer framer(HttpLimits{});
    QByteArray buffer;
    for (qsizetype i = 0; i < request.size() - 1; ++i) {
        buffer += request[i];
        QCOMPARE(framer.progress(buffer), RequestFramer::Status::NeedMore);
    }
    buffer += request.back();
    QCOMPARE(framer.progress(buffer), RequestFramer::Status::Complete);
    QCOMPARE(framer.messageBytes(), request.size());
    QVERIFY(framer.head().expectContinue);
    QVERIFY(!framer.head().keepAlive);
    QVERIFY(framer.head().chunked);
    QCOMPARE(framer.body(buffer), QByteArray("hello world")); // decoded
    QCOMPARE(framer.head().field("EXPECT"), QByteArrayView("100-continue"));
    QCOMPARE(framer.head().fieldCount(), 3);
}

void TestRequestFramer::pipelinedRequestsAreSeparated()
{
    const QByteArray first = "POST /a HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi";
    const QByteArray second = "GET /b HTTP/1.0\r\n\r\n";
    QByteArray buffer = first + second;
    RequestFramer one(HttpLimits{});
    QCOMPARE(one.progress(buffer), RequestFramer::Status::Complete);
    QCOMPARE(one.messageBytes(), first.size());
    buffer.remove(0, one.messageBytes());
    RequestFramer two(HttpLimits{});
    QCOMPARE(two.progress(buffer), RequestFramer::Status::Complete);
    QCOMPARE(two.head().target(), QByteArrayView("/b"));
    QVERIFY(!two.head().keepAlive); // HTTP/1.0 without keep-alive
}

void TestRequestFramer::randomInputNeverCrashesOrOverruns()
{
    // Mutated requests fed in random pieces: the framer answers, never reads past the buffer, and
    // a complete message never claims more bytes than it was given.
    const QByteArray seed = "POST /messages/q HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                            "5\r\nhello\r\n0\r\n\r\nGET / HTTP/1.1\r\nContent-Length: 2\r\n\r\nhi";
    QRandomGenerator random(42);
    HttpLimits limits;
    limits.maxBodyBytes = 64;
    limits.maxHeaderBytes = 256;
    limits.maxHeaderFields = 8;
    int completed = 0;
    for (int round = 0; round < 5000; ++round) {
        QByteArray input = seed;
        for (int e = 0; e < 3; ++e)
            input[qsizetype(random.bounded(int(input.size())))] = char(random.bounded(256));
        RequestFramer framer(limits);
        QByteArray buffer;
        RequestFramer::Status status = RequestFramer::Status::NeedMore;
        for (qsizetype pos = 0; pos < input.size() && status == RequestFramer::Status::NeedMore;) {
            const qsizetype piece = 1 + qsizetype(random.bounded(16));
            buffer += input.mid(pos, piece);
            pos += piece;
            status = framer.progress(buffer);
        }
        if (status == RequestFramer::Status::Complete) {
            ++completed;
            QVERIFY(framer.messageBytes() > 0);
            QVERIFY(framer.messageBytes() <= buffer.size());
        } else if (status == RequestFramer::Status::Error) {
            QVERIFY(framer.errorStatus() >= 400);
        }
    }
    QVERIFY(completed > 100);
}

QTEST_APPLESS_MAIN(TestRequestFramer)
#include "tst_requestframer.moc"
