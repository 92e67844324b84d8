// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "runtime/brokerclient.h"
#include "runtime/remoteconnection.h"

#include <QMap>
#include <QPointer>
#include <QTimer>

#include <memory>

#include <QMainWindow>

class QAction;
class QActionGroup;
class QLabel;
class QListWidget;
class QStackedWidget;
class QSystemTrayIcon;

namespace Broker::Ui {

class BrokersPage;
class DefinitionsActions;
class ErrorsPage;
class FlowPage;
class ForecastAlerts;
class OverviewPage;
class PageGate;
class QueueDetailPage;
class QueuesPage;
class SettingsPage;
class UsersPage;

// The coordinator of one broker's window. The app's main window: starts the embedded broker
// through the BrokerClient, hands its snapshots and reports to the pages, shows first-run keys,
// applies settings by restarting the broker, keeps the tray icon and window state, and opens a
// window of its own for each remote broker opened on the Brokers page. A remote broker's window:
// the same pages on a RemoteConnection (it owns it), its link always in the status bar, pages the
// key may not use shown as not permitted, and Settings and Brokers as the main window's alone.
// The pages do the rest.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    enum Page { Overview, Queues, Flow, Users, Errors, Settings, Brokers, PageCount };

    MainWindow(BrokerClient &client, const HostSettings &settings, QWidget *parent = nullptr);
    // A remote broker's window; takes `connection` (and starts it).
    explicit MainWindow(std::unique_ptr<RemoteConnection> connection, QWidget *parent = nullptr);
    ~MainWindow() override;

    BrokerConnection &connection() const { return m_connection; }
    // The remote brokers' windows this window opened (still open), by connection name.
    MainWindow *remoteWindow(const QString &name) const;
    // Opens (or raises) the window of a remote broker.
    MainWindow *openRemote(const QString &name, const RemoteEndpoint &endpoint);
    // Whether `page` can be used here (false: a notice says why in its place).
    bool isPageOpen(Page page) const;

    void startBroker();
    // Hands a start's outcome to the pages; with `showKeys`, newly issued keys are shown once.
    void showStartReport(const Broker::StartReport &report, bool showKeys = true);
    void showPage(Page page);
    // Renders every page to <dir>/<name>.png at the window's size; returns the files written.
    QStringList renderPages(const QString &dir);
    static QString pageFileName(Page page);

    OverviewPage *overviewPage() const { return m_overview; }
    QueuesPage *queuesPage() const { return m_queues; }
    FlowPage *flowPage() const { return m_flow; }
    UsersPage *usersPage() const { return m_users; }
    ErrorsPage *errorsPage() const { return m_errors; }
    SettingsPage *settingsPage() const { return m_settings; }
    BrokersPage *brokersPage() const { return m_brokers; }
    QWidget *pageWidget(Page page) const;
    Page currentPage() const;
    // Focuses the current page's filter field (Ctrl+F), if it has one.
    void focusFilter();
    // Shows the newest figures again on every page (F5); events are not replayed.
    void refresh();
    // A Palette::Theme as int; System follows the desktop. Kept in QSettings (view/theme).
    void setTheme(int theme);
    QAction *themeAction(int theme) const;
    // One queue in full, shown in place of the queues table (the sidebar stays on Queues).
    QueueDetailPage *queueDetailPage() const { return m_queueDetail; }
    void openQueue(const QString &queue);
    // How long the last snapshot took to reach every page's model (not the repaint), in ms.
    double lastSnapshotApplyMs() const { return m_lastApplyMs; }

protected:
    void closeEvent(QCloseEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    // One of `embedded` and `remote`.
    MainWindow(BrokerClient *embedded, std::unique_ptr<RemoteConnection> remote, const HostSettings &settings,
               QWidget *parent);
    void addPage(QWidget *page, const QString &title, const QString &icon, const QString &tip);
    // Gates the pages on what the connection may do, and the embedded broker's own pages.
    void applyPermissions();
    void linkChanged();
    void describe();
    void buildMenus();
    void embeddedStateChanged(BrokerClient::State state);
    void applySnapshot(const BrokerSnapshot &snapshot);
    void applySettings(const QList<ConfigChange> &changes, const QStringList &descriptions);
    // Serves a new certificate without a restart (only api.tls's files or lowest version changed).
    void reloadTls(const QList<Broker::ConfigChange> &changes, const QStringList &descriptions);
    void notify(const ErrorRecord &record);
    void setUpTray();

    RemoteConnection *m_remote;                 // a remote broker's window owns it (its last child); else null
    BrokerConnection &m_connection;
    BrokerClient *m_embedded;                   // null in a remote broker's window
    HostSettings m_hostSettings;
    QList<PageGate *> m_gates;                  // one per Page, in order
    QTimer m_linkTicker;                        // a remote link's words age (retry countdown, silence)
    QListWidget *m_nav;
    QStackedWidget *m_stack;
    OverviewPage *m_overview;
    QueuesPage *m_queues;
    FlowPage *m_flow;
    UsersPage *m_users;
    ErrorsPage *m_errors;
    SettingsPage *m_settings = nullptr;         // null in a remote broker's window
    BrokersPage *m_brokers = nullptr;           // likewise
    QueueDetailPage *m_queueDetail;
    ForecastAlerts *m_forecastAlerts;
    QLabel *m_stateLabel;
    QLabel *m_urlLabel;
    QSystemTrayIcon *m_tray = nullptr;
    QActionGroup *m_themes = nullptr;
    DefinitionsActions *m_definitions = nullptr; // File › Export / Import definitions
    QMap<QString, QPointer<MainWindow>> m_remoteWindows;
    BrokerSnapshot m_lastSnapshot;
    double m_lastApplyMs = 0;
};

} // namespace Broker::Ui
