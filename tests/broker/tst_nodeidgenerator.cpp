// SPDX-License-Identifier: GPL-3.0-or-later
// Message ids of a store several brokers share: time, node number and counter in their bits,
// always growing for one broker, never equal between two nodes.
#include "storage/nodeidgenerator.h"


#include <QSet>
#include <QTest>

using namespace Broker;

namespace {

constexpr int CounterBits = NodeIdGenerator::CounterBits;
constexpr int NodeBits = NodeIdGenerator::NodeBits;

qint64 msOf(quint64 sequence)
{
    return qint64(sequence >> (NodeBits + CounterBits));
}
quint64 nodeOf(quint64 sequence)
{
    return (sequence >> CounterBits) & ((1u << NodeBits) - 1);
}
quint64 counterOf(quint64 sequence)
{
    return sequence & ((1u << CounterBits) - 1);
}

} // namespace

class TestNodeIdGenerator : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void idsCarryTimeNodeAndCounter();
    void idsOnlyGrow_data();
    void idsOnlyGrow();
    void twoNodesNeverShareAnId();
    void receiptsAreSixteenHexDigits();
};

void TestNodeIdGenerator::idsCarryTimeNodeAndCounter()
{
    ManualClock clock;
    NodeIdGenerator ids(clock, 1);
    ids.setNode(5 + (1u << NodeBits)); // only the low bits count
    QCOMPARE(ids.node(), quint64(5));
    const quint64 first = ids.nextSequence();
    QCOMPARE(msOf(first), clock.nowMs() - NodeIdGenerator::EpochMs);
    QCOMPARE(nodeOf(first), quint64(5));
    QCOMPARE(counterOf(first), quint64(0));
    QCOMPARE(counterOf(ids.nextSequence()), quint64(1));
    QCOMPARE(ids.nextSequence(), first + 2);
}

void TestNodeIdGenerator::idsOnlyGrow_data()
{
    QTest::addColumn<int>("idsPerStep");
    QTest::addColumn<qint64>("stepMs");
    QTest::addRow("one-per-millisecond") << 1 << qint64(1);
    QTest::addRow("many-in-one-millisecond") << 100 << qint64(0);
    QTest::addRow("past-the-counter-borrows-the-next-millisecond") << (1 << CounterBits) + 10 << qint64(0);
    QTest::addRow("clock-set-back") << 50 << qint64(-1000);
}

void TestNodeIdGenerator::idsOnlyGrow()
{
    QFETCH(int, idsPerStep);
    QFETCH(qint64, stepMs);
    ManualClock clock;
    NodeIdGenerator ids(clock, 2);
    quint64 last = 0;
    for (int step = 0; step < 3; ++step) {
        for (int i = 0; i < idsPerStep; ++i) {
            const quint64 next = ids.nextSequence();
            QVERIFY2(next > last, qPrintable(QStringLiteral("step %1, id %2").arg(step).arg(i)));
            QCOMPARE(nodeOf(next), ids.node());
            last = next;
        }
        clock.advanceMs(stepMs);
    }
}

void TestNodeIdGenerator::twoNodesNeverShareAnId()
{
    ManualClock clock;
    NodeIdGenerator a(clock, 3);
    NodeIdGenerator b(clock, 4);
    a.setNode(1);
    b.setNode(2);
    QSet<quint64> seen;
    for (int i = 0; i < 1000; ++i) {
        seen.insert(a.nextSequence());
        seen.insert(b.nextSequence());
        if (i % 100 == 0)
            clock.advanceMs(1);
    }
    QCOMPARE(seen.size(), 2000);
}

void TestNodeIdGenerator::receiptsAreSixteenHexDigits()
{
    ManualClock clock;
    NodeIdGenerator ids(clock, 5);
    QSet<QString> receipts;
    for (int i = 0; i < 100; ++i) {
        const QString receipt = ids.newReceipt();
        QCOMPARE(receipt.size(), 16);
        bool ok = false;
        receipt.toULongLong(&ok, 16);
        QVERIFY2(ok, qPrintable(receipt));
        receipts.insert(receipt);
    }
    QCOMPARE(receipts.size(), 100);
}

QTEST_APPLESS_MAIN(TestNodeIdGenerator)
#include "tst_nodeidgenerator.moc"
