// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/eventlog.h"

#include <QTest>

using namespace Broker;

class TestEventLog : public QObject
{
    Q_OBJECT

private:
    static MessageEvent event(const QString &queue, quint64 sequence, MessageEventKind kind, qint64 timeMs)
    {
        MessageEvent e;
        e.queue = queue;
        e.sequence = sequence;
        e.kind = kind;
        e.timeMs = timeMs;
        return e;
    }

private Q_SLOTS:
    void lifecycleCrossesQueues();
    void perQueueRingIsBounded();
    void sinceReturnsOnlyNewerEvents();
    void keepsWhatABoundedListKeeps_data();
    void keepsWhatABoundedListKeeps();
};

void TestEventLog::lifecycleCrossesQueues()
{
    EventLog log(100, 100);
    log.append(event("a", 1, MessageEventKind::Published, 10));
    log.append(event("a", 2, MessageEventKind::Published, 11));
    log.append(event("a", 1, MessageEventKind::DeadLettered, 12));
    log.append(event("a.dlq", 1, MessageEventKind::Delivered, 13));
    const QList<MessageEvent> life = log.lifecycle(1);
    QCOMPARE(life.size(), 3);
    QCOMPARE(life[0].kind, MessageEventKind::Published);
    QCOMPARE(life[2].queue, "a.dlq");
    QCOMPARE(life[2].number, 4u);
    log.forgetQueue("a");
    QCOMPARE(log.lifecycle(1).size(), 1);
}

void TestEventLog::perQueueRingIsBounded()
{
    EventLog log(3, 100);
    for (quint64 i = 1; i <= 10; ++i)
        log.append(event("q", i, MessageEventKind::Published, qint64(i)));
    const QList<MessageEvent> kept = log.queueEvents("q", 100);
    QCOMPARE(kept.size(), 3);
    QCOMPARE(kept.first().sequence, 8u);
    QCOMPARE(log.queueEvents("q", 2).first().sequence, 9u);
    QVERIFY(log.lifecycle(1).isEmpty());
}

void TestEventLog::sinceReturnsOnlyNewerEvents()
{
    EventLog log(10, 5);
    for (quint64 i = 1; i <= 8; ++i)
        log.append(event("q", i, MessageEventKind::Published, qint64(i)));
    QCOMPARE(log.lastNumber(), 8u);
    QCOMPARE(log.since(6, 100).size(), 2);
    QCOMPARE(log.since(6, 100).first().number, 7u);
    QCOMPARE(log.since(0, 100).size(), 5); // only 5 kept
    QCOMPARE(log.since(0, 100).first().number, 4u);
    QCOMPARE(log.since(0, 2).first().number, 7u); // the newest win
    QVERIFY(log.since(8, 100).isEmpty());
}

void TestEventLog::keepsWhatABoundedListKeeps_data()
{
    QTest::addColumn<int>("perQueue");
    QTest::addColumn<int>("recent");
    QTest::addColumn<int>("appends");
    QTest::addRow("not-full") << 5 << 7 << 4;
    QTest::addRow("exactly-full") << 5 << 5 << 5;
    QTest::addRow("wrapped-once") << 3 << 4 << 6;
    QTest::addRow("wrapped-many") << 3 << 7 << 100;
    QTest::addRow("capacity-one") << 1 << 1 << 9;
    QTest::addRow("nothing-kept") << 0 << 0 << 9;
}

void TestEventLog::keepsWhatABoundedListKeeps()
{
    // The rings must keep exactly the newest events, oldest first, whatever the wrap-around: the
    // same as a plain list that drops its first element when it grows past its capacity.
    QFETCH(int, perQueue);
    QFETCH(int, recent);
    QFETCH(int, appends);
    EventLog log(perQueue, recent);
    QList<quint64> byQueue[2];
    QList<quint64> all;
    for (int i = 1; i <= appends; ++i) {
        const int queue = i % 3 == 0 ? 1 : 0;
        log.append(event(queue == 0 ? "a" : "b", quint64(i), MessageEventKind::Published, i));
        byQueue[queue].append(quint64(i));
        if (byQueue[queue].size() > perQueue)
            byQueue[queue].removeFirst();
        all.append(quint64(i));
        if (all.size() > recent)
            all.removeFirst();
    }
    const auto numbers = [](const QList<MessageEvent> &events) {
        QList<quint64> out;
        for (const MessageEvent &e : events)
            out.append(e.number);
        return out;
    };
    QCOMPARE(numbers(log.queueEvents("a", 1000)), byQueue[0]);
    QCOMPARE(numbers(log.queueEvents("b", 1000)), byQueue[1]);
    if (!byQueue[0].isEmpty())
        QCOMPARE(numbers(log.queueEvents("a", 2)), byQueue[0].mid(qMax(0, byQueue[0].size() - 2)));
    QCOMPARE(log.oldestKeptNumber(), all.isEmpty() ? 0u : all.first());
    QCOMPARE(numbers(log.since(0, 1000)), all);
    QCOMPARE(numbers(log.after(0, 1000)), all);
    if (all.size() > 2) {
        QCOMPARE(numbers(log.after(all[0], 1)), QList<quint64>{all[1]});
        QCOMPARE(numbers(log.since(all[0], 1)), QList<quint64>{all.last()});
    }
    const quint64 newest = quint64(appends);
    const QList<MessageEvent> life = log.lifecycle(newest);
    QCOMPARE(life.size(), perQueue > 0 ? 1 : 0);
}

QTEST_APPLESS_MAIN(TestEventLog)
#include "tst_eventlog.moc"
