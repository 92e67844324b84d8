// SPDX-License-Identifier: GPL-3.0-or-later
// The desktop app end to end, offscreen: the window drives a real broker in its worker thread,
// and a REST client on loopback sees the same broker. With BROKER_TEST_REMOTE set (the
// tst_mainwindow_remote test), the same window runs on a remote brokerd started on a free
// loopback port, through a RemoteConnection (REST and the event stream); the embedded broker's
// own cases (first-run key, Settings) are skipped there.
#include "ui/createqueuedialog.h"
#include "ui/eventtailmodel.h"
#include "ui/flowpage.h"
#include "ui/keydialog.h"
#include "ui/mainwindow.h"
#include "ui/publishdialog.h"
#include "ui/queuespage.h"
#include "ui/queuetablemodel.h"
#include "ui/settingspage.h"
#include "ui/userdialog.h"
#include "ui/userspage.h"
#include "ui/usertablemodel.h"

#include "../support/brokerdlaunch.h"
#include "../support/redisserver.h"

#include "../support/desktoptestsettings.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

using namespace Broker;
using namespace Broker::Ui;

class TestMainWindow : public QObject
{
    Q_OBJECT

private:
    struct Reply
    {
        int status = 0;
        QJsonObject json;
    };

    QTemporaryDir m_dir;
    std::unique_ptr<BrokerClient> m_client;
    std::unique_ptr<MainWindow> m_window;
    QNetworkAccessManager m_network;
    QString m_adminKey;
    QProcess m_brokerd;     // remote mode
    QString m_remoteUrl;

    static bool remote() { return qEnvironmentVariableIsSet("BROKER_TEST_REMOTE"); }
    QString apiUrl() const { return remote() ? m_remoteUrl : m_client->lastStart().apiUrl; }
    void startRemote();

    Reply call(const QByteArray &method, const QString &path, const QByteArray &body = {}, QString key = {})
    {
        QNetworkRequest request(QUrl(apiUrl() + path));
        request.setRawHeader("X-API-Key", (key.isEmpty() ? m_adminKey : key).toUtf8());
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        QNetworkReply *reply = m_network.sendCustomRequest(request, method, body);
        Reply result;
        [&] { QTRY_VERIFY_WITH_TIMEOUT(reply->isFinished(), 10000); }();
        result.status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        result.json = QJsonDocument::fromJson(reply->readAll()).object();
        reply->deleteLater();
        return result;
    }

    // Repeats a request until it answers `status` (at most five seconds). Not QTRY_*: that
    // evaluates its expression once more at the end, and a consume must happen only once.
    Reply callUntil(int status, const QByteArray &method, const QString &path, const QByteArray &body = {})
    {
        Reply reply;
        for (int attempt = 0; attempt < 100; ++attempt) {
            reply = call(method, path, body);
            if (reply.status == status)
                break;
            QTest::qWait(50);
        }
        return reply;
    }

    template<typename Dialog>
    Dialog *openDialog()
    {
        Dialog *dialog = nullptr;
        [&] { QTRY_VERIFY((dialog = m_window->findChild<Dialog *>()) != nullptr); }();
        return dialog;
    }

    void clickButton(QWidget *parent, const QString &text)
    {
        for (QPushButton *button : parent->findChildren<QPushButton *>()) {
            if (button->text() == text) {
                QVERIFY2(button->isEnabled(), qPrintable(text));
                button->click();
                return;
            }
        }
        QFAIL(qPrintable("no button " + text));
    }

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void firstRunShowsTheAdminKeyOnce();
    void queueMadeInTheUiIsVisibleOverRest();
    void queueMadeOverRestAppearsInTheTable();
    void restPublishAppearsInTheFlowTail();
    void publishDialogSendsValidJsonOnly();
    void purgeAsksFirst();
    void userMadeInTheUiIsWrittenAndWorks();
    void settingsRestartTheBroker();
    void withTheJournalQueuesSurviveARestart();
    void settingsSwitchTheBrokerToRedis();
    void rendersEveryPage();
};

