// SPDX-License-Identifier: GPL-3.0-or-later
// The live event tail holds still under the pointer and while a row is selected, and says how
// many events wait; snapshots come from the test (the client is never started).
#include "runtime/brokerclient.h"
#include "ui/eventtailmodel.h"
#include "ui/flowpage.h"

#include <QEnterEvent>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QTest>

using namespace Broker;
using namespace Broker::Ui;

class TestFlowPage : public QObject
{
    Q_OBJECT

private:
    quint64 m_number = 0;
    BrokerSnapshot events(int count)
    {
        BrokerSnapshot snapshot;
        snapshot.takenAtMs = 1'800'000'000'000 + qint64(m_number) * 10;
        for (int i = 0; i < count; ++i) {
            MessageEvent event;
            event.number = ++m_number;
            event.sequence = m_number;
            event.timeMs = snapshot.takenAtMs;
            event.queue = QStringLiteral("q");
            snapshot.recentEvents.append(event);
        }
        return snapshot;
    }

private Q_SLOTS:
    void holdsStill_data();
    void holdsStill();
    void userPauseStillWorks();
};

void TestFlowPage::holdsStill_data()
{
    QTest::addColumn<bool>("byHover"); // else by selecting a row
    QTest::addRow("pointer-over-the-list") << true;
    QTest::addRow("row-selected") << false;
}

void TestFlowPage::holdsStill()
{
    QFETCH(bool, byHover);
    BrokerClient client;
    FlowPage page(client);
    page.resize(900, 600);
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    page.showSnapshot(events(40));
    QTableView *view = page.tailView();
    QCOMPARE(view->model()->rowCount(), 40);

    QWidget *viewport = view->viewport();
    if (byHover) {
        QEnterEvent enter(QPointF(10, 10), QPointF(10, 10), viewport->mapToGlobal(QPointF(10, 10)));
        QCoreApplication::sendEvent(viewport, &enter);
    } else {
        QTest::mouseClick(viewport, Qt::LeftButton, {}, view->visualRect(view->model()->index(5, 0)).center());
        QCOMPARE(view->selectionModel()->selectedRows().value(0).row(), 5);
    }
    QVERIFY(page.isHeld());
    const int topRow = view->rowAt(0);
    page.showSnapshot(events(25));
    page.showSnapshot(events(5));
    // Nothing moved: no rows added, the same row at the top, and the count is on display.
    QCOMPARE(view->model()->rowCount(), 40);
    QCOMPARE(view->rowAt(0), topRow);
    QVERIFY(page.holdLabel()->isVisible());
    QVERIFY2(page.holdLabel()->text().contains("30 new"), qPrintable(page.holdLabel()->text()));
    QVERIFY(page.holdLabel()->text().startsWith("Paused"));

    if (byHover) {
        QEvent leave(QEvent::Leave);
        QCoreApplication::sendEvent(viewport, &leave);
    } else {
        view->setFocus();
        QTest::keyClick(view, Qt::Key_Escape);
    }
    QVERIFY(!page.isHeld());
    QCOMPARE(view->model()->rowCount(), 70); // the waiting events came in at once
    QVERIFY(!page.holdLabel()->isVisible());
    page.showSnapshot(events(1));
    QCOMPARE(view->model()->rowCount(), 71); // and the tail runs again
}

void TestFlowPage::userPauseStillWorks()
{
    BrokerClient client;
    FlowPage page(client);
    page.show();
    page.showSnapshot(events(3));
    page.setPaused(true);
    page.showSnapshot(events(4));
    QCOMPARE(page.tail()->rowCount(), 3);
    QCOMPARE(page.findChild<QPushButton *>("pause")->text(), "Resume (4 waiting)");
    QVERIFY(!page.holdLabel()->isVisible()); // the button says it already
    page.setPaused(false);
    QCOMPARE(page.tail()->rowCount(), 7);
}

QTEST_MAIN(TestFlowPage)
#include "tst_flowpage.moc"
