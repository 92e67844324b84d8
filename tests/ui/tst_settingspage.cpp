// SPDX-License-Identifier: GPL-3.0-or-later
// First start and Settings as a user meets them, offscreen, with the window driving a real broker:
// a taken port at first start loses no key, a failed Apply leaves the broker running on what
// worked, the form shows what runs (also a --port of the command line), and Test connection
// says whether Redis answers.
#include "ui/keydialog.h"
#include "ui/mainwindow.h"
#include "ui/settingspage.h"

#include "settingsdesk.h"

#include "../support/redisserver.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCryptographicHash>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

using namespace Broker;
using namespace Broker::Ui;
using Broker::Testing::Desk;
using Broker::Testing::configOnPort;


class TestSettingsPage : public QObject
{
    Q_OBJECT

private:
    QNetworkAccessManager m_network;

    int status(const QString &url, const QString &key = {})
    {
        QNetworkRequest request{QUrl(url)};
        if (!key.isEmpty())
            request.setRawHeader("X-API-Key", key.toUtf8());
        QNetworkReply *reply = m_network.get(request);
        [&] { QTRY_VERIFY_WITH_TIMEOUT(reply->isFinished(), 10000); }();
        const int code = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        reply->deleteLater();
        return code;
    }

private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void firstStartOnATakenPortKeepsTheKey();
    void failedApplyKeepsTheBrokerRunning();
    void commandLinePortIsWhatTheFormShows();
    void switchingToRedisSaysWhatStaysBehind_data();
    void switchingToRedisSaysWhatStaysBehind();
    void testConnectionSaysWhetherRedisAnswers_data();
    void testConnectionSaysWhetherRedisAnswers();
};

void TestSettingsPage::firstStartOnATakenPortKeepsTheKey()
{
    QTcpServer taken;
    QVERIFY(taken.listen(QHostAddress::LocalHost, 0));
    Desk desk(configOnPort(taken.serverPort()) + "storage: {memory: {journal: {enabled: true}}}\n");
    QTRY_COMPARE_WITH_TIMEOUT(desk.client->state(), BrokerClient::State::Failed, 10000);

    // Nothing was written that nobody saw, and no key is shown for a broker that is not there.
    QVERIFY(!QFile::exists(desk.dir.filePath("users.yaml")));
    QVERIFY(desk.window->findChild<KeyDialog *>() == nullptr);
    // Settings says why, shows what the file says (not the defaults), and offers a free port.
    QVERIFY(desk.page()->isVisible());
    QVERIFY2(desk.page()->problem().contains("did not start"), qPrintable(desk.page()->problem()));
    QVERIFY(desk.page()->problem().contains(QStringLiteral("127.0.0.1:%1").arg(taken.serverPort())));
    QCOMPARE(desk.page()->findChild<QSpinBox *>("port")->value(), int(taken.serverPort()));
    QVERIFY(desk.page()->findChild<QCheckBox *>("journal")->isChecked());
    QVERIFY(desk.page()->changes().isEmpty());
    if (!qEnvironmentVariableIsEmpty("BROKER_UI_SHOTS"))
        desk.window->grab().save(qEnvironmentVariable("BROKER_UI_SHOTS") + "/settings-port-taken.png");
    QPushButton *useFree = desk.button("useFreePort");
    QVERIFY(useFree && useFree->isVisible());
    useFree->click();

    QTRY_VERIFY_WITH_TIMEOUT(desk.running(), 10000);
    QVERIFY(desk.page()->problem().isEmpty());
    KeyDialog *dialog = nullptr;
    QTRY_VERIFY((dialog = desk.window->findChild<KeyDialog *>()) != nullptr);
    const QString key = dialog->findChild<QLineEdit *>("apiKey")->text();
    QVERIFY(key.size() >= 43);
    const QByteArray users = desk.file("users.yaml");
    const QByteArray hash = QCryptographicHash::hash(key.toUtf8(), QCryptographicHash::Sha256).toHex();
    QVERIFY2(users.contains("api_key_sha256: " + hash), users.constData());
    QVERIFY(!users.contains(key.toUtf8()));
    QCOMPARE(status(desk.client->lastStart().apiUrl + "/users", key), 200);
    QVERIFY(desk.file("message_broker.yaml").contains(desk.client->lastStart().apiUrl.section(':', -1).toUtf8()));
}

