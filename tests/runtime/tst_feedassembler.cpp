// SPDX-License-Identifier: GPL-3.0-or-later
// FeedAssembler: an event stream's bytes into snapshots. A whole table arriving in parts shows
// once it is complete, deltas change and remove queues, message events are capped at the newest,
// gaps are counted, one snapshot per interval however much arrives, and flush() hands out at once
// what came, with the last event id.
#include "runtime/feedassembler.h"

#include <QSignalSpy>
#include <QTest>

using namespace Broker;

namespace {

QByteArray sseEvent(const char *type, const QByteArray &json, const QByteArray &id = {})
{
    return "event: " + QByteArray(type) + "\n" + (id.isEmpty() ? QByteArray() : "id: " + id + "\n") + "data: " + json + "\n\n";
}

QByteArray queue(const char *name, int depth)
{
    return R"({"name":")" + QByteArray(name) + R"(","message_count":)" + QByteArray::number(depth) + "}";
}

} // namespace

class TestFeedAssembler : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void aTableInPartsShowsWhole()
    {
        FeedAssembler assembler(10'000); // no timer-driven snapshots: flush() decides
        QSignalSpy spy(&assembler, &FeedAssembler::assembled);
        assembler.feed(sseEvent("queues", R"({"full":true,"more":true,"queues":[)" + queue("a", 1) + "]}"));
        assembler.flush();
        QCOMPARE(spy.size(), 1);
        QCOMPARE(spy.at(0).at(0).value<BrokerSnapshot>().queues.size(), 0); // half a table is not shown
        QVERIFY(spy.at(0).at(3).toBool());
        assembler.feed(sseEvent("queues", R"({"more":false,"queues":[)" + queue("b", 2) + "]}", "5-3"));
        assembler.flush();
        const BrokerSnapshot whole = spy.at(1).at(0).value<BrokerSnapshot>();
        QCOMPARE(whole.queues.size(), 2);
        QCOMPARE(whole.queues[0].name, "a");
        QCOMPARE(whole.queues[1].depth, 2);
        QCOMPARE(spy.at(1).at(1).toByteArray(), "5-3");

        // A delta changes one and removes another.
        assembler.feed(sseEvent("queues", R"({"removed":["a"],"queues":[)" + queue("b", 7) + "]}", "5-4"));
        assembler.flush();
        const BrokerSnapshot delta = spy.at(2).at(0).value<BrokerSnapshot>();
        QCOMPARE(delta.queues.size(), 1);
        QCOMPARE(delta.queues[0].depth, 7);
        QCOMPARE(spy.at(2).at(1).toByteArray(), "5-4");
    }

    void messageEventsAreCappedAtTheNewestAndGapsCounted()
    {
        FeedAssembler assembler(10'000);
        QSignalSpy spy(&assembler, &FeedAssembler::assembled);
        QByteArray stream;
        for (int i = 1; i <= FeedAssembler::MaxEventsPerSnapshot + 5; ++i) {
            stream += sseEvent("message", R"({"number":)" + QByteArray::number(i)
                                           + R"(,"event":"published","queue":"q","message_id":")" + QByteArray::number(i) + R"("})");
        }
        stream += sseEvent("gap", R"({"missed":12})");
        assembler.feed(stream);
        assembler.flush();
        QCOMPARE(spy.size(), 1);
        const BrokerSnapshot snapshot = spy.at(0).at(0).value<BrokerSnapshot>();
        QCOMPARE(snapshot.recentEvents.size(), FeedAssembler::MaxEventsPerSnapshot);
        QCOMPARE(snapshot.recentEvents.last().number, quint64(FeedAssembler::MaxEventsPerSnapshot + 5));
        QCOMPARE(spy.at(0).at(2).toLongLong(), 12);
        assembler.flush(); // the events went out once
        QCOMPARE(spy.at(1).at(0).value<BrokerSnapshot>().recentEvents.size(), 0);
    }

    void oneSnapshotPerInterval()
    {
        FeedAssembler assembler(100);
        QSignalSpy spy(&assembler, &FeedAssembler::assembled);
        for (int i = 0; i < 50; ++i)
            assembler.feed(sseEvent("queues", R"({"queues":[)" + queue("a", i) + "]}"));
        QTRY_COMPARE(spy.size(), 1);
        QCOMPARE(spy.at(0).at(0).value<BrokerSnapshot>().queues.first().depth, 49);
        QVERIFY(!spy.at(0).at(3).toBool()); // from the interval, not a flush
        QTest::qWait(300);
        QCOMPARE(spy.size(), 1); // nothing new: nothing sent
    }
};

QTEST_GUILESS_MAIN(TestFeedAssembler)
#include "tst_feedassembler.moc"
