// SPDX-License-Identifier: GPL-3.0-or-later
#include "mainwindow.h"

#include "definitionsactions.h"
#include "errorspage.h"
#include "flowpage.h"
#include "icons.h"
#include "forecastalerts.h"
#include "keydialog.h"
#include "palette.h"
#include "brokerspage.h"
#include "keyring.h"
#include "overviewpage.h"
#include "pagegate.h"
#include "queuedetailpage.h"
#include "queuespage.h"
#include "settingspage.h"
#include "userspage.h"

#include "runtime/continuation.h"
#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QFileInfo>
#include <QElapsedTimer>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QLocale>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QScrollArea>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabWidget>
#include <QSystemTrayIcon>

namespace Broker::Ui {

MainWindow::MainWindow(BrokerClient &client, const HostSettings &settings, QWidget *parent)
    : MainWindow(&client, nullptr, settings, parent)
{
}

MainWindow::MainWindow(std::unique_ptr<RemoteConnection> connection, QWidget *parent)
    : MainWindow(nullptr, std::move(connection), HostSettings{}, parent)
{
}

MainWindow::MainWindow(BrokerClient *embedded, std::unique_ptr<RemoteConnection> remote, const HostSettings &settings,
                       QWidget *parent)
    : QMainWindow(parent), m_remote(remote.release()),
      m_connection(m_remote ? static_cast<BrokerConnection &>(*m_remote) : *embedded), m_embedded(embedded),
      m_hostSettings(settings)
{
    BrokerConnection &connection = m_connection;
    setWindowTitle(m_remote ? tr("%1 — BrokerDesk").arg(m_remote->name()) : QStringLiteral("BrokerDesk"));
    auto *central = new QWidget;
    auto *layout = new QHBoxLayout(central);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    m_nav = new QListWidget;
    m_nav->setObjectName(QStringLiteral("navigation"));
    m_nav->setFrameShape(QFrame::NoFrame);
    m_nav->setFixedWidth(160);
    m_nav->setIconSize(QSize(16, 16));
    m_nav->setToolTip(tr("Pages: Ctrl+1 … Ctrl+7"));
    m_stack = new QStackedWidget;
    layout->addWidget(m_nav);
    layout->addWidget(m_stack, 1);
    setCentralWidget(central);

    m_overview = new OverviewPage;
    m_queues = new QueuesPage(connection);
    m_flow = new FlowPage(connection);
    m_users = new UsersPage(connection);
    m_errors = new ErrorsPage;
    addPage(m_overview, tr("Overview"), QStringLiteral("go-home"), tr("Health, totals and rates of the whole broker"));
    addPage(m_queues, tr("Queues"), QStringLiteral("folder"), tr("Every queue: create, publish, browse, purge, delete"));
    addPage(m_flow, tr("Message flow"), QStringLiteral("network-transmit-receive"),
            tr("Rates over time, the live event tail and a message's lifecycle"));
    addPage(m_users, tr("Users"), QStringLiteral("system-users"), tr("Users, their roles and API keys"));
    addPage(m_errors, tr("Errors"), QStringLiteral("dialog-warning"), tr("What went wrong, how often, and where"));
    if (m_embedded) {
        m_settings = new SettingsPage(*m_embedded);
        // Remote brokers: their connections beside the configuration file (no keys: those are in the keyring).
        m_brokers = new BrokersPage(ConnectionProfiles(settings.configFile.isEmpty()
                                                           ? ConnectionProfiles::defaultFile()
                                                           : QFileInfo(settings.configFile).absoluteDir().filePath(QStringLiteral("connections.json"))),
                                    new Keyring(QStringLiteral("brokerdesk"), this));
    }
    // A remote broker's window keeps the sidebar's places (Ctrl+6, Ctrl+7 mean the same in every
    // window), with a notice where the main window's own pages would be.
    addPage(m_settings ? static_cast<QWidget *>(m_settings) : new QWidget, tr("Settings"), QStringLiteral("preferences-system"),
            tr("The broker's configuration file"));
    addPage(m_brokers ? static_cast<QWidget *>(m_brokers) : new QWidget, tr("Brokers"), QStringLiteral("network-server"),
            tr("Every broker this desktop follows, this app's and remote ones, live"));
    connect(m_nav, &QListWidget::currentRowChanged, m_stack, &QStackedWidget::setCurrentIndex);
    // Queue detail: a stack page without a sidebar entry, opened from the queues table.
    m_queueDetail = new QueueDetailPage(connection);
    m_stack->addWidget(m_queueDetail);
    connect(m_queues, &QueuesPage::queueOpened, this, &MainWindow::openQueue);
    connect(m_queueDetail, &QueueDetailPage::backRequested, this, [this] { m_stack->setCurrentIndex(Queues); });
    connect(m_nav, &QListWidget::itemClicked, this, [this] { m_stack->setCurrentIndex(m_nav->currentRow()); });
    m_forecastAlerts = new ForecastAlerts(this);
    connect(m_forecastAlerts, &ForecastAlerts::alertRaised, this, &MainWindow::notify);
    m_nav->setCurrentRow(Overview);

    m_stateLabel = new QLabel;
    m_stateLabel->setObjectName(QStringLiteral("stateLabel"));
    m_urlLabel = new QLabel;
    m_urlLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    statusBar()->addWidget(m_stateLabel);
    statusBar()->addPermanentWidget(m_urlLabel);

    connect(&connection, &BrokerConnection::linkChanged, this, &MainWindow::linkChanged);
    connect(&connection, &BrokerConnection::permissionsChanged, this, &MainWindow::applyPermissions);
    connect(&connection, &BrokerConnection::snapshotUpdated, this, &MainWindow::applySnapshot);
    connect(&connection, &BrokerConnection::directoryUpdated, m_users, &UsersPage::showDirectory);
    connect(&connection, &BrokerConnection::directoryUpdated, m_errors, &ErrorsPage::showDirectory);
    connect(&connection, &BrokerConnection::notificationRaised, this, &MainWindow::notify);
    if (m_embedded) {
        connect(m_embedded, &BrokerClient::stateChanged, this, &MainWindow::embeddedStateChanged);
        connect(m_settings, &SettingsPage::applyRequested, this, &MainWindow::applySettings);
        connect(m_settings, &SettingsPage::tlsReloadRequested, this, &MainWindow::reloadTls);
        connect(m_brokers, &BrokersPage::embeddedOpened, this, [this] { showPage(Overview); });
        connect(m_brokers, &BrokersPage::remoteOpened, this, &MainWindow::openRemote);
        setUpTray();
        m_brokers->loadConnections();
    } else {
        // The start report of a remote broker is what its API tells, as it comes.
        connect(&connection, &BrokerConnection::descriptionChanged, this, &MainWindow::describe);
        m_urlLabel->setText(m_remote->description().apiUrl);
        m_linkTicker.setInterval(1000);
        connect(&m_linkTicker, &QTimer::timeout, this, &MainWindow::linkChanged);
        m_linkTicker.start();
    }
    m_definitions = new DefinitionsActions(connection, this);
    buildMenus();
    applyPermissions();

    // Small screens and tiled windows: the pages scroll rather than forcing a larger window.
    setMinimumSize(640, 480);
    resize(1100, 720);
    if (m_embedded) {
        QSettings state;
        restoreGeometry(state.value(QStringLiteral("window/geometry")).toByteArray());
        restoreState(state.value(QStringLiteral("window/state")).toByteArray());
        const int page = state.value(QStringLiteral("window/page"), int(Overview)).toInt();
        showPage(Page(qBound(0, page, PageCount - 1)));
    } else {
        setAttribute(Qt::WA_DeleteOnClose);
        // The window's last child: deleted after every page that holds it.
        m_remote->setParent(this);
        linkChanged();
        m_remote->start();
    }
}

MainWindow::~MainWindow()
{
    // The remote brokers' windows close with the main window (Quit included): their connections
    // and threads end before the application does.
    for (const QPointer<MainWindow> &window : std::as_const(m_remoteWindows))
        delete window.data();
}

void MainWindow::addPage(QWidget *page, const QString &title, const QString &icon, const QString &tip)
{
    // Pages of forms and figures sit in a scroll area: below their minimum size they scroll, so
    // the window can be made small (800×560 and less) with every control still reachable. Pages
    // that are mostly a table scroll by themselves and stay out of one (a scroll area would
    // re-measure the page on every snapshot tick).
    const bool scrollsItself = page == m_queues || page == m_flow;
    QWidget *content = page;
    if (!scrollsItself) {
        auto *scroll = new QScrollArea;
        scroll->setFrameShape(QFrame::NoFrame);
        scroll->setWidgetResizable(true);
        scroll->setWidget(page);
        content = scroll;
    }
    auto *gate = new PageGate(content);
    m_gates.append(gate);
    m_stack->addWidget(gate);
    auto *item = new QListWidgetItem(themeIcon(icon), title, m_nav);
    item->setToolTip(QStringLiteral("%1 (Ctrl+%2)").arg(tip).arg(m_nav->count()));
    item->setSizeHint(QSize(0, m_nav->fontMetrics().height() + 16));
}

QWidget *MainWindow::pageWidget(Page page) const
{
    QWidget *content = m_gates.value(page) ? m_gates.value(page)->page() : nullptr;
    auto *scroll = qobject_cast<QScrollArea *>(content);
    return scroll ? scroll->widget() : content;
}

bool MainWindow::isPageOpen(Page page) const
{
    return m_gates.value(page) && m_gates.value(page)->isOpen();
}

void MainWindow::applyPermissions()
{
    const auto gate = [this](Page page, bool open, const QString &title, const QString &explanation) {
        PageGate *pageGate = m_gates.value(page);
        QListWidgetItem *item = m_nav->item(page);
        if (open) {
            pageGate->open();
            item->setForeground(QBrush());
            return;
        }
        pageGate->close(title, explanation);
        item->setForeground(palette().brush(QPalette::Disabled, QPalette::Text));
    };
    // Until GET /me answered nothing is known: pages stay as they are rather than flicker.
    const bool known = m_embedded || !m_remote->feed().userId().isEmpty();
    const QString user = m_remote ? m_remote->feed().userId().toHtmlEscaped() : QString();
    const auto lacks = [&](const QString &permission, const QString &what) {
        return tr("The key of <b>%1</b> may not %2: its roles do not grant <tt>%3</tt>. "
                  "Ask an admin of this broker for a key whose roles do.")
            .arg(user, what, permission);
    };
    if (known) {
        // Without list_queues the event stream carries no counters: an empty broker would mislead.
        const bool lists = m_connection.allows(QStringLiteral("list_queues"));
        gate(Overview, lists, tr("Overview: not permitted"), lacks(QStringLiteral("list_queues"), tr("see the broker's queues and figures")));
        gate(Queues, lists, tr("Queues: not permitted"), lacks(QStringLiteral("list_queues"), tr("list the queues")));
        gate(Users, m_connection.allows(QStringLiteral("manage_users")), tr("Users: not permitted"),
             lacks(QStringLiteral("manage_users"), tr("see or manage users")));
        gate(Errors, m_connection.allows(QStringLiteral("view_errors")), tr("Errors: not permitted"),
             lacks(QStringLiteral("view_errors"), tr("see the broker's errors")));
    }
    if (known && m_definitions) {
        // GET and POST /definitions need manage_users (and an import with queues create_queue too,
        // which the broker checks).
        const bool definitions = m_connection.allows(QStringLiteral("manage_users"));
        for (QAction *action : {m_definitions->exportAction(), m_definitions->importAction()}) {
            action->setEnabled(definitions);
            action->setStatusTip(definitions ? QString() : tr("Not permitted: this connection's key lacks manage_users"));
        }
    }
    if (!m_embedded) {
        gate(Settings, false, tr("Settings are the server's"),
             tr("A remote broker is configured on its server (message_broker.yaml, brokerd's flags); "
                "this window administers its queues, messages and users."));
        gate(Brokers, false, tr("Brokers are in the main window"),
             tr("The list of brokers this desktop follows is on the main window's Brokers page."));
    }
}

void MainWindow::linkChanged()
{
    const BrokerConnection::Link link = m_connection.link();
    m_overview->showLink(link, m_connection.linkText());
    if (m_embedded)
        return; // embeddedStateChanged() tells the rest
    m_stateLabel->setText(m_connection.linkText());
    if (link == BrokerConnection::Link::Refused || link == BrokerConnection::Link::Offline)
        m_flow->clear();
}

void MainWindow::describe()
{
    const StartReport description = m_connection.description();
    m_overview->showStart(description);
    m_queues->showStart(description);
    m_queueDetail->showStart(description);
    m_users->showStart(description);
}

MainWindow *MainWindow::remoteWindow(const QString &name) const
{
    return m_remoteWindows.value(name);
}

MainWindow *MainWindow::openRemote(const QString &name, const RemoteEndpoint &endpoint)
{
    if (MainWindow *open = remoteWindow(name)) {
        const RemoteEndpoint &was = open->m_remote->api().endpoint();
        if (was.url == endpoint.url && was.apiKey == endpoint.apiKey && was.caCertificates == endpoint.caCertificates) {
            open->showNormal();
            open->raise();
            open->activateWindow();
            return open;
        }
        delete open; // the connection was edited: its window starts again on the new one
    }
    // A top-level window of its own (no parent: it closes by itself); it owns its connection.
    auto *window = new MainWindow(std::make_unique<RemoteConnection>(name, endpoint));
    m_remoteWindows.insert(name, window);
    window->show();
    return window;
}

MainWindow::Page MainWindow::currentPage() const
{
    return Page(qBound(0, m_nav->currentRow(), PageCount - 1));
}

void MainWindow::focusFilter()
{
    QWidget *page = pageWidget(currentPage());
    if (!page)
        return;
    for (const char *name : {"filter", "tailFilter"}) {
        if (auto *field = page->findChild<QLineEdit *>(QLatin1StringView(name))) {
            field->setFocus(Qt::ShortcutFocusReason);
            field->selectAll();
            return;
        }
    }
}

void MainWindow::refresh()
{
    if (m_connection.link() != BrokerConnection::Link::Online)
        return;
    BrokerSnapshot again = m_lastSnapshot;
    again.recentEvents.clear(); // the tail has them already
    applySnapshot(again);
}

void MainWindow::setTheme(int theme)
{
    const auto chosen = Palette::Theme(qBound(0, theme, 2));
    Palette::applyTheme(chosen);
    QSettings().setValue(QStringLiteral("view/theme"), Palette::themeKey(chosen));
    if (QAction *action = themeAction(int(chosen)))
        action->setChecked(true);
}

QAction *MainWindow::themeAction(int theme) const
{
    const QList<QAction *> actions = m_themes ? m_themes->actions() : QList<QAction *>{};
    return theme >= 0 && theme < actions.size() ? actions.at(theme) : nullptr;
}

void MainWindow::buildMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_definitions->exportAction());
    file->addAction(m_definitions->importAction());
    file->addSeparator();
    if (!m_embedded) {
        QAction *close = file->addAction(tr("&Close"), this, &QWidget::close);
        close->setShortcut(QKeySequence::Close);
        close->setStatusTip(tr("Close this broker's window (the broker goes on)"));
    }
    QAction *quit = file->addAction(tr("&Quit"), qApp, &QApplication::quit);
    quit->setShortcut(QKeySequence::Quit);
    quit->setStatusTip(tr("Stop the broker and close BrokerDesk"));

    QMenu *edit = menuBar()->addMenu(tr("&Edit"));
    QAction *find = edit->addAction(tr("&Filter"), this, &MainWindow::focusFilter);
    find->setShortcut(QKeySequence::Find);
    find->setStatusTip(tr("Type to filter the queues or the event tail"));

    QMenu *view = menuBar()->addMenu(tr("&View"));
    for (int page = 0; page < PageCount; ++page) {
        QAction *go = view->addAction(m_nav->item(page)->icon(), m_nav->item(page)->text(), this,
                                      [this, page] { showPage(Page(page)); });
        go->setShortcut(QKeySequence(QKeyCombination(Qt::CTRL, Qt::Key(Qt::Key_1 + page))));
    }
    view->addSeparator();
    QAction *reload = view->addAction(themeIcon(QStringLiteral("view-refresh")), tr("&Refresh"), this, &MainWindow::refresh);
    reload->setShortcut(QKeySequence::Refresh);
    reload->setStatusTip(tr("Show the newest figures now (they also update a few times a second)"));
    QMenu *theme = view->addMenu(tr("&Theme"));
    m_themes = new QActionGroup(this);
    const std::initializer_list<std::pair<QString, QString>> themes = {
        {tr("&System"), tr("Follow the desktop's colours")},
        {tr("&Light"), tr("Light colours whatever the desktop uses")},
        {tr("&Dark"), tr("Dark colours whatever the desktop uses")},
    };
    int index = 0;
    for (const auto &[text, tip] : themes) {
        QAction *action = theme->addAction(text, this, [this, index] { setTheme(index); });
        action->setCheckable(true);
        action->setStatusTip(tip);
        m_themes->addAction(action);
        ++index;
    }
    const Palette::Theme saved = Palette::themeFromKey(QSettings().value(QStringLiteral("view/theme")).toString());
    if (saved != Palette::Theme::System)
        Palette::applyTheme(saved);
    themeAction(int(saved))->setChecked(true);

    QMenu *queue = menuBar()->addMenu(tr("&Queue"));
    QAction *create = m_queues->newQueueAction();
    queue->addAction(create);
    queue->addSeparator();
    queue->addActions(m_queues->queueActions());
    queue->addSeparator();
    queue->addMenu(m_queues->copyAsMenu());
    // The queue actions act on the Queues page's selection: show it.
    connect(queue, &QMenu::aboutToShow, this, [this] { showPage(Queues); });
    connect(create, &QAction::triggered, this, [this] { showPage(Queues); });

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Keyboard shortcuts"), this, [this] {
        QMessageBox::information(this, tr("Keyboard shortcuts"),
                                 tr("<table>"
                                    "<tr><td>Ctrl+1 … Ctrl+7&nbsp;&nbsp;</td><td>pages</td></tr>"
                                    "<tr><td>Ctrl+F</td><td>filter</td></tr>"
                                    "<tr><td>Ctrl+N</td><td>new queue</td></tr>"
                                    "<tr><td>Delete</td><td>delete the selected queue</td></tr>"
                                    "<tr><td>F5</td><td>refresh</td></tr>"
                                    "<tr><td>Ctrl+Enter</td><td>send, in Publish</td></tr>"
                                    "<tr><td>Esc</td><td>let the event tail run again</td></tr></table>"));
    });
    help->addAction(tr("&About BrokerDesk"), this, [this] {
        QMessageBox::about(this, tr("About BrokerDesk"),
                           tr("BrokerDesk: a message broker with its own desktop administration."));
    });
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
    Q_ASSERT(m_embedded);
    whenFinished(m_embedded->start(m_hostSettings), this, [this](const StartReport &report) { showStartReport(report); });
}

