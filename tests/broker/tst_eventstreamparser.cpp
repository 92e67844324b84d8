// SPDX-License-Identifier: GPL-3.0-or-later
// The Server-Sent Events parser: events cut anywhere (in a line, between CR and LF), every line
// ending, ids that carry over and resume, comments, multi-line data, and a long line arriving in
// many small pieces.
#include "core/eventstreamparser.h"

#include <QTest>

using namespace Broker;

class TestEventStreamParser : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void eventsCutAnywhereComeOutWhole_data()
    {
        QTest::addColumn<QByteArray>("stream");
        QTest::addRow("lf") << QByteArray("event: queues\ndata: {\"a\":1}\nid: 7-1\n\n: heartbeat\n\ndata: two\ndata: lines\n\n");
        QTest::addRow("crlf") << QByteArray("event: queues\r\ndata: {\"a\":1}\r\nid: 7-1\r\n\r\n: heartbeat\r\n\r\ndata: two\r\ndata: lines\r\n\r\n");
        QTest::addRow("cr") << QByteArray("event: queues\rdata: {\"a\":1}\rid: 7-1\r\r: heartbeat\r\rdata: two\rdata: lines\r\r:\r"); // a CR last waits for what follows
    }

    void eventsCutAnywhereComeOutWhole()
    {
        QFETCH(QByteArray, stream);
        for (qsizetype piece = 1; piece <= stream.size(); ++piece) {
            EventStreamParser parser;
            QList<StreamEvent> events;
            for (qsizetype at = 0; at < stream.size(); at += piece)
                events += parser.feed(stream.mid(at, piece));
            QCOMPARE(events.size(), 2);
            QCOMPARE(events[0].type, "queues");
            QCOMPARE(events[0].data, R"({"a":1})");
            QCOMPARE(events[0].lastEventId, "7-1");
            QCOMPARE(events[1].type, "message");
            QCOMPARE(events[1].data, "two\nlines");
            QCOMPARE(events[1].lastEventId, "7-1"); // carried over
            QCOMPARE(parser.lastEventId(), "7-1");
        }
    }

    void aLongLineInManyPiecesIsWhole()
    {
        QByteArray data(300'000, 'x');
        const QByteArray stream = "event: queues\ndata: " + data + "\n\n";
        EventStreamParser parser;
        QList<StreamEvent> events;
        for (qsizetype at = 0; at < stream.size(); at += 4096)
            events += parser.feed(stream.mid(at, 4096));
        QCOMPARE(events.size(), 1);
        QCOMPARE(events[0].data.size(), data.size());
        QCOMPARE(events[0].data, data);
    }

    void resetDropsAHalfEventButKeepsTheId()
    {
        EventStreamParser parser;
        const QList<StreamEvent> first = parser.feed("id: 3-9\ndata: whole\n\ndata: half");
        QCOMPARE(first.size(), 1);
        QCOMPARE(first[0].data, "whole");
        parser.reset(); // a new connection
        const QList<StreamEvent> events = parser.feed("\n\ndata: next\n\n");
        QCOMPARE(events.size(), 1);
        QCOMPARE(events[0].data, "next");
        QCOMPARE(parser.lastEventId(), "3-9");
    }

    void anIdTakesEffectWithItsEvent()
    {
        // The broker writes id: before data:. A connection that drops inside an event must resume
        // from the event before it, so that the cut one is sent again.
        EventStreamParser parser;
        QCOMPARE(parser.feed("id: 7-41\ndata: a\n\nid: 7-42\ndata: {\"cut").size(), 1);
        QCOMPARE(parser.lastEventId(), "7-41");
        parser.reset();
        QCOMPARE(parser.feed("id: 7-42\ndata: b\n\n").first().lastEventId, "7-42");
        QCOMPARE(parser.lastEventId(), "7-42");
    }

    void idsWithNulAreIgnoredAndRetryIsKept()
    {
        EventStreamParser parser;
        static const char stream[] = "id: good\ndata: a\n\nid: b\0d\nretry: 2500\ndata: b\n\n";
        QCOMPARE(parser.feed(QByteArray(stream, sizeof stream - 1)).size(), 2);
        QCOMPARE(parser.lastEventId(), "good");
        QCOMPARE(parser.retryMs(), 2500);
    }
};

QTEST_APPLESS_MAIN(TestEventStreamParser)
#include "tst_eventstreamparser.moc"
