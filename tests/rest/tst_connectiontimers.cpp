// SPDX-License-Identifier: GPL-3.0-or-later
// A connection's timeouts on one timer: each fires once, not before its deadline, not at all
// when stopped, and an earlier deadline set after a later one still comes first.
#include "rest/connectiontimers.h"

#include <QElapsedTimer>
#include <QList>
#include <QTest>

using Broker::Rest::ConnectionTimers;

class TestConnectionTimers : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void firesOnceAndNotBeforeItsDeadline();
    void aStoppedTimeoutNeverFires();
    void anEarlierDeadlineComesFirst();
    void aTimeoutStartedAgainFromItsHandlerFiresAgain();
};

namespace {
struct Fired
{
    ConnectionTimers::Kind kind;
    qint64 afterMs;
};
} // namespace

void TestConnectionTimers::firesOnceAndNotBeforeItsDeadline()
{
    ConnectionTimers timers;
    QList<Fired> fired;
    QElapsedTimer clock;
    clock.start();
    connect(&timers, &ConnectionTimers::expired, this, [&](ConnectionTimers::Kind kind) { fired.append({kind, clock.elapsed()}); });
    timers.start(ConnectionTimers::Head, 80);
    QVERIFY(timers.isActive(ConnectionTimers::Head));
    QTRY_COMPARE_WITH_TIMEOUT(fired.size(), 1, 5000);
    QCOMPARE(fired[0].kind, ConnectionTimers::Head);
    QVERIFY2(fired[0].afterMs >= 80, QByteArray::number(fired[0].afterMs));
    QVERIFY(!timers.isActive(ConnectionTimers::Head));
    QTest::qWait(150);
    QCOMPARE(fired.size(), 1);
}

void TestConnectionTimers::aStoppedTimeoutNeverFires()
{
    ConnectionTimers timers;
    QList<Fired> fired;
    connect(&timers, &ConnectionTimers::expired, this, [&](ConnectionTimers::Kind kind) { fired.append({kind, 0}); });
    // The timer stays armed for the stopped deadline; firing then hands out nothing.
    timers.start(ConnectionTimers::Request, 40);
    timers.start(ConnectionTimers::Idle, 120);
    timers.stop(ConnectionTimers::Request);
    QTRY_COMPARE_WITH_TIMEOUT(fired.size(), 1, 5000);
    QCOMPARE(fired[0].kind, ConnectionTimers::Idle);
    timers.start(ConnectionTimers::Drain, 40);
    timers.stopAll();
    QTest::qWait(150);
    QCOMPARE(fired.size(), 1);
}

void TestConnectionTimers::anEarlierDeadlineComesFirst()
{
    ConnectionTimers timers;
    QList<Fired> fired;
    QElapsedTimer clock;
    clock.start();
    connect(&timers, &ConnectionTimers::expired, this, [&](ConnectionTimers::Kind kind) { fired.append({kind, clock.elapsed()}); });
    timers.start(ConnectionTimers::Idle, 2000);
    timers.start(ConnectionTimers::Head, 50); // re-arms the timer for the earlier deadline
    QTRY_COMPARE_WITH_TIMEOUT(fired.size(), 1, 1500);
    QCOMPARE(fired[0].kind, ConnectionTimers::Head);
    QVERIFY(fired[0].afterMs < 2000);
    QVERIFY(timers.isActive(ConnectionTimers::Idle)); // still to come, at its own deadline
    QTRY_COMPARE_WITH_TIMEOUT(fired.size(), 2, 6000);
    QCOMPARE(fired[1].kind, ConnectionTimers::Idle);
    QVERIFY2(fired[1].afterMs >= 2000, QByteArray::number(fired[1].afterMs));
}

void TestConnectionTimers::aTimeoutStartedAgainFromItsHandlerFiresAgain()
{
    ConnectionTimers timers;
    int count = 0;
    connect(&timers, &ConnectionTimers::expired, this, [&](ConnectionTimers::Kind) {
        if (++count < 3)
            timers.start(ConnectionTimers::Drain, 30);
    });
    timers.start(ConnectionTimers::Drain, 30);
    QTRY_COMPARE_WITH_TIMEOUT(count, 3, 5000);
    QTest::qWait(100);
    QCOMPARE(count, 3);
}

QTEST_GUILESS_MAIN(TestConnectionTimers)
#include "tst_connectiontimers.moc"
