// SPDX-License-Identifier: GPL-3.0-or-later
#include "errors/errormanager.h"

#include <QLoggingCategory>
#include <QSignalSpy>
#include <QTest>

using namespace Broker;

class TestErrorManager : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        qRegisterMetaType<ErrorRecord>();
        QLoggingCategory::setFilterRules(QStringLiteral("brokerdesk.errors.info=false")); // logIsBounded is chatty
    }
    void repeatsAreCounted();
    void recordsFoldByKind_data();
    void recordsFoldByKind();
    void logIsBounded();
    void notificationsAreThrottled();
    void repeatsAreLoggedOncePerInterval();
    void secretsAreRedacted_data();
    void secretsAreRedacted();
};

void TestErrorManager::repeatsAreCounted()
{
    ManualClock clock;
    ErrorManager errors(clock);
    QSignalSpy recorded(&errors, &ErrorManager::errorRecorded);
    errors.record(Severity::Error, "storage", "timeout", "Redis did not answer");
    clock.advanceMs(1000);
    errors.record(Severity::Warning, "rest", "", "slow client");
    clock.advanceMs(1000);
    errors.record(Severity::Error, "storage", "timeout", "Redis did not answer");

    QCOMPARE(recorded.size(), 3);
    const QList<ErrorRecord> recent = errors.recent();
    QCOMPARE(recent.size(), 2);
    QCOMPARE(recent[0].message, "Redis did not answer"); // the repeat moved it to the front
    QCOMPARE(recent[0].count, 2);
    QCOMPARE(recent[0].lastMs - recent[0].firstMs, 2000);
    QCOMPARE(recent[1].component, "rest");
    QCOMPARE(errors.total(Severity::Error), 2);
    QCOMPARE(errors.total(Severity::Warning), 1);
    QCOMPARE(errors.recent(1).size(), 1);
}

void TestErrorManager::recordsFoldByKind_data()
{
    // Two records, one after the other: (severity, component, code, message) each.
    QTest::addColumn<QStringList>("first");
    QTest::addColumn<QStringList>("second");
    QTest::addColumn<int>("records");

    QTest::addRow("countdown-in-the-message-folds")
        << QStringList{"error", "storage", "unavailable", "Redis down; next attempt in 4 s"}
        << QStringList{"error", "storage", "unavailable", "Redis down; next attempt in 3 s"} << 1;
    QTest::addRow("address-in-the-message-folds")
        << QStringList{"warning", "security", "auth_failed", "Invalid API key from 10.0.0.1"}
        << QStringList{"warning", "security", "auth_failed", "Invalid API key from 10.0.0.2"} << 1;
    QTest::addRow("other-code-stays-apart") << QStringList{"error", "storage", "unavailable", "x"}
                                            << QStringList{"error", "storage", "timeout", "x"} << 2;
    QTest::addRow("other-component-stays-apart") << QStringList{"error", "storage", "failed", "x"}
                                                 << QStringList{"error", "engine", "failed", "x"} << 2;
    QTest::addRow("other-severity-stays-apart") << QStringList{"warning", "storage", "slow", "x"}
                                                << QStringList{"critical", "storage", "slow", "x"} << 2;
    QTest::addRow("no-code-tells-by-message") << QStringList{"info", "engine", "", "event 1"}
                                              << QStringList{"info", "engine", "", "event 2"} << 2;
}

void TestErrorManager::recordsFoldByKind()
{
    QFETCH(QStringList, first);
    QFETCH(QStringList, second);
    QFETCH(int, records);

    const auto severity = [](const QString &name) {
        for (Severity s : {Severity::Info, Severity::Warning, Severity::Error, Severity::Critical}) {
            if (name == QLatin1StringView(severityName(s)))
                return s;
        }
        return Severity::Error;
    };
    ManualClock clock;
    ErrorManager errors(clock);
    errors.record(severity(first[0]), first[1], first[2], first[3]);
    clock.advanceMs(1000);
    errors.record(severity(second[0]), second[1], second[2], second[3]);
    QCOMPARE(errors.size(), records);
    const ErrorRecord latest = errors.recent(1).first();
    QCOMPARE(latest.message, second[3]); // the latest text is what is shown
    QCOMPARE(latest.count, records == 1 ? 2 : 1);
    QCOMPARE(latest.lastMs - latest.firstMs, records == 1 ? 1000 : 0);
}

