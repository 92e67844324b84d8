// SPDX-License-Identifier: GPL-3.0-or-later
// Forecasts: when a queue empties or fills at its current rates, and when nothing is said.
#include "ui/forecast.h"
#include "ui/forecastalerts.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace Broker;
using namespace Broker::Ui;

Q_DECLARE_METATYPE(Broker::Ui::Forecast::Trend)

class TestForecast : public QObject
{
    Q_OBJECT
    QTemporaryDir m_config;

private Q_SLOTS:
    void initTestCase()
    {
        // The warning window is a QSettings value: keep it out of the user's configuration.
        QVERIFY(m_config.isValid());
        qputenv("XDG_CONFIG_HOME", m_config.path().toLocal8Bit());
    }
    void maths_data();
    void maths();
    void texts_data();
    void texts();
    void alertsOncePerCrossing();
    void alertsFollowTheSetting();
    void manyQueuesAtOnceMakeOneAlert();
};

void TestForecast::maths_data()
{
    QTest::addColumn<qint64>("ready");
    QTest::addColumn<qint64>("size");
    QTest::addColumn<qint64>("maxSize");
    QTest::addColumn<double>("publish");
    QTest::addColumn<double>("consume");
    QTest::addColumn<Forecast::Trend>("trend");
    QTest::addColumn<double>("seconds");
    using T = Forecast::Trend;
    QTest::addRow("fills-at-net-rate") << 100LL << 100LL << 1000LL << 10.0 << 4.0 << T::Fills << 150.0;
    QTest::addRow("fills-counts-in-flight-and-delayed") << 100LL << 400LL << 1000LL << 12.0 << 2.0 << T::Fills << 60.0;
    QTest::addRow("already-full") << 1000LL << 1000LL << 1000LL << 5.0 << 0.0 << T::Fills << 0.0;
    QTest::addRow("empties-ready-only") << 600LL << 900LL << 1000LL << 1.0 << 11.0 << T::Empties << 60.0;
    QTest::addRow("only-consumers") << 50LL << 50LL << 1000LL << 0.0 << 5.0 << T::Empties << 10.0;
    QTest::addRow("balanced-rates") << 100LL << 100LL << 1000LL << 100.0 << 99.0 << T::None << 0.0;
    QTest::addRow("both-zero") << 100LL << 100LL << 1000LL << 0.0 << 0.0 << T::None << 0.0;
    QTest::addRow("too-slow-to-matter") << 100LL << 100LL << 1000LL << 0.01 << 0.0 << T::None << 0.0;
    QTest::addRow("no-max-size-never-fills") << 100LL << 100LL << 0LL << 50.0 << 0.0 << T::None << 0.0;
    QTest::addRow("empty-queue-stays-empty") << 0LL << 3LL << 1000LL << 5.0 << 20.0 << T::None << 0.0;
    QTest::addRow("beyond-the-horizon") << 1LL << 1LL << 100'000'000LL << 1.0 << 0.0 << T::None << 0.0;
}

void TestForecast::maths()
{
    QFETCH(qint64, ready);
    QFETCH(qint64, size);
    QFETCH(qint64, maxSize);
    QFETCH(double, publish);
    QFETCH(double, consume);
    QFETCH(Forecast::Trend, trend);
    QFETCH(double, seconds);
    const Forecast result = forecast(ready, size, maxSize, publish, consume);
    QCOMPARE(result.trend, trend);
    QCOMPARE(result.seconds, seconds);
}

void TestForecast::texts_data()
{
    QTest::addColumn<int>("trend");
    QTest::addColumn<double>("seconds");
    QTest::addColumn<QString>("text");
    QTest::addRow("none-is-blank") << int(Forecast::Trend::None) << 0.0 << "";
    QTest::addRow("empties") << int(Forecast::Trend::Empties) << 185.0 << "empties in 3 min 5 s";
    QTest::addRow("fills-rounds-up") << int(Forecast::Trend::Fills) << 44.2 << "full in 45 s";
    QTest::addRow("full-now") << int(Forecast::Trend::Fills) << 0.0 << "full now";
}