void MainWindow::showStartReport(const StartReport &report, bool showKeys)
{
    m_overview->showStart(report);
    m_queues->showStart(report);
    m_queueDetail->showStart(report);
    m_users->showStart(report);
    m_settings->showStart(report); // on a failure: the file's settings, and a banner with the fixes
    if (!report.ok) {
        m_stateLabel->setText(tr("The broker did not start: %1").arg(report.error));
        if (report.failedStage == StartStage::Listen)
            showPage(Settings); // most often a port in use: the fix is there
        return;
    }
    m_urlLabel->setText(report.apiUrl);
    m_brokers->showEmbeddedState(m_embedded->state(), report.apiUrl);
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

void MainWindow::embeddedStateChanged(BrokerClient::State state)
{
    m_brokers->showEmbeddedState(state, state == BrokerClient::State::Running ? m_urlLabel->text() : QString());
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
    if (&snapshot != &m_lastSnapshot)
        m_lastSnapshot = snapshot; // implicitly shared lists: reference counts, not a copy
    m_overview->showSnapshot(snapshot);
    m_queues->showSnapshot(snapshot);
    m_flow->showSnapshot(snapshot);
    m_queueDetail->showSnapshot(snapshot);
    if (m_brokers)
        m_brokers->showEmbeddedSnapshot(snapshot);
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
    whenFinished(m_embedded->applySettings(next, changes), this,
                 [this, next, descriptions](const Result<ApplyReport> &applied) {
        m_settings->setBusy(false);
        if (!applied) {
            m_settings->showApplyError(applied.error().message);
            return;
        }
        if (applied->attempt.ok) {
            m_hostSettings = next;
            showStartReport(applied->attempt);
            m_stateLabel->setText(descriptions.isEmpty() ? tr("Broker running")
                                                         : tr("Broker restarted: %1").arg(descriptions.join(QStringLiteral("; "))));
            return;
        }
        // The file was put back: the settings in force stay those of before; the form keeps
        // what was tried, under a banner that says what failed and what runs.
        const BrokerConfig tried = m_settings->edited();
        if (applied->rolledBack)
            showStartReport(applied->restored);
        else
            m_stateLabel->setText(tr("The broker did not start: %1").arg(applied->attempt.error));
        m_settings->showApplyFailure(*applied, tried);
        showPage(Settings);
    });
}

void MainWindow::reloadTls(const QList<ConfigChange> &changes, const QStringList &descriptions)
{
    m_settings->setBusy(true);
    whenFinished(m_embedded->reloadTls(m_hostSettings.configFile, changes), this,
                 [this, descriptions](const Result<TlsReloadReport> &reloaded) {
        m_settings->setBusy(false);
        if (!reloaded) {
            m_settings->showTlsReloadFailure(reloaded.error().message);
            return;
        }
        m_settings->showTlsReloaded(reloaded->config);
        m_stateLabel->setText(tr("Certificate reloaded (%1): %2, SHA-256 %3, valid until %4; open connections kept")
                                  .arg(descriptions.join(QStringLiteral("; ")), reloaded->subject, reloaded->fingerprint,
                                       QLocale().toString(reloaded->notAfter.toLocalTime().date(), QLocale::ShortFormat)));
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

void MainWindow::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange && !m_gates.isEmpty())
        applyPermissions(); // the sidebar's greyed entries in the new palette's colour
    QMainWindow::changeEvent(event);
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (!m_embedded)
        return QMainWindow::closeEvent(event); // the main window's place and page are the ones kept
    QSettings state;
    state.setValue(QStringLiteral("window/geometry"), saveGeometry());
    state.setValue(QStringLiteral("window/state"), saveState());
    state.setValue(QStringLiteral("window/page"), m_nav->currentRow());
    QMainWindow::closeEvent(event);
}

QString MainWindow::pageFileName(Page page)
{
    static const char *const names[PageCount] = {"overview", "queues", "flow", "users", "errors", "settings", "brokers"};
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
