// SPDX-License-Identifier: GPL-3.0-or-later
// A remote broker's window against a real brokerd on a free loopback port: a key without
// manage_users sees Users (and a consumer's key Errors and New queue) as not permitted rather
// than failing; stopping brokerd shows "reconnecting" and keeps the figures, starting it again on
// the same port brings the window back live; the Brokers page of the main window opens a remote
// broker in a window of its own, once.
#include "../support/brokerdlaunch.h"
#include "../support/desktoptestsettings.h"

#include "ui/brokerspage.h"
#include "ui/eventtailmodel.h"
#include "ui/flowpage.h"
#include "ui/mainwindow.h"
#include "ui/messagebrowser.h"
#include "ui/messagelistmodel.h"
#include "ui/queuedetailpage.h"
#include "ui/overviewpage.h"
#include "ui/pagegate.h"
#include "ui/queuespage.h"
#include "ui/queuetablemodel.h"
#include "ui/userspage.h"
#include "ui/usertablemodel.h"

#include <QAction>
#include <QLabel>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QPushButton>
#include <QTableView>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace Broker;
using namespace Broker::Ui;

namespace {

const QByteArray AdminKey = "remote-window-admin-key-0001";
const QByteArray WatcherKey = "remote-window-watcher-key-0001";

} // namespace

