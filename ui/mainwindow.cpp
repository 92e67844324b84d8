// SPDX-License-Identifier: GPL-3.0-or-later
#include "mainwindow.h"

#include "errorspage.h"
#include "flowpage.h"
#include "forecastalerts.h"
#include "keydialog.h"
#include "overviewpage.h"
#include "queuedetailpage.h"
#include "queuespage.h"
#include "settingspage.h"
#include "userspage.h"

#include "runtime/continuation.h"
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QElapsedTimer>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabWidget>
#include <QSystemTrayIcon>

namespace Broker::Ui {

MainWindow::MainWindow(BrokerClient &client, const HostSettings &settings, QWidget *parent)
    : QMainWindow(parent), m_client(client), m_hostSettings(settings)
{
    setWindowTitle(QStringLiteral("BrokerDesk"));
    auto *central = new QWidget;
    auto *layout = new QHBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    m_nav = new QListWidget;
    m_nav->setObjectName(QStringLiteral("navigation"));
    m_nav->setFrameShape(QFrame::NoFrame);
    m_nav->setFixedWidth(170);
    m_nav->setStyleSheet(QStringLiteral("QListWidget { padding-top: 8px; } QListWidget::item { padding: 8px 12px; }"));
    m_stack = new QStackedWidget;
    layout->addWidget(m_nav);
    layout->addWidget(m_stack, 1);
    setCentralWidget(central);

    m_overview = new OverviewPage;
    m_queues = new QueuesPage(client);
    m_flow = new FlowPage(client);
    m_users = new UsersPage(client);
    m_errors = new ErrorsPage;
    m_settings = new SettingsPage;
    addPage(m_overview, tr("Overview"));
    addPage(m_queues, tr("Queues"));
    addPage(m_flow, tr("Message flow"));
    addPage(m_users, tr("Users"));
    addPage(m_errors, tr("Errors"));
    addPage(m_settings, tr("Settings"));
    connect(m_nav, &QListWidget::currentRowChanged, m_stack, &QStackedWidget::setCurrentIndex);
    // Queue detail: a stack page without a sidebar entry, opened from the queues table.
    m_queueDetail = new QueueDetailPage(client);
    m_stack->addWidget(m_queueDetail);
    connect(m_queues, &QueuesPage::queueOpened, this, &MainWindow::openQueue);
    connect(m_queueDetail, &QueueDetailPage::backRequested, this, [this] { m_stack->setCurrentIndex(Queues); });
    connect(m_nav, &QListWidget::itemClicked, this, [this] { m_stack->setCurrentIndex(m_nav->currentRow()); });
    m_forecastAlerts = new ForecastAlerts(this);
    connect(m_forecastAlerts, &ForecastAlerts::alertRaised, this, &MainWindow::notify);
    m_nav->setCurrentRow(Overview);

    m_stateLabel = new QLabel;
    m_urlLabel = new QLabel;
    m_urlLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    statusBar()->addWidget(m_stateLabel);
    statusBar()->addPermanentWidget(m_urlLabel);

    connect(&client, &BrokerClient::stateChanged, this, &MainWindow::stateChanged);
    connect(&client, &BrokerClient::snapshotUpdated, this, &MainWindow::applySnapshot);
    connect(&client, &BrokerClient::directoryUpdated, m_users, &UsersPage::showDirectory);
    connect(&client, &BrokerClient::directoryUpdated, m_errors, &ErrorsPage::showDirectory);
    connect(&client, &BrokerClient::notificationRaised, this, &MainWindow::notify);
    connect(m_settings, &SettingsPage::applyRequested, this, &MainWindow::applySettings);
    setUpTray();

    resize(1100, 720);
    QSettings state;
    restoreGeometry(state.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(state.value(QStringLiteral("window/state")).toByteArray());
    const int page = state.value(QStringLiteral("window/page"), int(Overview)).toInt();
    showPage(Page(qBound(0, page, PageCount - 1)));
}

MainWindow::~MainWindow() = default;

void MainWindow::addPage(QWidget *page, const QString &title)
{
    m_stack->addWidget(page);
    m_nav->addItem(title);
}

void MainWindow::showPage(Page page)
{
    m_nav->setCurrentRow(page);
    m_stack->setCurrentIndex(page); // also when the sidebar already showed it (from queue detail)
}

void MainWindow::openQueue(const QString &queue)
{
    const QSignalBlocker quiet(m_nav); // the sidebar shows Queues without switching back to the table
    m_nav->setCurrentRow(Queues);
    m_queueDetail->showQueue(queue);
    m_stack->setCurrentWidget(m_queueDetail);
}

void MainWindow::startBroker()
{
    whenFinished(m_client.start(m_hostSettings), this, [this](const StartReport &report) { showStartReport(report); });
}

void MainWindow::showStartReport(const StartReport &report, bool showKeys)
{
    m_overview->showStart(report);
    m_queues->showStart(report);
    m_queueDetail->showStart(report);
    m_users->showStart(report);
    if (!report.ok) {
        m_stateLabel->setText(tr("The broker did not start: %1").arg(report.error));
        if (report.failedStage == StartStage::Listen)
            showPage(Settings); // most often a port in use: the fix is there
        if (!report.config.api.bind.isEmpty())
            m_settings->showConfig(report.config, report.configFile);
        return;
    }
    m_settings->showConfig(report.config, report.configFile);
    m_urlLabel->setText(report.apiUrl);
    for (const QString &warning : report.configWarnings)
        statusBar()->showMessage(warning, 10000);
    for (const IssuedKey &key : showKeys ? report.issuedKeys : QList<IssuedKey>{}) {
        auto *dialog = new KeyDialog(key.userId, key.apiKey,
                                     tr("BrokerDesk made the user <b>%1</b> for you. Use this key as the "
                                        "<tt>X-API-Key</tt> header (brokerctl: <tt>API_KEY</tt>).")
                                         .arg(key.userId.toHtmlEscaped()),
                                     this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->open();
    }
}

void MainWindow::stateChanged(BrokerClient::State state)
{
    m_overview->showState(state);
    switch (state) {
    case BrokerClient::State::Stopped: m_stateLabel->setText(tr("Broker stopped")); break;
    case BrokerClient::State::Starting: m_stateLabel->setText(tr("Starting the broker…")); break;
    case BrokerClient::State::Running: m_stateLabel->setText(tr("Broker running")); break;
    case BrokerClient::State::Failed: break; // started() says why
    }
    if (state != BrokerClient::State::Running) {
        m_urlLabel->clear();
        m_flow->clear();
    }
    if (m_tray)
        m_tray->setToolTip(QStringLiteral("BrokerDesk — %1").arg(m_stateLabel->text()));
}

void MainWindow::applySnapshot(const BrokerSnapshot &snapshot)
{
    QElapsedTimer timer;
    timer.start();
    m_overview->showSnapshot(snapshot);
    m_queues->showSnapshot(snapshot);
    m_flow->showSnapshot(snapshot);
    m_queueDetail->showSnapshot(snapshot);
    m_forecastAlerts->check(snapshot);
    m_lastApplyMs = double(timer.nsecsElapsed()) / 1e6;
    if (m_tray) {
        m_tray->setToolTip(tr("BrokerDesk — %1, %2 queues, %3 messages")
                               .arg(QString::fromLatin1(healthStatusName(snapshot.health)))
                               .arg(snapshot.queues.size())
                               .arg(snapshot.messagesTotal));
    }
}

void MainWindow::applySettings(const QList<ConfigChange> &changes, const QStringList &descriptions)
{
    HostSettings next = m_hostSettings;
    // The desktop's overrides would hide what is being saved.
    for (const ConfigChange &change : changes) {
        if (change.first == QLatin1StringView("api.bind"))
            next.bindOverride.clear();
        if (change.first == QLatin1StringView("api.port"))
            next.portOverride = -1;
    }
    m_settings->setBusy(true);
    whenFinished(m_client.applySettings(next, changes), this,
                 [this, next, descriptions](const Result<StartReport> &applied) {
        m_settings->setBusy(false);
        if (!applied) {
            m_stateLabel->setText(tr("Settings not saved: %1").arg(applied.error().message));
            return;
        }
        m_hostSettings = next;
        showStartReport(*applied);
        if (applied->ok)
            m_stateLabel->setText(tr("Broker restarted: %1").arg(descriptions.join(QStringLiteral("; "))));
    });
}

void MainWindow::notify(const ErrorRecord &record)
{
    if (m_tray && m_tray->isVisible() && QSystemTrayIcon::supportsMessages()) {
        m_tray->showMessage(tr("BrokerDesk: %1").arg(record.component), record.message,
                            record.severity == Severity::Critical ? QSystemTrayIcon::Critical : QSystemTrayIcon::Warning);
    }
    statusBar()->showMessage(tr("%1: %2").arg(record.component, record.message), 10000);
}

void MainWindow::setUpTray()
{
    if (!QSystemTrayIcon::isSystemTrayAvailable())
        return; // the app works without one: notifications then go to the status bar
    m_tray = new QSystemTrayIcon(windowIcon(), this);
    auto *menu = new QMenu(this);
    menu->addAction(tr("Show BrokerDesk"), this, [this] {
        showNormal();
        raise();
        activateWindow();
    });
    menu->addAction(tr("Quit"), qApp, &QApplication::quit);
    m_tray->setContextMenu(menu);
    connect(m_tray, &QSystemTrayIcon::activated, this, [this](QSystemTrayIcon::ActivationReason reason) {
        if (reason == QSystemTrayIcon::Trigger) {
            showNormal();
            raise();
            activateWindow();
        }
    });
    m_tray->show();
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    QSettings state;
    state.setValue(QStringLiteral("window/geometry"), saveGeometry());
    state.setValue(QStringLiteral("window/state"), saveState());
    state.setValue(QStringLiteral("window/page"), m_nav->currentRow());
    QMainWindow::closeEvent(event);
}

QString MainWindow::pageFileName(Page page)
{
    static const char *const names[PageCount] = {"overview", "queues", "flow", "users", "errors", "settings"};
    return QString::fromLatin1(names[page]) + QStringLiteral(".png");
}

QStringList MainWindow::renderPages(const QString &dir)
{
    QStringList written;
    const int current = m_nav->currentRow();
    QDir().mkpath(dir);
    for (int page = 0; page < PageCount; ++page) {
        showPage(Page(page));
        const QString path = QDir(dir).filePath(pageFileName(Page(page)));
        if (grab().save(path))
            written.append(path);
    }
    if (!m_queueDetail->queue().isEmpty()) {
        const QString detail[] = {QStringLiteral("queue-detail.png"), QStringLiteral("queue-messages.png")};
        for (const QueueDetailPage::Tab tab : {QueueDetailPage::OverviewTab, QueueDetailPage::MessagesTab}) {
            openQueue(m_queueDetail->queue());
            m_queueDetail->tabs()->setCurrentIndex(tab);
            if (grab().save(QDir(dir).filePath(detail[tab])))
                written.append(QDir(dir).filePath(detail[tab]));
        }
    }
    showPage(Page(current));
    return written;
}

} // namespace Broker::Ui
