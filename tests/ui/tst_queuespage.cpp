// SPDX-License-Identifier: GPL-3.0-or-later
// The Queues page as a user drives it, offscreen, against a real broker in its worker thread:
// keys typed into the dialogs, Enter and Ctrl+Enter, the filter and the selection, Delete.
#include "runtime/brokerclient.h"
#include "ui/createqueuedialog.h"
#include "ui/messagebar.h"
#include "ui/publishdialog.h"
#include "ui/queueproxymodel.h"
#include "ui/queuespage.h"
#include "ui/queuetablemodel.h"

#include "runtime/continuation.h"

#include "../support/desktoptestsettings.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QStackedWidget>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QDebug>
#include <QTest>
#include <QToolButton>

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

private:
    QTemporaryDir m_dir;
    std::unique_ptr<BrokerClient> m_client;
    std::unique_ptr<QueuesPage> m_page;

    template<typename Dialog>
    Dialog *openDialog()
    {
        Dialog *dialog = nullptr;
        [&] { QTRY_VERIFY((dialog = m_page->findChild<Dialog *>()) != nullptr); }();
        return dialog;
    }
    bool hasQueue(const QString &name) const { return m_page->model()->rowOf(name) >= 0; }
    void makeQueue(const QString &name, const QString &type = QStringLiteral("list"))
    {
        QueueConfig config;
        config.type = type;
        bool done = false;
        whenFinished(m_client->createQueue(name, config), this, [&done](const Result<QueueInfo> &) { done = true; });
        QTRY_VERIFY(done);
        QTRY_VERIFY(hasQueue(name));
    }

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void enterInCreatePressesCreate();
    void createAPartitionedQueue();
    void createStaysOpenOnABadName_data();
    void createStaysOpenOnABadName();
    void publishOffersWhatTheTypeHonours_data();
    void publishOffersWhatTheTypeHonours();
    void ctrlEnterSendsFromThePublishDialog();
    void filterKeepsThePickedQueue();
    void deleteKeyDeletesThePickedQueueAndSelectsNone();
    void messageBarMovesNothing();
    void errorBarsCanBeDismissedAndExpire();
    void copyAsOffersThreeLanguages();
    void everyActionAndColumnHasATooltip();
    void hiddenTableSortsWhenShownAgain();
};

void TestQueuesPage::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    HostSettings settings = Test::desktopTestSettings(m_dir);
    QVERIFY(!settings.configFile.isEmpty());
    settings.serveApi = false; // the page talks to the engine through the client only
    m_client = std::make_unique<BrokerClient>(50);
    m_page = std::make_unique<QueuesPage>(*m_client);
    connect(m_client.get(), &BrokerClient::snapshotUpdated, m_page.get(), &QueuesPage::showSnapshot);
    m_page->resize(900, 500);
    m_page->show();
    bool started = false;
    whenFinished(m_client->start(settings), this, [this, &started](const StartReport &report) {
        m_page->showStart(report);
        started = report.ok;
        if (!report.ok)
            qWarning() << "start failed:" << report.error;
    });
    QTRY_VERIFY_WITH_TIMEOUT(started, 10000);
}

void TestQueuesPage::cleanupTestCase()
{
    m_page.reset();
    m_client.reset();
}

void TestQueuesPage::enterInCreatePressesCreate()
{
    m_page->createQueue();
    auto *dialog = openDialog<CreateQueueDialog>();
    auto *name = dialog->findChild<QLineEdit *>("name");
    name->setFocus();
    QTest::keyClicks(name, "typed.in");
    QTest::keyClick(name, Qt::Key_Return);
    QTRY_VERIFY(hasQueue("typed.in")); // Enter created it (it used to act as Cancel)
    QTRY_VERIFY(m_page->findChild<CreateQueueDialog *>() == nullptr);
    QCOMPARE(m_page->messageBar()->text(), "Queue typed.in created");
}

