// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/eventtailmodel.h"

#include "core/messageid.h"

#include <QAbstractItemModelTester>
#include <QTest>

using namespace Broker;
using namespace Broker::Ui;

namespace {

QList<MessageEvent> events(quint64 first, int count, MessageEventKind kind = MessageEventKind::Published)
{
    QList<MessageEvent> list;
    for (int i = 0; i < count; ++i) {
        MessageEvent event;
        event.number = first + quint64(i);
        event.sequence = first + quint64(i);
        event.kind = kind;
        event.queue = QStringLiteral("orders");
        list.append(event);
    }
    return list;
}

} // namespace

class TestEventTailModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void keepsTheNewestWithinCapacity();
    void aBurstLargerThanTheCapacity();
    void pauseHoldsEventsUntilResume();
    void showsMessageIdsButNotForQueueWideEvents();
};

void TestEventTailModel::keepsTheNewestWithinCapacity()
{
    EventTailModel model(10);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.append(events(1, 6));
    model.append(events(7, 6));
    QCOMPARE(model.rowCount(), 10);
    QCOMPARE(model.eventAt(0).number, 3u);
    QCOMPARE(model.eventAt(9).number, 12u);
}

void TestEventTailModel::aBurstLargerThanTheCapacity()
{
    EventTailModel model(10);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.append(events(1, 3));
    model.append(events(4, 25));
    QCOMPARE(model.rowCount(), 10);
    QCOMPARE(model.eventAt(0).number, 19u);
    QCOMPARE(model.eventAt(9).number, 28u);
}

void TestEventTailModel::pauseHoldsEventsUntilResume()
{
    EventTailModel model(10);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.append(events(1, 2));
    model.setPaused(true);
    model.append(events(3, 4));
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.pendingCount(), 4);
    model.append(events(7, 10)); // the pending buffer is bounded too
    QCOMPARE(model.pendingCount(), 10);
    model.setPaused(false);
    QCOMPARE(model.pendingCount(), 0);
    QCOMPARE(model.rowCount(), 10);
    QCOMPARE(model.eventAt(9).number, 16u);
}

void TestEventTailModel::showsMessageIdsButNotForQueueWideEvents()
{
    EventTailModel model;
    model.append(events(42, 1));
    model.append(events(43, 1, MessageEventKind::Purged));
    QCOMPARE(model.index(0, EventTailModel::Message).data().toString(), MessageId::format(42));
    QCOMPARE(model.index(0, 0).data(EventTailModel::MessageIdRole).toString(), MessageId::format(42));
    QCOMPARE(model.index(0, EventTailModel::Event).data().toString(), "published");
    QVERIFY(model.index(1, EventTailModel::Message).data().toString().isEmpty());
}

QTEST_APPLESS_MAIN(TestEventTailModel)
#include "tst_eventtailmodel.moc"
