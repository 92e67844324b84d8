// SPDX-License-Identifier: GPL-3.0-or-later
#include "engine/ratetracker.h"

#include <QTest>

using namespace Broker;

class TestRateTracker : public QObject
{
    Q_OBJECT

private:
    static QueueInfo queue(const QString &name, qint64 published, qint64 delivered)
    {
        QueueInfo info;
        info.name = name;
        info.counters.published = published;
        info.counters.delivered = delivered;
        return info;
    }

private Q_SLOTS:
    void secondAndMinuteWindows();
    void deletedQueuesAreForgotten();
};

void TestRateTracker::secondAndMinuteWindows()
{
    RateTracker rates;
    QCOMPARE(rates.rates("q").publish1s, 0.0);
    // 100 publishes per second for 90 s, then 10 per second for one second.
    qint64 published = 0;
    for (int s = 0; s <= 90; ++s) {
        rates.sample(s * 1000, {queue("q", published, published / 2)});
        published += 100;
    }
    published -= 90;
    rates.sample(91'000, {queue("q", published, published / 2)});
    const QueueRates r = rates.rates("q");
    QCOMPARE(r.publish1s, 10.0);
    QCOMPARE(r.consume1s, 5.0);
    QVERIFY2(qAbs(r.publish1m - (59 * 100 + 10) / 60.0) < 0.01, qPrintable(QString::number(r.publish1m)));
    QCOMPARE(rates.totals().publish1s, 10.0);
}

void TestRateTracker::deletedQueuesAreForgotten()
{
    RateTracker rates;
    rates.sample(0, {queue("a", 0, 0), queue("b", 0, 0)});
    rates.sample(1000, {queue("a", 5, 0), queue("b", 7, 0)});
    QCOMPARE(rates.rates("b").publish1s, 7.0);
    rates.sample(2000, {queue("a", 6, 0)});
    QCOMPARE(rates.rates("b").publish1s, 0.0);
    QCOMPARE(rates.totals().publish1s, 0.0); // the total fell; rates never go negative
    QCOMPARE(rates.rates("a").publish1s, 1.0);
}

QTEST_APPLESS_MAIN(TestRateTracker)
#include "tst_ratetracker.moc"