void TestForecast::texts()
{
    QFETCH(int, trend);
    QFETCH(double, seconds);
    QFETCH(QString, text);
    QCOMPARE(forecastText({Forecast::Trend(trend), seconds}), text);
}

namespace {

QueueInfo fillingQueue(const QString &name, double publish)
{
    QueueInfo queue;
    queue.name = name;
    queue.config.maxSize = 1000;
    queue.depth = 400;
    queue.rates.publish1m = publish;
    return queue;
}

BrokerSnapshot snapshotOf(QList<QueueInfo> queues)
{
    BrokerSnapshot snapshot;
    snapshot.queues = std::move(queues);
    return snapshot;
}

} // namespace

void TestForecast::alertsOncePerCrossing()
{
    ForecastAlerts::setWarnWithinMinutes(10);
    ForecastAlerts alerts;
    QSignalSpy raised(&alerts, &ForecastAlerts::alertRaised);
    // 600 free at 2/s: full in 300 s, inside 10 min. "calm" fills in 600/0.5 = 1200 s: outside.
    alerts.check(snapshotOf({fillingQueue("calm", 0.5), fillingQueue("hot", 2)}));
    QCOMPARE(raised.size(), 1);
    QVERIFY(raised.first().first().value<ErrorRecord>().message.startsWith("hot is full in 5 min"));
    alerts.check(snapshotOf({fillingQueue("calm", 0.5), fillingQueue("hot", 2)}));
    QCOMPARE(raised.size(), 1); // still filling: said once
    // Just outside the window but within the hysteresis: no new warning when it comes back.
    alerts.check(snapshotOf({fillingQueue("hot", 0.8)})); // 750 s
    alerts.check(snapshotOf({fillingQueue("hot", 2)}));
    QCOMPARE(raised.size(), 1);
    // Well clear (1200 s > 1.5 × 600 s), then back: a new warning.
    alerts.check(snapshotOf({fillingQueue("hot", 0.5)}));
    QVERIFY(alerts.warned().isEmpty());
    alerts.check(snapshotOf({fillingQueue("hot", 2)}));
    QCOMPARE(raised.size(), 2);
}

void TestForecast::alertsFollowTheSetting()
{
    ForecastAlerts alerts;
    QSignalSpy raised(&alerts, &ForecastAlerts::alertRaised);
    ForecastAlerts::setWarnWithinMinutes(0); // off
    alerts.check(snapshotOf({fillingQueue("hot", 2)}));
    QCOMPARE(raised.size(), 0);
    ForecastAlerts::setWarnWithinMinutes(30); // "calm" (20 min) is now inside
    alerts.check(snapshotOf({fillingQueue("calm", 0.5)}));
    QCOMPARE(raised.size(), 1);
    QCOMPARE(ForecastAlerts::warnWithinMinutes(), 30);
}

void TestForecast::manyQueuesAtOnceMakeOneAlert()
{
    ForecastAlerts::setWarnWithinMinutes(10);
    ForecastAlerts alerts;
    QSignalSpy raised(&alerts, &ForecastAlerts::alertRaised);
    alerts.check(snapshotOf({fillingQueue("a", 2), fillingQueue("b", 6), fillingQueue("c", 3)}));
    QCOMPARE(raised.size(), 1);
    const auto record = raised.first().first().value<ErrorRecord>();
    QVERIFY2(record.message.startsWith("b is full in 1 min 40 s"), qPrintable(record.message)); // the soonest
    QVERIFY2(record.message.contains("2 more queue(s)"), qPrintable(record.message));
    QCOMPARE(record.count, 3);
    QCOMPARE(alerts.warned().size(), 3);
}

QTEST_GUILESS_MAIN(TestForecast)
#include "tst_forecast.moc"