void TestMainWindow::startRemote()
{
    m_adminKey = QStringLiteral("remote-window-admin-key-0001");
    QFile users(m_dir.filePath("users.yaml"));
    QVERIFY(users.open(QIODevice::WriteOnly));
    users.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    users.write("users:\n  desk_admin: {role: admin, api_key: " + m_adminKey.toUtf8() + "}\n");
    users.close();
    QByteArray log;
    m_remoteUrl = Test::startBrokerd(m_brokerd, BROKERD_PATH, users.fileName(), "0", log);
    QVERIFY2(!m_remoteUrl.isEmpty(), log.constData());
    RemoteEndpoint endpoint{QUrl(m_remoteUrl), m_adminKey.toUtf8(), {}};
    m_window = std::make_unique<MainWindow>(std::make_unique<RemoteConnection>(QStringLiteral("server"), endpoint));
    m_window->show();
    QTRY_COMPARE_WITH_TIMEOUT(m_window->connection().link(), BrokerConnection::Link::Online, 10000);
    // The roles the user dialog offers come from the broker's definitions.
    QTRY_VERIFY(m_window->connection().description().roles.contains("consumer"));
}

void TestMainWindow::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true); // window state goes to a test location
    QVERIFY(m_dir.isValid());
    if (remote())
        return startRemote();
    HostSettings settings = Test::desktopTestSettings(m_dir);
    QVERIFY(!settings.configFile.isEmpty());
    m_client = std::make_unique<BrokerClient>(100);
    m_window = std::make_unique<MainWindow>(*m_client, settings);
    m_window->show();
    m_window->startBroker();
    QTRY_COMPARE_WITH_TIMEOUT(m_client->state(), BrokerClient::State::Running, 10000);
    QCOMPARE(m_client->lastStart().issuedKeys.size(), 1);
    m_adminKey = m_client->lastStart().issuedKeys.first().apiKey;
}

void TestMainWindow::cleanupTestCase()
{
    m_window.reset();
    m_client.reset();
    if (m_brokerd.state() != QProcess::NotRunning) {
        m_brokerd.terminate();
        QVERIFY(m_brokerd.waitForFinished(10000));
    }
}

void TestMainWindow::firstRunShowsTheAdminKeyOnce()
{
    if (remote())
        QSKIP("the embedded broker's own (a remote broker is configured on its server)");
    auto *dialog = openDialog<KeyDialog>();
    QCOMPARE(dialog->findChild<QLineEdit *>("apiKey")->text(), m_adminKey);
    QFile users(m_dir.filePath("users.yaml"));
    QVERIFY(users.open(QIODevice::ReadOnly));
    QVERIFY(!users.readAll().contains(m_adminKey.toUtf8())); // only its hash is kept
    dialog->accept();
    QTRY_VERIFY(m_window->findChild<KeyDialog *>() == nullptr);
}

void TestMainWindow::queueMadeInTheUiIsVisibleOverRest()
{
    m_window->showPage(MainWindow::Queues);
    m_window->queuesPage()->newQueueAction()->trigger(); // the tool bar's "New queue…"
    auto *dialog = openDialog<CreateQueueDialog>();
    dialog->findChild<QLineEdit *>("name")->setText("ui.made");
    dialog->findChild<QComboBox *>("type")->setCurrentText("priority");
    QVERIFY(dialog->requestBody().contains(R"("type":"priority")"));
    dialog->accept();

    const Reply reply = callUntil(200, "GET", "/queues/ui.made");
    QCOMPARE(reply.status, 200);
    QCOMPARE(reply.json.value("type").toString(), "priority");
    QTRY_VERIFY(m_window->queuesPage()->model()->rowOf("ui.made") >= 0);
}

void TestMainWindow::queueMadeOverRestAppearsInTheTable()
{
    QCOMPARE(call("POST", "/queues", R"({"name":"rest.made","options":{"max_size":50}})").status, 200);
    QTRY_VERIFY(m_window->queuesPage()->model()->rowOf("rest.made") >= 0);
    const QueueInfo &info = m_window->queuesPage()->model()->rowAt(m_window->queuesPage()->model()->rowOf("rest.made"));
    QCOMPARE(info.config.maxSize, 50);
}

void TestMainWindow::restPublishAppearsInTheFlowTail()
{
    const Reply published = call("POST", "/messages/rest.made", R"({"message":{"n":1}})");
    QCOMPARE(published.status, 200);
    const QString id = published.json.value("message_id").toString();
    QVERIFY(!id.isEmpty());
    EventTailModel *tail = m_window->flowPage()->tail();
    auto rowOf = [&] {
        for (int row = 0; row < tail->rowCount(); ++row) {
            if (tail->index(row, 0).data(EventTailModel::MessageIdRole).toString() == id)
                return row;
        }
        return -1;
    };
    QTRY_VERIFY(rowOf() >= 0);
    QCOMPARE(tail->index(rowOf(), EventTailModel::Event).data().toString(), "published");
    QCOMPARE(tail->index(rowOf(), EventTailModel::Queue).data().toString(), "rest.made");

    // Selecting it shows its lifecycle; consuming it over REST adds the next steps.
    QCOMPARE(call("GET", "/messages/rest.made").status, 200);
    m_window->flowPage()->showLifecycle(QStringLiteral("rest.made"), id);
    QTRY_COMPARE(m_window->flowPage()->timeline()->topLevelItemCount(), 3); // published, delivered, acked
    QCOMPARE(m_window->flowPage()->timeline()->topLevelItem(1)->text(0), "delivered");
    QVERIFY(m_window->flowPage()->timeline()->topLevelItem(1)->text(2).startsWith("+"));
}

