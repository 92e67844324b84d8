// SPDX-License-Identifier: GPL-3.0-or-later
#include "security/ratelimiter.h"

#include <QTest>

using namespace Broker;

class TestRateLimiter : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void burstThenSteadyRate();
    void keysAreIndependent();
    void memoryIsBounded();
    void peekTakesNothing();
};

void TestRateLimiter::peekTakesNothing()
{
    ManualClock clock;
    RateLimiter limiter(clock, 30, 2); // one token every 2 s
    QVERIFY(limiter.peek("k").allowed);
    QCOMPARE(limiter.trackedKeys(), 0); // an unknown key starts no bucket
    QVERIFY(limiter.take("k").allowed);
    QVERIFY(limiter.take("k").allowed);
    for (int i = 0; i < 3; ++i) { // peeking is free: the answer does not change
        const RateLimiter::Decision peeked = limiter.peek("k");
        QVERIFY(!peeked.allowed);
        QCOMPARE(peeked.retryAfterMs, 2000);
    }
    clock.advanceMs(1500);
    QCOMPARE(limiter.peek("k").retryAfterMs, 500);
    clock.advanceMs(500);
    QVERIFY(limiter.peek("k").allowed);
    QVERIFY(limiter.take("k").allowed);
    QVERIFY(!limiter.peek("k").allowed);
}

void TestRateLimiter::burstThenSteadyRate()
{
    ManualClock clock;
    RateLimiter limiter(clock, 60, 5); // one per second, five at once
    for (int i = 0; i < 5; ++i)
        QVERIFY(limiter.take("k").allowed);
    const RateLimiter::Decision refused = limiter.take("k");
    QVERIFY(!refused.allowed);
    QCOMPARE(refused.retryAfterMs, 1000);
    clock.advanceMs(500);
    QCOMPARE(limiter.take("k").retryAfterMs, 500);
    clock.advanceMs(500);
    QVERIFY(limiter.take("k").allowed);
    QVERIFY(!limiter.take("k").allowed);
    clock.advanceMs(60'000); // refills to the burst, not beyond
    for (int i = 0; i < 5; ++i)
        QVERIFY(limiter.take("k").allowed);
    QVERIFY(!limiter.take("k").allowed);
}

void TestRateLimiter::keysAreIndependent()
{
    ManualClock clock;
    RateLimiter limiter(clock, 60, 1);
    QVERIFY(limiter.take("a").allowed);
    QVERIFY(!limiter.take("a").allowed);
    QVERIFY(limiter.take("b").allowed);
    limiter.reset("a");
    QVERIFY(limiter.take("a").allowed);
}

void TestRateLimiter::memoryIsBounded()
{
    ManualClock clock;
    RateLimiter limiter(clock, 60, 2, 100);
    for (int i = 0; i < 1000; ++i) {
        limiter.take(QString::number(i));
        clock.advanceMs(1);
    }
    QVERIFY(limiter.trackedKeys() <= 100);
    // The busiest recent key is still limited.
    QVERIFY(limiter.take("999").allowed);
    QVERIFY(!limiter.take("999").allowed);
}

QTEST_APPLESS_MAIN(TestRateLimiter)
#include "tst_ratelimiter.moc"
