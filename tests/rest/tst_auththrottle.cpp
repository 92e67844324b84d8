// SPDX-License-Identifier: GPL-3.0-or-later
#include "rest/auththrottle.h"

#include <QTest>

using namespace Broker;
using namespace Broker::Rest;

class TestAuthThrottle : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void retryAfter_data();
    void retryAfter();
    void keysCheckedWhileThrottled_data();
    void keysCheckedWhileThrottled();
    void addressesAreIndependent();
};

void TestAuthThrottle::retryAfter_data()
{
    QTest::addColumn<int>("perMinute");
    QTest::addColumn<int>("failures");
    QTest::addColumn<int>("waitedMs");
    QTest::addColumn<bool>("throttled");
    QTest::addColumn<int>("retryAfterSeconds"); // whole seconds until one more attempt is checked
    QTest::addRow("under-the-allowance") << 30 << 29 << 0 << false << 0;
    QTest::addRow("allowance-used") << 30 << 30 << 0 << true << 2;
    QTest::addRow("partly-refilled") << 30 << 30 << 1000 << true << 1;
    QTest::addRow("almost-refilled-is-still-at-least-1") << 30 << 30 << 1900 << true << 1;
    QTest::addRow("refilled") << 30 << 30 << 2000 << false << 0;
    QTest::addRow("slow-rate") << 5 << 5 << 0 << true << 12;
    QTest::addRow("slow-rate-rounds-up") << 5 << 5 << 500 << true << 12;
    QTest::addRow("fast-rate") << 600 << 600 << 0 << true << 1;
}

void TestAuthThrottle::retryAfter()
{
    QFETCH(int, perMinute);
    QFETCH(int, failures);
    QFETCH(int, waitedMs);
    QFETCH(bool, throttled);
    QFETCH(int, retryAfterSeconds);
    ManualClock clock;
    ErrorManager errors(clock);
    AuthThrottle throttle(clock, errors, {perMinute, 60'000});
    for (int i = 0; i < failures; ++i)
        throttle.failed(QStringLiteral("192.0.2.1"));
    clock.advanceMs(waitedMs);
    const AuthThrottle::Gate gate = throttle.gate(QStringLiteral("192.0.2.1"), 10);
    QCOMPARE(gate.throttled, throttled);
    QCOMPARE(gate.retryAfterSeconds, retryAfterSeconds);
    // Refusals while throttled take nothing: the answer stays the same.
    throttle.refusedWhileThrottled(QStringLiteral("192.0.2.1"));
    QCOMPARE(throttle.gate(QStringLiteral("192.0.2.1"), 10).retryAfterSeconds, retryAfterSeconds);
}

void TestAuthThrottle::keysCheckedWhileThrottled_data()
{
    QTest::addColumn<int>("keyLength");
    QTest::addColumn<bool>("checked");
    QTest::addRow("generated-key") << 46 << true;
    QTest::addRow("shortest-strong") << int(AuthThrottle::StrongKeyLength) << true;
    QTest::addRow("one-short") << int(AuthThrottle::StrongKeyLength) - 1 << false;
    QTest::addRow("guessable") << 8 << false;
}

void TestAuthThrottle::keysCheckedWhileThrottled()
{
    QFETCH(int, keyLength);
    QFETCH(bool, checked);
    ManualClock clock;
    ErrorManager errors(clock);
    AuthThrottle throttle(clock, errors, {3, 60'000});
    QVERIFY(throttle.gate(QStringLiteral("192.0.2.1"), keyLength).checkKey); // not throttled: every key is checked
    for (int i = 0; i < 3; ++i)
        throttle.failed(QStringLiteral("192.0.2.1"));
    const AuthThrottle::Gate gate = throttle.gate(QStringLiteral("192.0.2.1"), keyLength);
    QVERIFY(gate.throttled);
    QCOMPARE(gate.checkKey, checked);
}

void TestAuthThrottle::addressesAreIndependent()
{
    ManualClock clock;
    ErrorManager errors(clock);
    AuthThrottle throttle(clock, errors, {2, 60'000});
    throttle.failed(QStringLiteral("192.0.2.1"));
    throttle.failed(QStringLiteral("192.0.2.1"));
    QVERIFY(throttle.gate(QStringLiteral("192.0.2.1"), 10).throttled);
    QVERIFY(!throttle.gate(QStringLiteral("192.0.2.2"), 10).throttled);
    // Reported: the first failure at once, the second waits for the summary.
    QCOMPARE(errors.total(Severity::Warning), 1);
    throttle.flushSummary();
    QCOMPARE(errors.total(Severity::Warning), 2);
    QVERIFY(errors.recent(1).first().message.contains("1 invalid API keys, 0 attempts throttled, from 1 address(es)"));
    throttle.flushSummary(); // nothing new: nothing recorded
    QCOMPARE(errors.total(Severity::Warning), 2);
}

QTEST_GUILESS_MAIN(TestAuthThrottle)
#include "tst_auththrottle.moc"
