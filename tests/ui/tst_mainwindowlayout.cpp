// SPDX-License-Identifier: GPL-3.0-or-later
// The main window's frame, offscreen and without a running broker: small window sizes, the
// menu bar and its shortcuts, sidebar icons, and the theme override.
#include "ui/mainwindow.h"
#include "ui/palette.h"
#include "ui/queuespage.h"

#include <QAction>
#include <QApplication>
#include <QLineEdit>
#include <QListWidget>
#include <QMenuBar>
#include <QScrollArea>
#include <QSettings>
#include <QStackedWidget>
#include <QStandardPaths>
#include <QTest>

using namespace Broker;
using namespace Broker::Ui;

class TestMainWindowLayout : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<BrokerClient> m_client;
    std::unique_ptr<MainWindow> m_window;

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void usableAt800x560_data();
    void usableAt800x560();
    void ctrlDigitShowsPages();
    void ctrlFFocusesTheFilter();
    void menuBarHasTheQueueActions();
    void sidebarHasIcons();
    void themeOverrideIsAppliedAndKept();
};

void TestMainWindowLayout::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QSettings().remove(QStringLiteral("view/theme"));
    QSettings().remove(QStringLiteral("window"));
    m_client = std::make_unique<BrokerClient>();
    m_window = std::make_unique<MainWindow>(*m_client, HostSettings{});
    m_window->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
}

void TestMainWindowLayout::cleanupTestCase()
{
    m_window.reset();
    m_client.reset();
}

void TestMainWindowLayout::usableAt800x560_data()
{
    QTest::addColumn<int>("page");
    for (int page = 0; page < MainWindow::PageCount; ++page)
        QTest::addRow("%s", qPrintable(MainWindow::pageFileName(MainWindow::Page(page)))) << page;
}

void TestMainWindowLayout::usableAt800x560()
{
    QFETCH(int, page);
    QVERIFY(m_window->minimumSize().width() <= 800 && m_window->minimumSize().height() <= 560);
    m_window->resize(800, 560);
    m_window->showPage(MainWindow::Page(page));
    QCoreApplication::processEvents();
    QCOMPARE(m_window->size(), QSize(800, 560)); // nothing forces the window larger
    QWidget *content = m_window->pageWidget(MainWindow::Page(page));
    QVERIFY(content);
    // Form pages sit in a scroll area; the table pages (Queues, Message flow) scroll themselves.
    const bool tablePage = page == MainWindow::Queues || page == MainWindow::Flow;
    QCOMPARE(qobject_cast<QScrollArea *>(content->parentWidget()->parentWidget()) != nullptr, !tablePage);
    // The page is never squeezed below what its controls need: what does not fit scrolls.
    const QSize needed = content->minimumSizeHint();
    QVERIFY2(content->width() >= needed.width() && content->height() >= needed.height(),
             qPrintable(QStringLiteral("%1x%2 < %3x%4").arg(content->width()).arg(content->height())
                            .arg(needed.width()).arg(needed.height())));
    m_window->resize(1100, 720);
}

void TestMainWindowLayout::ctrlDigitShowsPages()
{
    for (int page = MainWindow::PageCount - 1; page >= 0; --page) {
        QTest::keyClick(m_window.get(), Qt::Key(Qt::Key_1 + page), Qt::ControlModifier);
        QCOMPARE(int(m_window->currentPage()), page);
    }
}

void TestMainWindowLayout::ctrlFFocusesTheFilter()
{
    m_window->activateWindow();
    m_window->showPage(MainWindow::Queues);
    QTest::keyClick(m_window.get(), Qt::Key_F, Qt::ControlModifier);
    QTRY_COMPARE(QApplication::focusWidget(), m_window->queuesPage()->filter());
    m_window->showPage(MainWindow::Flow);
    QTest::keyClick(m_window.get(), Qt::Key_F, Qt::ControlModifier);
    QTRY_COMPARE(QApplication::focusWidget()->objectName(), "tailFilter");
}

void TestMainWindowLayout::menuBarHasTheQueueActions()
{
    QStringList menus;
    for (QAction *action : m_window->menuBar()->actions())
        menus.append(action->text());
    QCOMPARE(menus, (QStringList{"&File", "&Edit", "&View", "&Queue", "&Help"}));
    QAction *create = m_window->queuesPage()->newQueueAction();
    QCOMPARE(create->shortcut(), QKeySequence(QKeySequence::New));
    QVERIFY(!create->toolTip().isEmpty());
    QList<QKeySequence> shortcuts;
    for (QAction *action : m_window->findChildren<QAction *>())
        if (!action->shortcut().isEmpty())
            shortcuts.append(action->shortcut());
    for (const QKeySequence &wanted : {QKeySequence(QKeySequence::Find), QKeySequence(QKeySequence::Refresh),
                                       QKeySequence(QKeySequence::Delete), QKeySequence(Qt::CTRL | Qt::Key_6)})
        QVERIFY2(shortcuts.contains(wanted), qPrintable(wanted.toString()));
}

void TestMainWindowLayout::sidebarHasIcons()
{
    auto *nav = m_window->findChild<QListWidget *>("navigation");
    QCOMPARE(nav->count(), int(MainWindow::PageCount));
    for (int row = 0; row < nav->count(); ++row) {
        QVERIFY2(!nav->item(row)->icon().isNull(), qPrintable(nav->item(row)->text()));
        QVERIFY(nav->item(row)->toolTip().contains(QStringLiteral("Ctrl+%1").arg(row + 1)));
    }
    QVERIFY(!m_window->queuesPage()->newQueueAction()->icon().isNull());
}

void TestMainWindowLayout::themeOverrideIsAppliedAndKept()
{
    const QPalette desktop = QApplication::palette();
    m_window->themeAction(int(Palette::Theme::Dark))->trigger();
    QVERIFY(Palette::isDark());
    QCOMPARE(QSettings().value("view/theme").toString(), "dark");
    QVERIFY(m_window->themeAction(int(Palette::Theme::Dark))->isChecked());
    // Colour roles follow the palette: the dark variant is lighter text for dark windows.
    QVERIFY(Palette::color(Palette::ProblemText).lightness() > Palette::color(Palette::ProblemText, false).lightness());
    m_window->themeAction(int(Palette::Theme::Light))->trigger();
    QVERIFY(!Palette::isDark());
    QCOMPARE(QSettings().value("view/theme").toString(), "light");
    m_window->themeAction(int(Palette::Theme::System))->trigger();
    QCOMPARE(QApplication::palette().color(QPalette::Window), desktop.color(QPalette::Window));
    QCOMPARE(QSettings().value("view/theme").toString(), "system");

    // A dark palette from the desktop counts as dark too (Qt 6.4 has no colorScheme()).
    QVERIFY(Palette::isDark(Palette::darkPalette()));
    QVERIFY(!Palette::isDark(Palette::lightPalette()));
}

QTEST_MAIN(TestMainWindowLayout)
#include "tst_mainwindowlayout.moc"