void TestQueuesPage::createAPartitionedQueue()
{
    m_page->createQueue();
    auto *dialog = openDialog<CreateQueueDialog>();
    QVERIFY(!dialog->requestBody().contains("partitions")); // a plain queue's request reads as gCore's
    auto *partitions = dialog->findChild<QSpinBox *>("partitions");
    QVERIFY(partitions);
    QCOMPARE(partitions->maximum(), 64);
    partitions->setValue(4);
    QVERIFY(dialog->requestBody().contains("\"partitions\":4"));
    auto *name = dialog->findChild<QLineEdit *>("name");
    name->setFocus();
    QTest::keyClicks(name, "parted");
    QTest::keyClick(name, Qt::Key_Return);
    QTRY_VERIFY(hasQueue("parted"));
    QTRY_COMPARE(m_page->model()->rowAt(m_page->model()->rowOf("parted")).config.partitions, 4);
}

void TestQueuesPage::createStaysOpenOnABadName_data()
{
    QTest::addColumn<QString>("typed");
    QTest::addColumn<QString>("problem");
    QTest::addRow("invalid") << "bad name!" << "Letters, digits";
    QTest::addRow("duplicate") << "typed.in" << "A queue named typed.in exists already";
}

void TestQueuesPage::createStaysOpenOnABadName()
{
    QFETCH(QString, typed);
    QFETCH(QString, problem);
    m_page->createQueue();
    auto *dialog = openDialog<CreateQueueDialog>();
    auto *name = dialog->findChild<QLineEdit *>("name");
    dialog->findChild<QSpinBox *>()->setValue(123); // some other input that must survive
    QTest::keyClicks(name, typed);
    QTest::keyClick(name, Qt::Key_Enter);
    QTest::qWait(100);
    QVERIFY(dialog->isVisible());
    QCOMPARE(name->text(), typed);
    QCOMPARE(dialog->findChild<QSpinBox *>()->value(), 123);
    QVERIFY2(dialog->findChild<QLabel *>("problem")->text().startsWith(problem),
             qPrintable(dialog->findChild<QLabel *>("problem")->text()));
    QVERIFY(!dialog->findChild<QPushButton *>("create")->isEnabled());
    dialog->reject();
    QTRY_VERIFY(m_page->findChild<CreateQueueDialog *>() == nullptr);
}

void TestQueuesPage::publishOffersWhatTheTypeHonours_data()
{
    QTest::addColumn<QString>("type");
    QTest::addColumn<bool>("priority");
    QTest::addColumn<bool>("delay");
    QTest::addRow("list-delay-only") << "list" << false << true;
    QTest::addRow("priority-both") << "priority" << true << true;
    QTest::addRow("stream-neither") << "stream" << false << false;
}

void TestQueuesPage::publishOffersWhatTheTypeHonours()
{
    QFETCH(QString, type);
    QFETCH(bool, priority);
    QFETCH(bool, delay);
    const QString queue = "offers." + type;
    makeQueue(queue, type);
    m_page->selectQueue(queue);
    m_page->publishMessage();
    auto *dialog = openDialog<PublishDialog>();
    QCOMPARE(dialog->offersPriority(), priority);
    QCOMPARE(dialog->offersDelay(), delay);
    QCOMPARE(dialog->findChild<QSpinBox *>("priority")->isVisibleTo(dialog), priority);
    QCOMPARE(dialog->findChild<QSpinBox *>("delay")->isVisibleTo(dialog), delay);
    dialog->reject();
    QTRY_VERIFY(m_page->findChild<PublishDialog *>() == nullptr);
}

void TestQueuesPage::ctrlEnterSendsFromThePublishDialog()
{
    m_page->selectQueue("typed.in");
    m_page->publishMessage();
    auto *dialog = openDialog<PublishDialog>();
    auto *editor = dialog->findChild<QPlainTextEdit *>("json");
    editor->setFocus();
    editor->selectAll();
    QTest::keyClicks(editor, "{\"k\": 1}");
    QTest::keyClick(editor, Qt::Key_Return); // a new line in the editor, not Send
    QVERIFY(dialog->isVisible());
    QTest::keyClick(editor, Qt::Key_Return, Qt::ControlModifier);
    QTRY_VERIFY(m_page->findChild<PublishDialog *>() == nullptr);
    QueueTableModel *model = m_page->model();
    QTRY_COMPARE(model->rowAt(model->rowOf("typed.in")).depth, 1);
}