void TestSettingsPage::failedApplyKeepsTheBrokerRunning()
{
    Desk desk(configOnPort(0));
    QTRY_VERIFY_WITH_TIMEOUT(desk.running(), 10000);
    QTcpServer taken;
    QVERIFY(taken.listen(QHostAddress::LocalHost, 0));
    const int triedPort = taken.serverPort();

    desk.window->showPage(MainWindow::Settings);
    auto *port = desk.page()->findChild<QSpinBox *>("port");
    port->setValue(triedPort);
    desk.button("apply")->click();
    QTRY_VERIFY_WITH_TIMEOUT(desk.page()->problem().contains("did not work"), 10000);
    QTRY_VERIFY_WITH_TIMEOUT(desk.running(), 10000);

    // The broker runs on what worked and answers there; the file says so too.
    QVERIFY(desk.page()->problem().contains("runs again on the previous settings"));
    if (!qEnvironmentVariableIsEmpty("BROKER_UI_SHOTS"))
        desk.window->grab().save(qEnvironmentVariable("BROKER_UI_SHOTS") + "/settings-apply-failed.png");
    QCOMPARE(status(desk.client->lastStart().apiUrl + "/health/live"), 200);
    QCOMPARE(desk.client->lastStart().config.api.port, 0);
    QVERIFY(desk.file("message_broker.yaml").contains("port: 0"));
    // The form keeps what was tried: one click on Retry tries it again.
    QCOMPARE(port->value(), triedPort);
    QCOMPARE(desk.page()->changes().size(), 1);

    taken.close();
    QPushButton *retry = desk.button("retry");
    QVERIFY(retry && retry->isVisible());
    retry->click();
    const QString expected = QStringLiteral("http://127.0.0.1:%1").arg(triedPort);
    QTRY_COMPARE_WITH_TIMEOUT(desk.client->lastStart().apiUrl, expected, 10000);
    QTRY_VERIFY(desk.running());
    QVERIFY(desk.page()->problem().isEmpty());
    QVERIFY(desk.page()->changes().isEmpty());
    QCOMPARE(status(expected + "/health/live"), 200);
    QVERIFY(desk.file("message_broker.yaml").contains(QStringLiteral("port: %1").arg(triedPort).toUtf8()));
}

void TestSettingsPage::commandLinePortIsWhatTheFormShows()
{
    QTcpServer probe;
    QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
    const int commandLine = probe.serverPort();
    probe.close();
    Desk desk(configOnPort(0), commandLine);
    QTRY_VERIFY_WITH_TIMEOUT(desk.running(), 10000);
    desk.window->showPage(MainWindow::Settings);
    auto *port = desk.page()->findChild<QSpinBox *>("port");
    QCOMPARE(port->value(), commandLine); // what runs, not the file's 0
    auto *source = desk.page()->findChild<QLabel *>("portSource");
    QVERIFY(source->isVisible());
    QVERIFY2(source->text().contains("--port") && source->text().contains("the file says 0"), qPrintable(source->text()));
    QVERIFY(desk.page()->changes().isEmpty());

    // Another port: "before" is the one that ran; afterwards the file has the new one.
    QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
    const int next = probe.serverPort();
    probe.close();
    port->setValue(next);
    QCOMPARE(desk.page()->describeChanges(), QStringList{QStringLiteral("port: %1 → %2").arg(commandLine).arg(next)});
    desk.button("apply")->click();
    QTRY_COMPARE_WITH_TIMEOUT(desk.client->lastStart().apiUrl, QStringLiteral("http://127.0.0.1:%1").arg(next), 10000);
    QTRY_VERIFY(desk.running());
    QVERIFY(desk.file("message_broker.yaml").contains(QStringLiteral("port: %1").arg(next).toUtf8()));
    QVERIFY(!source->isVisible()); // the file's port is in force now
    QVERIFY(desk.page()->changes().isEmpty());
}

// Before the memory store's queues go out of view, the page says where they stay (or that they
// are lost without a journal); Cancel applies nothing, the question's button applies.
void TestSettingsPage::switchingToRedisSaysWhatStaysBehind_data()
{
    QTest::addColumn<bool>("journal");
    QTest::addColumn<QString>("told");
    QTest::addRow("journaled-queues-stay") << true << "stay in its journal: they are not shown while the broker runs on Redis";
    QTest::addRow("volatile-queues-are-lost") << false << "are lost when the broker restarts on Redis";
}

