// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "runtime/brokerclient.h"

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
class QueueDetailPage;
class QueuesPage;
class SettingsPage;
class UsersPage;

// The coordinator: starts the broker through the BrokerClient, hands its snapshots and reports
// to the pages, shows first-run keys, applies settings by restarting the broker, and keeps the
// tray icon and window state. The pages do the rest.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    enum Page { Overview, Queues, Flow, Users, Errors, Settings, Brokers, PageCount };

    MainWindow(BrokerClient &client, const HostSettings &settings, QWidget *parent = nullptr);
    ~MainWindow() override;

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

private:
    void addPage(QWidget *page, const QString &title, const QString &icon, const QString &tip);
    void buildMenus();
    void stateChanged(BrokerClient::State state);
    void applySnapshot(const BrokerSnapshot &snapshot);
    void applySettings(const QList<ConfigChange> &changes, const QStringList &descriptions);
    // Serves a new certificate without a restart (only api.tls's files or lowest version changed).
    void reloadTls(const QList<Broker::ConfigChange> &changes, const QStringList &descriptions);
    void notify(const ErrorRecord &record);
    void setUpTray();

    BrokerClient &m_client;
    HostSettings m_hostSettings;
    QListWidget *m_nav;
    QStackedWidget *m_stack;
    OverviewPage *m_overview;
    QueuesPage *m_queues;
    FlowPage *m_flow;
    UsersPage *m_users;
    ErrorsPage *m_errors;
    SettingsPage *m_settings;
    BrokersPage *m_brokers;
    QueueDetailPage *m_queueDetail;
    ForecastAlerts *m_forecastAlerts;
    QLabel *m_stateLabel;
    QLabel *m_urlLabel;
    QSystemTrayIcon *m_tray = nullptr;
    QActionGroup *m_themes = nullptr;
    DefinitionsActions *m_definitions = nullptr; // File › Export / Import definitions
    BrokerSnapshot m_lastSnapshot;
    double m_lastApplyMs = 0;
};

} // namespace Broker::Ui