void TestQueuesPage::filterKeepsThePickedQueue()
{
    for (const QString name : {"keep.alpha", "keep.beta", "keep.gamma"})
        makeQueue(name);
    QTableView *view = m_page->view();
    QLineEdit *filter = m_page->filter();
    m_page->selectQueue("keep.beta");
    QCOMPARE(m_page->selectedQueue(), "keep.beta");

    // Typing a filter that hides the pick: no queue is targeted (the row that took its place
    // must not be), and the queue actions are off.
    QTest::keyClicks(filter, "gamma");
    QCOMPARE(m_page->selectedQueue(), QString());
    QVERIFY(!view->selectionModel()->hasSelection());
    QVERIFY(!m_page->deleteAction()->isEnabled());
    // Cleared again: the pick comes back, whatever row it is in now.
    filter->clear();
    QCOMPARE(m_page->selectedQueue(), "keep.beta");
    QCOMPARE(view->selectionModel()->selectedRows().value(0).data(QueueTableModel::NameRole).toString(), "keep.beta");
    // A filter that keeps it shown at another row keeps it selected there.
    QTest::keyClicks(filter, "keep.b");
    QCOMPARE(m_page->selectedQueue(), "keep.beta");
    QCOMPARE(view->selectionModel()->selectedRows().value(0).row(), 0);
    filter->clear();

    // Snapshot ticks and re-sorting do not move the pick either.
    view->sortByColumn(QueueTableModel::Name, Qt::DescendingOrder);
    QTest::qWait(200);
    QCOMPARE(m_page->selectedQueue(), "keep.beta");
    view->sortByColumn(QueueTableModel::Name, Qt::AscendingOrder);
}

void TestQueuesPage::deleteKeyDeletesThePickedQueueAndSelectsNone()
{
    QTableView *view = m_page->view();
    m_page->activateWindow(); // shortcuts need an active window
    QVERIFY(QTest::qWaitForWindowActive(m_page.get()));
    m_page->selectQueue("keep.beta");
    view->setFocus();
    QTest::keyClick(view, Qt::Key_Delete);
    auto *box = openDialog<QMessageBox>();
    QVERIFY(box);
    QVERIFY(box->text().contains("keep.beta"));
    QPushButton *yes = nullptr;
    for (QPushButton *button : box->findChildren<QPushButton *>())
        yes = button->text() == "Delete" ? button : yes;
    QVERIFY(yes);
    yes->click();
    QTRY_VERIFY(!hasQueue("keep.beta"));
    QVERIFY(hasQueue("keep.alpha") && hasQueue("keep.gamma"));
    // The next queue did not silently become the target.
    QCOMPARE(m_page->selectedQueue(), QString());
    QVERIFY(!view->selectionModel()->hasSelection());
    QVERIFY(!m_page->deleteAction()->isEnabled());
    QTest::keyClick(view, Qt::Key_Delete); // nothing selected: nothing asked
    QTest::qWait(100);
    QVERIFY(m_page->findChild<QMessageBox *>() == nullptr);
}

void TestQueuesPage::messageBarMovesNothing()
{
    QTableView *view = m_page->view();
    const QRect before = view->geometry();
    m_page->messageBar()->showInfo("Something went well");
    QVERIFY(m_page->messageBar()->panel()->isVisible());
    QCoreApplication::processEvents();
    QCOMPARE(view->geometry(), before);
    m_page->messageBar()->showError("Something went wrong, at length: " + QString(200, QLatin1Char('x')));
    QCoreApplication::processEvents();
    QCOMPARE(view->geometry(), before);
    // The bar floats inside the page, at its bottom.
    const QRect panel = m_page->messageBar()->panel()->geometry();
    QVERIFY(m_page->rect().contains(panel));
    QVERIFY(panel.bottom() > m_page->height() / 2);
    m_page->messageBar()->dismiss();
    QCOMPARE(view->geometry(), before);
}