void TestMainWindow::publishDialogSendsValidJsonOnly()
{
    QueuesPage *page = m_window->queuesPage();
    page->selectQueue("rest.made");
    QCOMPARE(page->selectedQueue(), "rest.made");
    page->publishMessage();
    auto *dialog = openDialog<PublishDialog>();
    auto *editor = dialog->findChild<QPlainTextEdit *>("json");
    editor->setPlainText("{\"broken\": ");
    QPushButton *send = nullptr;
    for (QPushButton *button : dialog->findChildren<QPushButton *>())
        send = button->text() == "Send" ? button : send;
    QVERIFY(send);
    QVERIFY(!send->isEnabled());
    editor->setPlainText("{\"from\": \"ui\"}");
    QVERIFY(send->isEnabled());
    send->click();

    const Reply consumed = callUntil(200, "GET", "/messages/rest.made");
    QCOMPARE(consumed.status, 200);
    QCOMPARE(consumed.json.value("message").toObject().value("data").toObject().value("from").toString(), "ui");
}

void TestMainWindow::purgeAsksFirst()
{
    for (int i = 0; i < 3; ++i)
        QCOMPARE(call("POST", "/messages/ui.made", R"({"message":1})").status, 200);
    QueuesPage *page = m_window->queuesPage();
    QueueTableModel *model = page->model();
    QTRY_COMPARE(model->rowAt(model->rowOf("ui.made")).depth, 3);
    page->selectQueue("ui.made");
    page->purgeQueue();
    auto *box = openDialog<QMessageBox>();
    QCOMPARE(model->rowAt(model->rowOf("ui.made")).depth, 3); // nothing happens before the answer
    clickButton(box, "Purge");
    QTRY_COMPARE(model->rowAt(model->rowOf("ui.made")).depth, 0);
}

void TestMainWindow::userMadeInTheUiIsWrittenAndWorks()
{
    m_window->showPage(MainWindow::Users);
    UsersPage *page = m_window->usersPage();
    QTRY_COMPARE(page->model()->rowCount(), 1);
    page->addUser();
    auto *dialog = openDialog<UserDialog>();
    dialog->findChild<QLineEdit *>("id")->setText("reporting");
    dialog->findChild<QLineEdit *>("name")->setText("Nightly reports");
    dialog->findChild<QCheckBox *>("role-consumer")->setChecked(true);
    dialog->accept();

    auto *keyDialog = openDialog<KeyDialog>();
    const QString key = keyDialog->findChild<QLineEdit *>("apiKey")->text();
    QVERIFY(key.size() >= 43);
    keyDialog->accept();
    QTRY_COMPARE(page->model()->rowCount(), 2);
    QFile users(m_dir.filePath("users.yaml"));
    QVERIFY(users.open(QIODevice::ReadOnly));
    const QByteArray text = users.readAll();
    QVERIFY(text.contains("reporting"));
    QVERIFY(text.contains("Nightly reports"));
    QVERIFY(!text.contains(key.toUtf8()));

    // The new key works over REST with the consumer's rights, and no more.
    QCOMPARE(call("GET", "/queues", {}, key).status, 200);
    QCOMPARE(call("POST", "/queues", R"({"name":"nope"})", key).status, 403);
    QTRY_VERIFY(page->model()->rowAt(1).lastUsedMs > 0);
}