void TestErrorManager::logIsBounded()
{
    ManualClock clock;
    ErrorManager errors(clock, 10);
    for (int i = 0; i < 100; ++i)
        errors.record(Severity::Info, "engine", "", QStringLiteral("event %1").arg(i));
    QCOMPARE(errors.size(), 10);
    QCOMPARE(errors.recent().first().message, "event 99");
    QCOMPARE(errors.recent().last().message, "event 90");
    QCOMPARE(errors.total(Severity::Info), 100);
}

void TestErrorManager::notificationsAreThrottled()
{
    ManualClock clock;
    ErrorManager errors(clock);
    QSignalSpy notified(&errors, &ErrorManager::notificationRaised);
    errors.record(Severity::Warning, "rest", "", "below the threshold");
    QCOMPARE(notified.size(), 0);
    errors.record(Severity::Critical, "storage", "down", "Redis unreachable");
    errors.record(Severity::Critical, "storage", "down", "Redis unreachable");
    QCOMPARE(notified.size(), 1);
    clock.advanceMs(60'000);
    errors.record(Severity::Critical, "storage", "down", "Redis unreachable");
    QCOMPARE(notified.size(), 2);
    QCOMPARE(notified.last().first().value<ErrorRecord>().count, 3);
    errors.setNotifiedSeverities(severitiesFrom(Severity::Warning));
    errors.record(Severity::Warning, "rest", "", "now it counts");
    QCOMPARE(notified.size(), 3);
}

namespace {
QStringList g_logged;
void collect(QtMsgType, const QMessageLogContext &context, const QString &message)
{
    if (QByteArrayView(context.category) == "brokerdesk.errors")
        g_logged.append(message);
}
} // namespace

void TestErrorManager::repeatsAreLoggedOncePerInterval()
{
    // A client hammering a read-only store: a thousand refusals, one log line per interval.
    ManualClock clock;
    ErrorManager errors(clock);
    g_logged.clear();
    const QtMessageHandler previous = qInstallMessageHandler(collect);
    for (int i = 0; i < 1000; ++i) {
        errors.record(Severity::Error, "storage", "Unavailable", "publish failed: Storage is read-only");
        clock.advanceMs(5);
    }
    errors.record(Severity::Error, "engine", "processor_failed", "another kind is logged at once");
    clock.advanceMs(ErrorManager::LogIntervalMs);
    errors.record(Severity::Error, "storage", "Unavailable", "publish failed: Storage is read-only");
    qInstallMessageHandler(previous);
    QCOMPARE(g_logged.size(), 3);
    QVERIFY(!g_logged[0].contains("more like it"));
    QVERIFY(g_logged[1].contains("another kind"));
    QVERIFY2(g_logged[2].contains("and 999 more like it since the last line"), qPrintable(g_logged[2]));
    QCOMPARE(errors.recent().first().count, 1001); // counting is not rate-limited
}

void TestErrorManager::secretsAreRedacted_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("expected");
    QTest::addRow("generated-key") << "rejected bd_" + QString(43, u'A') << "rejected [redacted]";
    QTest::addRow("named") << "X-API-Key: hunter2 refused" << "X-API-Key: [redacted] refused";
    QTest::addRow("query") << "GET /queues?api_key=abc123&x=1" << "GET /queues?api_key=[redacted]&x=1";
    QTest::addRow("password") << "password=swordfish" << "password=[redacted]";
    QTest::addRow("hash") << "sha " + QString(64, u'f') << "sha [redacted]";
    QTest::addRow("plain") << "Queue not found: orders" << "Queue not found: orders";
}

void TestErrorManager::secretsAreRedacted()
{
    QFETCH(QString, text);
    QFETCH(QString, expected);
    QCOMPARE(ErrorManager::redactSecrets(text), expected);
    ManualClock clock;
    ErrorManager errors(clock);
    errors.record(Severity::Error, "security", "", text);
    QCOMPARE(errors.recent().first().message, expected);
}

QTEST_GUILESS_MAIN(TestErrorManager)
#include "tst_errormanager.moc"