void TestQueuesPage::errorBarsCanBeDismissedAndExpire()
{
    MessageBar *bar = m_page->messageBar();
    bar->showError("The broker said no");
    QWidget *panel = bar->panel();
    QVERIFY(panel->isVisible());
    auto *close = panel->findChild<QToolButton *>("messageBarClose");
    QVERIFY(close && close->isVisible() && !close->toolTip().isEmpty());
    QTest::mouseClick(close, Qt::LeftButton);
    QVERIFY(!panel->isVisible());
    QCOMPARE(bar->kind(), MessageBar::Kind::None);

    bar->setTimeouts(50, 150);
    bar->showError("Another refusal");
    QVERIFY(panel->isVisible());
    QTRY_VERIFY(!panel->isVisible()); // after a while
    bar->showError("A third");
    bar->showInfo("Fixed now"); // the problem is gone: the red bar with it
    QCOMPARE(bar->kind(), MessageBar::Kind::Info);
    QTRY_VERIFY(!panel->isVisible());
    bar->setTimeouts(6000, 30000);
}

void TestQueuesPage::copyAsOffersThreeLanguages()
{
    m_page->selectQueue("keep.alpha");
    QMenu *menu = m_page->copyAsMenu();
    QMenu *purge = nullptr;
    for (QAction *action : menu->actions())
        purge = action->text() == "Purge" ? action->menu() : purge;
    QVERIFY(purge);
    QCOMPARE(purge->actions().size(), 3);
    QStringList copied;
    for (QAction *action : purge->actions()) {
        action->trigger();
        copied.append(QApplication::clipboard()->text());
    }
    const QString url = m_client->lastStart().apiUrl + "/queues/keep.alpha/purge";
    QVERIFY2(copied.value(0).startsWith("curl -sS -X POST '" + url + "'"), qPrintable(copied.value(0)));
    QVERIFY(copied.value(1).contains("requests.request(\n    'POST',\n    '" + url + "',"));
    QVERIFY(copied.value(2).contains("QNetworkAccessManager") && copied.value(2).contains(url));
    for (const QString &text : copied)
        QVERIFY(!text.contains(m_client->lastStart().issuedKeys.value(0).apiKey) || m_client->lastStart().issuedKeys.isEmpty());
    QVERIFY(m_page->messageBar()->text().startsWith("Copied to the clipboard"));
}

void TestQueuesPage::everyActionAndColumnHasATooltip()
{
    for (QAction *action : m_page->findChildren<QAction *>()) {
        if (!action->text().isEmpty() && !action->menu() && action->parent() != m_page->copyAsMenu())
            QVERIFY2(!action->toolTip().isEmpty() && action->toolTip() != QString(action->text()).remove('&'),
                     qPrintable(action->text()));
    }
    for (QToolButton *button : m_page->findChildren<QToolButton *>()) {
        if (!qobject_cast<QLineEdit *>(button->parent())) // Qt's own clear button in the filter
            QVERIFY2(!button->toolTip().isEmpty(), qPrintable(button->text() + button->objectName()));
    }
    QAbstractItemModel *model = m_page->view()->model();
    for (int column = 0; column < model->columnCount(); ++column)
        QVERIFY2(!model->headerData(column, Qt::Horizontal, Qt::ToolTipRole).toString().isEmpty(), qPrintable(QString::number(column)));
    QVERIFY(model->headerData(QueueTableModel::PublishRate, Qt::Horizontal, Qt::ToolTipRole).toString().contains("per second"));
    QVERIFY(model->headerData(QueueTableModel::ConsumeRate, Qt::Horizontal, Qt::ToolTipRole).toString().contains("per second"));
    // Long names are elided in the middle, and the whole name is the tooltip.
    QCOMPARE(m_page->view()->textElideMode(), Qt::ElideMiddle);
    const QModelIndex first = model->index(0, QueueTableModel::Name);
    QCOMPARE(first.data(Qt::ToolTipRole).toString(), first.data(Qt::DisplayRole).toString());
}

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
