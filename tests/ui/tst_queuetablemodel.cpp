// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/queueproxymodel.h"
#include "ui/queuetablemodel.h"

#include <QAbstractItemModelTester>
#include <QRandomGenerator>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTest>

using namespace Broker;
using namespace Broker::Ui;

namespace {

QueueInfo queue(const QString &name, qint64 depth = 0)
{
    QueueInfo info;
    info.name = name;
    info.depth = depth;
    return info;
}

QList<QueueInfo> queues(const QStringList &names)
{
    QList<QueueInfo> list;
    for (const QString &name : names)
        list.append(queue(name));
    return list;
}

QStringList namesIn(const QueueTableModel &model)
{
    QStringList names;
    for (int row = 0; row < model.rowCount(); ++row)
        names.append(model.index(row, QueueTableModel::Name).data().toString());
    return names;
}

} // namespace

class TestQueueTableModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void mergesInsteadOfResetting_data();
    void mergesInsteadOfResetting();
    void changedRowsAreOneDataChanged();
    void unchangedTickSignalsNothing();
    void randomSnapshotsKeepTheModelConsistent();
    void sortsNumbersAsNumbers();
    void sortProxyOrdersAsSortRole_data();
    void sortProxyOrdersAsSortRole();
    void valueChangesDoNotResortByName();
};

void TestQueueTableModel::mergesInsteadOfResetting_data()
{
    QTest::addColumn<QStringList>("before");
    QTest::addColumn<QStringList>("after");
    QTest::addColumn<int>("inserts");  // rowsInserted signals (runs, not rows)
    QTest::addColumn<int>("removes");
    QTest::addRow("empty-to-some") << QStringList{} << QStringList{"a", "b", "c"} << 1 << 0;
    QTest::addRow("some-to-empty") << QStringList{"a", "b"} << QStringList{} << 0 << 1;
    QTest::addRow("insert-middle") << QStringList{"a", "c"} << QStringList{"a", "b", "c"} << 1 << 0;
    QTest::addRow("remove-middle-run") << QStringList{"a", "b", "c", "d"} << QStringList{"a", "d"} << 0 << 1;
    QTest::addRow("replace-all") << QStringList{"a", "b"} << QStringList{"c", "d"} << 1 << 1;
    QTest::addRow("interleaved") << QStringList{"b", "d", "f"} << QStringList{"a", "d", "e", "g"} << 3 << 2;
    QTest::addRow("same") << QStringList{"a", "b"} << QStringList{"a", "b"} << 0 << 0;
}

void TestQueueTableModel::mergesInsteadOfResetting()
{
    QFETCH(QStringList, before);
    QFETCH(QStringList, after);
    QFETCH(int, inserts);
    QFETCH(int, removes);
    QueueTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setRows(queues(before));
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QSignalSpy removed(&model, &QAbstractItemModel::rowsRemoved);
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    model.setRows(queues(after));
    QCOMPARE(namesIn(model), after);
    QCOMPARE(inserted.size(), inserts);
    QCOMPARE(removed.size(), removes);
    QCOMPARE(reset.size(), 0);
}

void TestQueueTableModel::changedRowsAreOneDataChanged()
{
    QueueTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setRows({queue("a"), queue("b"), queue("c"), queue("d")});
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.setRows({queue("a"), queue("b", 5), queue("c"), queue("d", 7)});
    QCOMPARE(changed.size(), 1);
    QCOMPARE(changed.first().at(0).toModelIndex().row(), 1);
    QCOMPARE(changed.first().at(1).toModelIndex().row(), 3);
    // The key never changes for a kept row: a proxy sorted or filtered by name need not redo it.
    QCOMPARE(changed.first().at(0).toModelIndex().column(), int(QueueTableModel::Type));
    QCOMPARE(changed.first().at(1).toModelIndex().column(), QueueTableModel::ColumnCount - 1);
    QCOMPARE(model.index(1, QueueTableModel::Depth).data().toString(), "5");
    QCOMPARE(model.index(3, QueueTableModel::Depth).data(QueueTableModel::SortRole).toLongLong(), 7);
}

void TestQueueTableModel::unchangedTickSignalsNothing()
{
    QueueTableModel model;
    model.setRows({queue("a", 1), queue("b", 2)});
    QSignalSpy any(&model, &QAbstractItemModel::dataChanged);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    model.setRows({queue("a", 1), queue("b", 2)});
    QCOMPARE(any.size(), 0);
    QCOMPARE(inserted.size(), 0);
}

