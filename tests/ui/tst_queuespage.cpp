// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/queuespage.h"
#include "ui/queuetablemodel.h"

#include <QStackedWidget>
#include <QTableView>
#include <QTest>

using namespace Broker;
using namespace Broker::Ui;

namespace {

BrokerSnapshot snapshotWithDepths(const QList<qint64> &depths)
{
    BrokerSnapshot snapshot;
    for (int i = 0; i < depths.size(); ++i) {
        QueueInfo info;
        info.name = QStringLiteral("q%1").arg(i);
        info.depth = depths.at(i);
        snapshot.queues.append(info);
    }
    return snapshot;
}

QStringList shownOrder(const QTableView *view)
{
    QStringList names;
    for (int row = 0; row < view->model()->rowCount(); ++row)
        names.append(view->model()->index(row, QueueTableModel::Name).data().toString());
    return names;
}

} // namespace

class TestQueuesPage : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void hiddenTableSortsWhenShownAgain();
};

// While another page shows, the table skips re-sorting on ticks; shown again, it is in order.
void TestQueuesPage::hiddenTableSortsWhenShownAgain()
{
    BrokerClient client; // not started: the snapshots are handed in directly
    QStackedWidget stack;
    auto *page = new QueuesPage(client);
    auto *other = new QWidget;
    stack.addWidget(page);
    stack.addWidget(other);
    stack.show();
    QVERIFY(QTest::qWaitForWindowExposed(&stack));

    page->view()->sortByColumn(QueueTableModel::Depth, Qt::DescendingOrder);
    page->showSnapshot(snapshotWithDepths({1, 3, 2}));
    QCOMPARE(shownOrder(page->view()), (QStringList{"q1", "q2", "q0"}));

    stack.setCurrentWidget(other);
    page->showSnapshot(snapshotWithDepths({9, 0, 5}));
    QCOMPARE(shownOrder(page->view()), (QStringList{"q1", "q2", "q0"})); // not re-sorted while hidden
    stack.setCurrentWidget(page);
    QCOMPARE(shownOrder(page->view()), (QStringList{"q0", "q2", "q1"}));

    // Shown, it follows every tick again.
    page->showSnapshot(snapshotWithDepths({0, 7, 5}));
    QCOMPARE(shownOrder(page->view()), (QStringList{"q1", "q2", "q0"}));
}

QTEST_MAIN(TestQueuesPage)
#include "tst_queuespage.moc"