void TestMainWindow::settingsRestartTheBroker()
{
    if (remote())
        QSKIP("the embedded broker's own (a remote broker is configured on its server)");
    QTcpServer probe; // a port that is free right now
    QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
    const int port = probe.serverPort();
    probe.close();

    m_window->showPage(MainWindow::Settings);
    SettingsPage *page = m_window->settingsPage();
    page->findChild<QSpinBox *>("port")->setValue(port);
    QCOMPARE(page->describeChanges(), QStringList{QStringLiteral("port: 0 → %1").arg(port)});
    clickButton(page, "Apply and restart broker");
    QTRY_COMPARE_WITH_TIMEOUT(m_client->lastStart().apiUrl, QStringLiteral("http://127.0.0.1:%1").arg(port), 10000);
    QTRY_COMPARE(m_client->state(), BrokerClient::State::Running);
    QCOMPARE(call("GET", "/health/live").status, 200);
    QFile config(m_dir.filePath("message_broker.yaml"));
    QVERIFY(config.open(QIODevice::ReadOnly));
    QVERIFY(config.readAll().contains(QStringLiteral("port: %1").arg(port).toUtf8()));
    QVERIFY(page->changes().isEmpty()); // the form shows the settings in force again
}

void TestMainWindow::withTheJournalQueuesSurviveARestart()
{
    if (remote())
        QSKIP("the embedded broker's own (a remote broker is configured on its server)");
    SettingsPage *page = m_window->settingsPage();
    page->findChild<QCheckBox *>("journal")->setChecked(true);
    QCOMPARE(page->describeChanges(), QStringList{"journal: off → on"});
    clickButton(page, "Apply and restart broker");
    QTRY_COMPARE_WITH_TIMEOUT(m_client->lastStart().durability, QString("everysec"), 10000);
    QTRY_COMPARE(m_client->state(), BrokerClient::State::Running);
    QCOMPARE(call("POST", "/queues", R"({"name":"durable"})").status, 200);
    QCOMPARE(call("POST", "/messages/durable", R"({"message":"kept"})").status, 200);

    // Another restart (a port change) replays the journal.
    page->findChild<QSpinBox *>("port")->setValue(0);
    clickButton(page, "Apply and restart broker");
    QTRY_VERIFY_WITH_TIMEOUT(m_client->lastStart().config.api.port == 0 && m_client->state() == BrokerClient::State::Running, 10000);
    const Reply info = callUntil(200, "GET", "/queues/durable");
    QCOMPARE(info.status, 200);
    QCOMPARE(info.json.value("message_count").toInt(), 1);
    QVERIFY(QFile::exists(m_dir.filePath("journal")));
}

void TestMainWindow::settingsSwitchTheBrokerToRedis()
{
    if (remote())
        QSKIP("the embedded broker's own (a remote broker is configured on its server)");
    Testing::RedisServer redis;
    QVERIFY2(redis.start(), qPrintable(redis.errorString()));
    SettingsPage *page = m_window->settingsPage();
    auto *backend = page->findChild<QComboBox *>("backend");
    backend->setCurrentIndex(backend->findData("redis"));
    page->findChild<QSpinBox *>("redisPort")->setValue(redis.port());
    QVERIFY(page->describeChanges().contains("storage: memory → redis"));
    clickButton(page, "Apply and restart broker");
    // The memory store's queues stay behind, out of view: asked first.
    auto *box = openDialog<QMessageBox>();
    QVERIFY2(box->text().contains("not shown while the broker runs on Redis"), qPrintable(box->text()));
    clickButton(box, "Switch to Redis");
    QTRY_VERIFY_WITH_TIMEOUT(m_client->lastStart().storage == "redis" && m_client->state() == BrokerClient::State::Running, 10000);
    QCOMPARE(callUntil(200, "POST", "/queues", R"({"name":"shared"})").status, 200);
    QCOMPARE(redis.cli({"SISMEMBER", "brokerdesk:queues", "shared"}), QByteArray("1"));

    // The Overview page shows the link to Redis.
    m_window->showPage(MainWindow::Overview);
    auto *state = m_window->findChild<QLabel *>("backendState");
    QTRY_VERIFY(state && state->isVisible() && state->text().contains("circuit breaker closed"));
    QVERIFY(state->text().contains("connections up"));

    // Back to the memory store before the server goes away.
    backend->setCurrentIndex(backend->findData("memory"));
    clickButton(page, "Apply and restart broker");
    QTRY_VERIFY_WITH_TIMEOUT(m_client->lastStart().storage == "memory" && m_client->state() == BrokerClient::State::Running, 10000);
    QTRY_VERIFY(!state->isVisible());
}

void TestMainWindow::rendersEveryPage()
{
    const QStringList written = m_window->renderPages(m_dir.filePath("shots"));
    QCOMPARE(written.size(), int(MainWindow::PageCount));
    for (const QString &file : written) {
        QImage image(file);
        QVERIFY2(image.width() >= 600 && image.height() >= 400, qPrintable(file));
    }
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
