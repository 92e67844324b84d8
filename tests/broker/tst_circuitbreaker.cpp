// SPDX-License-Identifier: GPL-3.0-or-later
// CircuitBreaker and RetryPolicy: pure logic on a manual clock.
#include "resilience/circuitbreaker.h"
#include "resilience/retrypolicy.h"

#include <QTest>

using namespace Broker;

class TestCircuitBreaker : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void opensAfterConsecutiveFailures();
    void successResetsTheCount();
    void halfOpenLetsOneProbeThrough();
    void failedProbeOpensAgain();
    void lateFailuresDoNotExtendThePause();
    void probePausesDoubleUpToTheOpenTime_data();
    void probePausesDoubleUpToTheOpenTime();
    void aSuccessfulProbeResetsThePauses();
    void retryCeilingsDoubleUpToTheCap_data();
    void retryCeilingsDoubleUpToTheCap();
    void retryDelaysAreJitteredWithinTheCeiling();
    void attemptBudget();
};

void TestCircuitBreaker::opensAfterConsecutiveFailures()
{
    ManualClock clock;
    CircuitBreaker breaker({5, 30'000}, clock);
    for (int i = 0; i < 4; ++i) {
        QVERIFY(breaker.allowRequest());
        breaker.recordFailure();
        QCOMPARE(breaker.state(), CircuitBreaker::State::Closed);
    }
    breaker.recordFailure();
    QCOMPARE(breaker.state(), CircuitBreaker::State::Open);
    QVERIFY(!breaker.allowRequest());
    QCOMPARE(breaker.timesOpened(), 1);
    QCOMPARE(breaker.retryAtMs(), clock.nowMs() + 1000); // the first probe comes soon
}

void TestCircuitBreaker::successResetsTheCount()
{
    ManualClock clock;
    CircuitBreaker breaker({3, 1000}, clock);
    breaker.recordFailure();
    breaker.recordFailure();
    breaker.recordSuccess();
    breaker.recordFailure();
    breaker.recordFailure();
    QCOMPARE(breaker.state(), CircuitBreaker::State::Closed);
    QCOMPARE(breaker.consecutiveFailures(), 2);
}

void TestCircuitBreaker::halfOpenLetsOneProbeThrough()
{
    ManualClock clock;
    CircuitBreaker breaker({1, 30'000, 30'000}, clock);
    breaker.recordFailure();
    clock.advanceMs(29'999);
    QVERIFY(!breaker.allowRequest());
    clock.advanceMs(1);
    QCOMPARE(breaker.state(), CircuitBreaker::State::HalfOpen);
    QVERIFY(breaker.allowRequest());  // the probe
    QVERIFY(!breaker.allowRequest()); // everyone else waits for it
    breaker.recordSuccess();
    QCOMPARE(breaker.state(), CircuitBreaker::State::Closed);
    QVERIFY(breaker.allowRequest());
}

void TestCircuitBreaker::failedProbeOpensAgain()
{
    ManualClock clock;
    CircuitBreaker breaker({2, 1000}, clock);
    breaker.recordFailure();
    breaker.recordFailure();
    clock.advanceMs(1000);
    QVERIFY(breaker.allowRequest());
    breaker.recordFailure();
    QCOMPARE(breaker.state(), CircuitBreaker::State::Open);
    QCOMPARE(breaker.timesOpened(), 2);
    QCOMPARE(breaker.retryAtMs(), clock.nowMs() + 1000);
}

void TestCircuitBreaker::lateFailuresDoNotExtendThePause()
{
    ManualClock clock;
    CircuitBreaker breaker({1, 1000}, clock);
    breaker.recordFailure();
    const qint64 retryAt = breaker.retryAtMs();
    clock.advanceMs(500);
    breaker.recordFailure(); // a call that went out before the breaker opened
    QCOMPARE(breaker.retryAtMs(), retryAt);
    QCOMPARE(breaker.timesOpened(), 1);
}

void TestCircuitBreaker::probePausesDoubleUpToTheOpenTime_data()
{
    QTest::addColumn<qint64>("firstProbeMs");
    QTest::addColumn<qint64>("openMs");
    QTest::addColumn<QList<qint64>>("pauses"); // after opening, then after each failed probe
    QTest::addRow("1s-doubling-to-30s") << qint64(1000) << qint64(30'000)
                                        << QList<qint64>{1000, 2000, 4000, 8000, 16'000, 30'000, 30'000};
    QTest::addRow("first-probe-capped-by-open-time") << qint64(5000) << qint64(2000)
                                                     << QList<qint64>{2000, 2000, 2000};
    QTest::addRow("no-first-probe-means-open-time") << qint64(0) << qint64(3000) << QList<qint64>{3000, 3000};
}

void TestCircuitBreaker::probePausesDoubleUpToTheOpenTime()
{
    QFETCH(qint64, firstProbeMs);
    QFETCH(qint64, openMs);
    QFETCH(QList<qint64>, pauses);
    ManualClock clock;
    CircuitBreaker breaker({1, openMs, firstProbeMs}, clock);
    breaker.recordFailure();
    for (qsizetype i = 0; i < pauses.size(); ++i) {
        QCOMPARE(breaker.state(), CircuitBreaker::State::Open);
        QCOMPARE(breaker.retryAtMs(), clock.nowMs() + pauses[i]);
        clock.advanceMs(pauses[i] - 1);
        QVERIFY(!breaker.allowRequest());
        clock.advanceMs(1);
        QVERIFY(breaker.allowRequest()); // the probe
        breaker.recordFailure();
    }
    QCOMPARE(breaker.timesOpened(), pauses.size() + 1);
}

void TestCircuitBreaker::aSuccessfulProbeResetsThePauses()
{
    ManualClock clock;
    CircuitBreaker breaker({1, 30'000, 1000}, clock);
    breaker.recordFailure();
    clock.advanceMs(1000);
    QVERIFY(breaker.allowRequest());
    breaker.recordFailure(); // pause now 2 s
    clock.advanceMs(2000);
    QVERIFY(breaker.allowRequest());
    breaker.recordSuccess();
    QCOMPARE(breaker.state(), CircuitBreaker::State::Closed);
    breaker.recordFailure(); // opens from Closed again: back to the first pause
    QCOMPARE(breaker.retryAtMs(), clock.nowMs() + 1000);
}

void TestCircuitBreaker::retryCeilingsDoubleUpToTheCap_data()
{
    QTest::addColumn<int>("retry");
    QTest::addColumn<qint64>("ceiling");
    QTest::addRow("first") << 1 << qint64(100);
    QTest::addRow("second") << 2 << qint64(200);
    QTest::addRow("fifth") << 5 << qint64(1600);
    QTest::addRow("ninth") << 9 << qint64(25'600);
    QTest::addRow("tenth-capped") << 10 << qint64(30'000);
    QTest::addRow("huge-no-overflow") << 5000 << qint64(30'000);
    QTest::addRow("none-before-first") << 0 << qint64(0);
}

void TestCircuitBreaker::retryCeilingsDoubleUpToTheCap()
{
    QFETCH(int, retry);
    QFETCH(qint64, ceiling);
    QCOMPARE(RetryPolicy{}.ceilingMs(retry), ceiling);
}

void TestCircuitBreaker::retryDelaysAreJitteredWithinTheCeiling()
{
    RetryPolicy policy;
    std::mt19937_64 random(42);
    qint64 low = policy.maxDelayMs, high = 0;
    for (int i = 0; i < 2000; ++i) {
        const qint64 delay = policy.delayMs(4, random);
        QVERIFY(delay >= 0 && delay <= 800);
        low = std::min(low, delay);
        high = std::max(high, delay);
    }
    // Full jitter: spread over the whole interval, not bunched at the ceiling.
    QVERIFY(low < 80);
    QVERIFY(high > 720);
}

void TestCircuitBreaker::attemptBudget()
{
    RetryPolicy policy;
    policy.maxAttempts = 3;
    QVERIFY(policy.allowsAnotherAttempt(1));
    QVERIFY(policy.allowsAnotherAttempt(2));
    QVERIFY(!policy.allowsAnotherAttempt(3));
    policy.maxAttempts = 0;
    QVERIFY(policy.allowsAnotherAttempt(1000));
}

QTEST_APPLESS_MAIN(TestCircuitBreaker)
#include "tst_circuitbreaker.moc"
