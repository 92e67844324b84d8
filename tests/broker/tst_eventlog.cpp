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

QTEST_APPLESS_MAIN(TestEventLog)
#include "tst_eventlog.moc"
