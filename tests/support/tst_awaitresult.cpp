// SPDX-License-Identifier: GPL-3.0-or-later
// awaitResult when the completion comes in time, after the wait gave up, or never. A completion
// that arrives late must neither touch the returned-from frame (ASan in CI) nor leak into the
// result of the next wait.
#include "awaitresult.h"

#include <QTest>
#include <QTimer>

using namespace Broker;
using namespace Broker::Testing;

namespace {

enum class Arrival { InTime, AfterTimeout, Never };

} // namespace

Q_DECLARE_METATYPE(Arrival)

class TestAwaitResult : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void completion_data();
    void completion();
    void lateCompletionCalledDirectlyIsHarmless();
};

void TestAwaitResult::completion_data()
{
    QTest::addColumn<Arrival>("arrival");
    QTest::addColumn<bool>("ok");
    QTest::addRow("in-time-gives-the-value") << Arrival::InTime << true;
    QTest::addRow("late-is-a-timeout-and-ignored") << Arrival::AfterTimeout << false;
    QTest::addRow("never-is-a-timeout") << Arrival::Never << false;
}

void TestAwaitResult::completion()
{
    QFETCH(Arrival, arrival);
    QFETCH(bool, ok);

    // The first wait: its completion is held here and called as `arrival` says.
    std::function<void(Result<int>)> held;
    const Result<int> first = awaitResult<int>(
        [&](std::function<void(Result<int>)> done) {
            if (arrival == Arrival::InTime)
                QTimer::singleShot(0, [done] { done(7); });
            else
                held = std::move(done);
        },
        50);
    QCOMPARE(first.ok(), ok);
    if (ok)
        QCOMPARE(*first, 7);
    else
        QCOMPARE(first.error().code, ErrorCode::Timeout);

    // The second wait runs while the first one's completion arrives late: the late value (13)
    // goes nowhere; the second wait sees only its own (42).
    const Result<int> second = awaitResult<int>([&](std::function<void(Result<int>)> done) {
        QTimer::singleShot(0, [&held] {
            if (held)
                held(13);
        });
        QTimer::singleShot(20, [done] { done(42); });
    });
    QVERIFY(second.ok());
    QCOMPARE(*second, 42);
    held = nullptr; // the last owner of the first wait's state lets it go (LeakSanitizer checks)
}

void TestAwaitResult::lateCompletionCalledDirectlyIsHarmless()
{
    std::function<void(Result<void>)> held;
    const Result<void> timedOut = awaitResult<void>([&](auto done) { held = std::move(done); }, 20);
    QVERIFY(!timedOut.ok());
    QCOMPARE(timedOut.error().message, QStringLiteral("the test gave up waiting"));
    // Called twice after the wait returned, outside any event loop: no write to a dead frame.
    held(Result<void>{});
    held(Error{ErrorCode::Internal, QStringLiteral("too late")});
    const Result<void> next = awaitResult<void>([](auto done) { done(Result<void>{}); });
    QVERIFY(next.ok());
}

QTEST_GUILESS_MAIN(TestAwaitResult)
#include "tst_awaitresult.moc"