void TestQueueTableModel::randomSnapshotsKeepTheModelConsistent()
{
    // A proxy on top, as in the app, so that the tester also checks what the proxy is told.
    QueueTableModel model;
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(QueueTableModel::SortRole);
    proxy.sort(QueueTableModel::Depth, Qt::DescendingOrder);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QRandomGenerator random(20261129);
    for (int round = 0; round < 200; ++round) {
        QList<QueueInfo> next;
        for (int i = 0; i < 40; ++i) {
            if (random.bounded(3) != 0)
                next.append(queue(QStringLiteral("q%1").arg(i, 2, 10, QLatin1Char('0')), random.bounded(5)));
        }
        model.setRows(next);
        QCOMPARE(model.rowCount(), next.size());
        for (int row = 0; row < next.size(); ++row) {
            QCOMPARE(model.rowAt(row).name, next[row].name);
            QCOMPARE(model.rowAt(row).depth, next[row].depth);
        }
        QCOMPARE(proxy.rowCount(), next.size());
    }
}

void TestQueueTableModel::sortsNumbersAsNumbers()
{
    QueueTableModel model;
    model.setRows({queue("a", 9), queue("b", 10), queue("c", 1000)});
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(QueueTableModel::SortRole);
    proxy.sort(QueueTableModel::Depth, Qt::AscendingOrder);
    QCOMPARE(proxy.index(0, QueueTableModel::Name).data().toString(), "a");
    QCOMPARE(proxy.index(2, QueueTableModel::Name).data().toString(), "c");
    QCOMPARE(proxy.index(2, QueueTableModel::Depth).data().toString(), "1,000");
    QCOMPARE(model.rowOf("b"), 1);
    QCOMPARE(model.rowOf("zz"), -1);
}

void TestQueueTableModel::sortProxyOrdersAsSortRole_data()
{
    QTest::addColumn<int>("column");
    QTest::addColumn<bool>("descending");
    for (int column = 0; column < QueueTableModel::ColumnCount; ++column) {
        QTest::addRow("column-%d-ascending", column) << column << false;
        QTest::addRow("column-%d-descending", column) << column << true;
    }
}

// QueueProxyModel compares values directly; its order must be the one SortRole gives a plain proxy.
void TestQueueTableModel::sortProxyOrdersAsSortRole()
{
    QFETCH(int, column);
    QFETCH(bool, descending);
    QRandomGenerator random(20261201);
    QList<QueueInfo> rows;
    for (int i = 0; i < 300; ++i) {
        QueueInfo info = queue(QStringLiteral("q%1").arg(i, 3, 10, QLatin1Char('0')), random.bounded(20));
        info.inFlight = random.bounded(20);
        info.delayed = random.bounded(20);
        info.counters.deadLettered = random.bounded(20);
        info.rates.publish1s = random.bounded(5) * 0.5;
        info.rates.consume1s = random.bounded(5) * 0.25;
        info.created = 1'790'000'000 + random.bounded(10);
        info.config.type = random.bounded(2) ? QStringLiteral("stream") : QStringLiteral("list");
        rows.append(info);
    }
    QueueTableModel model;
    model.setRows(rows);
    QSortFilterProxyModel byRole;
    byRole.setSourceModel(&model);
    byRole.setSortRole(QueueTableModel::SortRole);
    QueueProxyModel byValue(&model);
    const Qt::SortOrder order = descending ? Qt::DescendingOrder : Qt::AscendingOrder;
    byRole.sort(column, order);
    byValue.sort(column, order);
    QCOMPARE(byValue.rowCount(), byRole.rowCount());
    for (int row = 0; row < byRole.rowCount(); ++row)
        QCOMPARE(byValue.index(row, 0).data().toString(), byRole.index(row, 0).data().toString());
}

void TestQueueTableModel::valueChangesDoNotResortByName()
{
    QueueTableModel model;
    model.setRows({queue("a", 1), queue("b", 2), queue("c", 3)});
    QueueProxyModel proxy(&model);
    QAbstractItemModelTester proxyTester(&proxy, QAbstractItemModelTester::FailureReportingMode::QtTest);
    proxy.sort(QueueTableModel::Name, Qt::AscendingOrder);
    QSignalSpy relaid(&proxy, &QAbstractItemModel::layoutChanged);
    QSignalSpy changed(&proxy, &QAbstractItemModel::dataChanged);
    model.setRows({queue("a", 9), queue("b", 2), queue("c", 0)});
    QCOMPARE(relaid.size(), 0);
    QCOMPARE(changed.size(), 1);
    QCOMPARE(proxy.index(0, QueueTableModel::Depth).data().toString(), "9");

    proxy.sort(QueueTableModel::Depth, Qt::DescendingOrder);
    relaid.clear();
    model.setRows({queue("a", 0), queue("b", 2), queue("c", 5)});
    QVERIFY(relaid.size() >= 1);
    QCOMPARE(proxy.index(0, QueueTableModel::Name).data().toString(), "c");
    QCOMPARE(proxy.index(2, QueueTableModel::Name).data().toString(), "a");
}

QTEST_APPLESS_MAIN(TestQueueTableModel)
#include "tst_queuetablemodel.moc"