class TestRemoteWindow : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QProcess m_brokerd;
    QString m_url;
    QString m_port;
    QByteArray m_log;

    bool startBrokerd(const QString &port)
    {
        m_url = Test::startBrokerd(m_brokerd, BROKERD_PATH, m_dir.filePath("users.yaml"), port, m_log);
        m_port = m_url.section(':', -1);
        return !m_url.isEmpty();
    }

    int call(const QByteArray &method, const QString &path, const QByteArray &body = {})
    {
        QNetworkAccessManager network;
        QNetworkRequest request(QUrl(m_url + path));
        request.setRawHeader("X-API-Key", AdminKey);
        request.setHeader(QNetworkRequest::ContentTypeHeader, "application/json");
        QNetworkReply *reply = network.sendCustomRequest(request, method, body);
        if (!QTest::qWaitFor([reply] { return reply->isFinished(); }, 10'000))
            return 0;
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        reply->deleteLater();
        return status;
    }

    std::unique_ptr<MainWindow> openWindow(const QByteArray &key)
    {
        auto window = std::make_unique<MainWindow>(
            std::make_unique<RemoteConnection>(QStringLiteral("server"), RemoteEndpoint{QUrl(m_url), key, {}}));
        window->show();
        return window;
    }

    static PageGate *gateOf(const MainWindow &window, MainWindow::Page page)
    {
        QWidget *widget = window.pageWidget(page);
        while (widget && !qobject_cast<PageGate *>(widget))
            widget = widget->parentWidget();
        return qobject_cast<PageGate *>(widget);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QFile users(m_dir.filePath("users.yaml"));
        QVERIFY(users.open(QIODevice::WriteOnly));
        users.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
        users.write("users:\n  desk_admin: {role: admin, api_key: " + AdminKey + "}\n"
                    "  watcher: {role: consumer, api_key: " + WatcherKey + "}\n");
        users.close();
        QVERIFY2(startBrokerd("0"), m_log.constData());
    }

    void cleanupTestCase()
    {
        m_brokerd.terminate();
        QVERIFY(m_brokerd.waitForFinished(10'000));
    }

    void anAdminKeySeesEveryPage()
    {
        const auto window = openWindow(AdminKey);
        QTRY_COMPARE_WITH_TIMEOUT(window->connection().link(), BrokerConnection::Link::Online, 10'000);
        QVERIFY(window->windowTitle().startsWith("server"));
        QTRY_VERIFY(window->findChild<QLabel *>("stateLabel")->text().startsWith("connected as desk_admin"));
        for (const MainWindow::Page page : {MainWindow::Overview, MainWindow::Queues, MainWindow::Flow, MainWindow::Users,
                                            MainWindow::Errors})
            QVERIFY2(window->isPageOpen(page), qPrintable(MainWindow::pageFileName(page)));
        // The main window's own pages are not this window's.
        QVERIFY(!window->isPageOpen(MainWindow::Settings));
        QVERIFY(!window->isPageOpen(MainWindow::Brokers));
        QVERIFY(window->queuesPage()->newQueueAction()->isEnabled());
        int definitionActions = 0;
        for (QAction *file : window->findChildren<QAction *>()) {
            if (file->text().startsWith("Export definitions") || file->text().startsWith("Import definitions")) {
                QVERIFY(file->isEnabled());
                ++definitionActions;
            }
        }
        QCOMPARE(definitionActions, 2);
        QTRY_COMPARE(window->usersPage()->model()->rowCount(), 2); // GET /users
        // The event stream leaves the uptime out; it counts from the broker's start (GET /health).
        qint64 uptime = 0;
        connect(&window->connection(), &BrokerConnection::snapshotUpdated, this,
                [&uptime](const BrokerSnapshot &snapshot) { uptime = snapshot.uptimeSeconds; });
        QCOMPARE(call("POST", "/queues", R"({"name":"uptime.tick"})"), 200); // a change: a snapshot
        QTRY_VERIFY_WITH_TIMEOUT(uptime >= 1, 5000);
        QVERIFY(uptime < 600);
    }

    void aKeyWithoutManageUsersSeesUsersAsNotPermitted()
    {
        const auto window = openWindow(WatcherKey);
        QTRY_COMPARE_WITH_TIMEOUT(window->connection().link(), BrokerConnection::Link::Online, 10'000);
        QTRY_VERIFY(!window->isPageOpen(MainWindow::Users));
        PageGate *users = gateOf(*window, MainWindow::Users);
        QVERIFY(users);
        QVERIFY2(users->notice()->text().contains("manage_users"), qPrintable(users->notice()->text()));
        QVERIFY(users->notice()->text().contains("watcher"));
        QVERIFY(!window->isPageOpen(MainWindow::Errors)); // a consumer lacks view_errors
        QVERIFY(window->isPageOpen(MainWindow::Queues));  // list_queues and peek it has
        // Actions the key may not use are greyed and say why; those it may use are not.
        QCOMPARE(call("POST", "/queues", R"({"name":"watched"})"), 200);
        QTRY_VERIFY(window->queuesPage()->model()->rowOf("watched") >= 0);
        QAction *create = window->queuesPage()->newQueueAction();
        QVERIFY(!create->isEnabled());
        QVERIFY(create->toolTip().contains("create_queue"));
        window->queuesPage()->selectQueue("watched");
        const QList<QAction *> actions = window->queuesPage()->queueActions();
        const auto action = [&](const QString &text) {
            for (QAction *candidate : actions) {
                if (candidate->text().remove('&').startsWith(text))
                    return candidate;
            }
            return static_cast<QAction *>(nullptr);
        };
        QVERIFY(action("Browse") && action("Browse")->isEnabled());    // peek:*
        QVERIFY(action("Publish") && !action("Publish")->isEnabled()); // no publish:*
        QVERIFY(action("Delete") && !action("Delete")->isEnabled());   // no delete_queue
        // In the queue's message browser: deleting needs purge_queue, moving consume.
        QCOMPARE(call("POST", "/messages/watched", R"({"message":{"n":1}})"), 200);
        window->openQueue("watched");
        MessageBrowser *browser = window->queueDetailPage()->messageBrowser();
        QTRY_VERIFY(browser->model()->rowCount() > 0);
        browser->view()->selectRow(0);
        auto *deleteMessages = browser->findChild<QPushButton *>("deleteMessages");
        QVERIFY(deleteMessages);
        QVERIFY(!deleteMessages->isEnabled());
        QVERIFY2(deleteMessages->toolTip().contains("purge_queue:watched"), qPrintable(deleteMessages->toolTip()));
        QVERIFY(!browser->findChild<QPushButton *>("moveMessages")->toolTip().contains("Not permitted")); // consume: it may
        // Definitions need manage_users: File › Export and Import are greyed.
        for (QAction *file : window->findChildren<QAction *>()) {
            if (file->text().startsWith("Export definitions") || file->text().startsWith("Import definitions"))
                QVERIFY2(!file->isEnabled(), qPrintable(file->text()));
        }
        // The users list was never asked for: no 403 shown anywhere.
        QCOMPARE(window->usersPage()->model()->rowCount(), 0);
    }

    void aStoppedBrokerShowsReconnectingAndComesBack()
    {
        const auto window = openWindow(AdminKey);
        QTRY_COMPARE_WITH_TIMEOUT(window->connection().link(), BrokerConnection::Link::Online, 10'000);
        QCOMPARE(call("POST", "/queues", R"({"name":"before.stop"})"), 200);
        QTRY_VERIFY(window->queuesPage()->model()->rowOf("before.stop") >= 0);

        m_brokerd.terminate();
        QVERIFY(m_brokerd.waitForFinished(10'000));
        QTRY_COMPARE_WITH_TIMEOUT(window->connection().link(), BrokerConnection::Link::Reconnecting, 10'000);
        QTRY_VERIFY(window->findChild<QLabel *>("stateLabel")->text().startsWith("reconnecting in"));
        // The last figures stay while it is away.
        QVERIFY(window->queuesPage()->model()->rowOf("before.stop") >= 0);

        QVERIFY2(startBrokerd(m_port), m_log.constData());
        QTRY_COMPARE_WITH_TIMEOUT(window->connection().link(), BrokerConnection::Link::Online, 20'000);
        // A memory-store brokerd comes back empty: the window shows the broker as it is now, and
        // what happens next reaches the event tail.
        QTRY_VERIFY(window->queuesPage()->model()->rowOf("before.stop") < 0);
        QCOMPARE(call("POST", "/queues", R"({"name":"after.start"})"), 200);
        QCOMPARE(call("POST", "/messages/after.start", R"({"message":{"n":1}})"), 200);
        EventTailModel *tail = window->flowPage()->tail();
        QTRY_VERIFY_WITH_TIMEOUT(tail->rowCount() > 0
                                     && tail->index(tail->rowCount() - 1, EventTailModel::Queue).data().toString() == "after.start",
                                 10'000);
    }

    void theBrokersPageOpensARemoteBrokerInItsOwnWindow()
    {
        QTemporaryDir desk;
        HostSettings settings = Test::desktopTestSettings(desk);
        QVERIFY(!settings.configFile.isEmpty());
        BrokerClient client(100); // not started: the main window works without its embedded broker running
        MainWindow main(client, settings);
        main.show();
        const ConnectionProfile server{QStringLiteral("server"), QUrl(m_url), {}, ConnectionProfile::KeySource::AskEachSession, {}};
        QVERIFY(main.brokersPage()->addConnection(server, AdminKey).ok());
        main.brokersPage()->open(QStringLiteral("server"));
        QPointer<MainWindow> opened = main.remoteWindow(QStringLiteral("server"));
        QVERIFY(opened);
        QVERIFY(opened->isVisible());
        QVERIFY(!opened->connection().isEmbedded());
        QTRY_COMPARE_WITH_TIMEOUT(opened->connection().link(), BrokerConnection::Link::Online, 10'000);
        // Opened again: the same window comes forward, no second one.
        main.brokersPage()->open(QStringLiteral("server"));
        QCOMPARE(main.remoteWindow(QStringLiteral("server")), opened.data());
        // Closed, it is gone (it owned its connection).
        opened->close();
        QTRY_VERIFY(opened.isNull());
        QVERIFY(!main.remoteWindow(QStringLiteral("server")));

        // Opened with another key (the connection was edited): a new window on the new endpoint.
        QPointer<MainWindow> first = main.openRemote(QStringLiteral("server"), RemoteEndpoint{QUrl(m_url), AdminKey, {}});
        QPointer<MainWindow> second = main.openRemote(QStringLiteral("server"), RemoteEndpoint{QUrl(m_url), WatcherKey, {}});
        QVERIFY(first.isNull());
        QVERIFY(second);
        QTRY_COMPARE_WITH_TIMEOUT(second->connection().link(), BrokerConnection::Link::Online, 10'000);
        QTRY_VERIFY(!second->isPageOpen(MainWindow::Users)); // the watcher's key now
    }

    void remoteWindowsCloseWithTheMainWindow()
    {
        QTemporaryDir desk;
        const HostSettings settings = Test::desktopTestSettings(desk);
        BrokerClient client(100);
        QPointer<MainWindow> opened;
        {
            MainWindow main(client, settings);
            opened = main.openRemote(QStringLiteral("server"), RemoteEndpoint{QUrl(m_url), AdminKey, {}});
            QTRY_COMPARE_WITH_TIMEOUT(opened->connection().link(), BrokerConnection::Link::Online, 10'000);
        } // Quit: the main window goes
        QVERIFY(opened.isNull()); // at once, not at a later event loop turn that would never come
    }
};

QTEST_MAIN(TestRemoteWindow)
#include "tst_remotewindow.moc"