void TestSettingsPage::switchingToRedisSaysWhatStaysBehind()
{
    QFETCH(bool, journal);
    QFETCH(QString, told);
    BrokerClient client; // not started: the page only asks
    SettingsPage page(client);
    BrokerConfig config;
    config.storage.journal.enabled = journal;
    page.showConfig(config, "message_broker.yaml");
    page.show();
    QSignalSpy applied(&page, &SettingsPage::applyRequested);
    auto *backend = page.findChild<QComboBox *>("backend");
    backend->setCurrentIndex(backend->findData("redis"));
    for (int answer = 0; answer < 2; ++answer) {
        page.findChild<QPushButton *>("apply")->click();
        QMessageBox *box = nullptr;
        QTRY_VERIFY((box = page.findChild<QMessageBox *>()) != nullptr);
        QVERIFY2(box->text().contains(told), qPrintable(box->text()));
        QVERIFY(box->text().contains(QStringLiteral("%1:%2").arg(config.storage.redis.host).arg(config.storage.redis.port)));
        if (answer == 0) {
            box->button(QMessageBox::Cancel)->click();
            QTRY_VERIFY(page.findChild<QMessageBox *>() == nullptr);
            QCOMPARE(applied.size(), 0);
            continue;
        }
        for (QAbstractButton *button : box->buttons()) {
            if (button->text() == "Switch to Redis")
                button->click();
        }
    }
    QCOMPARE(applied.size(), 1);
    const auto changes = applied.first().first().value<QList<ConfigChange>>();
    QVERIFY(changes.contains(ConfigChange{"storage.backend", QStringLiteral("redis")}));
}

void TestSettingsPage::testConnectionSaysWhetherRedisAnswers_data()
{
    QTest::addColumn<bool>("serverUp");
    QTest::addColumn<QString>("password");
    QTest::addColumn<QString>("answer");  // how the line starts
    QTest::addColumn<QString>("reason");  // what it names
    QTest::addRow("redis-answers") << true << "" << "OK: Redis " << "127.0.0.1:";
    QTest::addRow("nothing-listens") << false << "" << "Failed: " << "cannot connect";
    // The test server has no password: AUTH is refused, as a wrong one would be.
    QTest::addRow("auth-refused") << true << "not-the-password" << "Failed: " << "Redis refused AUTH";
}

void TestSettingsPage::testConnectionSaysWhetherRedisAnswers()
{
    QFETCH(bool, serverUp);
    QFETCH(QString, password);
    QFETCH(QString, answer);
    QFETCH(QString, reason);
    Testing::RedisServer redis;
    int port = 0;
    if (serverUp) {
        if (!redis.start())
            QSKIP(qPrintable(redis.errorString()));
        port = redis.port();
    } else {
        QTcpServer probe; // a port nobody listens on
        QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
        port = probe.serverPort();
    }
    Desk desk(configOnPort(0));
    QTRY_VERIFY_WITH_TIMEOUT(desk.running(), 10000);
    desk.window->showPage(MainWindow::Settings);
    auto *backend = desk.page()->findChild<QComboBox *>("backend");
    backend->setCurrentIndex(backend->findData("redis"));
    desk.page()->findChild<QLineEdit *>("redisHost")->setText("127.0.0.1");
    desk.page()->findChild<QSpinBox *>("redisPort")->setValue(port);
    desk.page()->findChild<QLineEdit *>("redisPassword")->setText(password);
    QPushButton *test = desk.button("testRedis");
    QVERIFY(test->isEnabled());
    test->click();
    auto *result = desk.page()->findChild<QLabel *>("redisResult");
    QTRY_VERIFY_WITH_TIMEOUT(result->text().startsWith("OK") || result->text().startsWith("Failed"), 10000);
    QVERIFY2(result->text().startsWith(answer) && result->text().contains(reason), qPrintable(result->text()));
    if (!password.isEmpty())
        QVERIFY(!result->text().contains(password)); // never shown back
    QCOMPARE(desk.client->lastStart().storage, QString("memory")); // a test changes nothing
    QVERIFY(desk.running());
}

QTEST_MAIN(TestSettingsPage)
#include "tst_settingspage.moc"
