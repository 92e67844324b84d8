// SPDX-License-Identifier: GPL-3.0-or-later
// The Users page as a user meets it, offscreen, on a real broker in its worker thread: what takes
// access away asks first and names the consequence, and the last enabled admin stays whatever
// the page is asked to do (the key keeps working over REST).
#include "runtime/brokerclient.h"
#include "ui/userdialog.h"
#include "ui/messagebar.h"
#include "ui/userspage.h"
#include "ui/usertablemodel.h"

#include "runtime/continuation.h"

#include "../support/desktoptestsettings.h"

#include <QCheckBox>
#include <QFile>
#include <QLabel>
#include <QMessageBox>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QPushButton>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace Broker;
using namespace Broker::Ui;

class TestUsersPage : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    std::unique_ptr<BrokerClient> m_client;
    std::unique_ptr<UsersPage> m_page;
    QNetworkAccessManager m_network;
    QString m_adminKey;

    int status(const QString &path, const QString &key)
    {
        QNetworkRequest request(QUrl(m_client->lastStart().apiUrl + path));
        request.setRawHeader("X-API-Key", key.toUtf8());
        QNetworkReply *reply = m_network.get(request);
        [&] { QTRY_VERIFY_WITH_TIMEOUT(reply->isFinished(), 10000); }();
        const int code = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        reply->deleteLater();
        return code;
    }

    template<typename Widget>
    Widget *waitFor()
    {
        Widget *found = nullptr;
        [&] { QTRY_VERIFY((found = m_page->findChild<Widget *>()) != nullptr); }();
        return found;
    }

    static QPushButton *button(QWidget *parent, const QString &text)
    {
        for (QPushButton *candidate : parent->findChildren<QPushButton *>()) {
            if (candidate->text() == text)
                return candidate;
        }
        return nullptr;
    }

    QString barText() const
    {
        const auto *bar = m_page->findChild<MessageBar *>();
        return bar && bar->kind() != MessageBar::Kind::None ? bar->text() : QString();
    }

    void selectUser(const QString &id)
    {
        UserTableModel *model = m_page->model();
        for (int row = 0; row < model->rowCount(); ++row) {
            if (model->rowAt(row).id == id)
                m_page->view()->setCurrentIndex(model->index(row, 0));
        }
        QCOMPARE(m_page->selectedUser(), id);
    }

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void everyButtonSaysWhatItDoes();
    void theOnlyAdminStays_data();
    void theOnlyAdminStays();
    void cancelChangesNothing();
    void disablingAnotherUserRefusesItsKey();
};

void TestUsersPage::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    HostSettings settings = Test::desktopTestSettings(m_dir);
    QVERIFY(!settings.configFile.isEmpty());
    m_client = std::make_unique<BrokerClient>(100);
    m_page = std::make_unique<UsersPage>(*m_client);
    connect(m_client.get(), &BrokerClient::directoryUpdated, m_page.get(), &UsersPage::showDirectory);
    m_page->resize(900, 500);
    m_page->show();
    QFuture<StartReport> started = m_client->start(settings);
    QTRY_VERIFY_WITH_TIMEOUT(started.isFinished(), 10000);
    const StartReport report = started.result();
    QVERIFY2(report.ok, qPrintable(report.error));
    QCOMPARE(report.adminRoles, QStringList{"admin"});
    m_page->showStart(report);
    m_adminKey = report.issuedKeys.value(0).apiKey;
    QVERIFY(!m_adminKey.isEmpty());
    QTRY_COMPARE(m_page->model()->rowCount(), 1);
}

void TestUsersPage::cleanupTestCase()
{
    m_page.reset();
    m_client.reset();
}

void TestUsersPage::everyButtonSaysWhatItDoes()
{
    const QList<QPushButton *> buttons = m_page->findChildren<QPushButton *>();
    QCOMPARE(buttons.size(), 5);
    for (const QPushButton *button : buttons)
        QVERIFY2(button->toolTip().size() > button->text().size() + 10, qPrintable(button->text()));
}

// Each action a user can take on the only admin: the page asks first and names what clients would
// see, then the directory refuses, the page says why and what to do, and the key still works.
void TestUsersPage::theOnlyAdminStays_data()
{
    QTest::addColumn<QString>("action");      // the page's button
    QTest::addColumn<QString>("confirm");     // the confirmation's button
    QTest::addColumn<QString>("consequence"); // what the question names
    QTest::addRow("disable") << "Disable" << "Disable" << "will get 401";
    QTest::addRow("delete") << "Delete…" << "Delete" << "will get 401";
    QTest::addRow("drop-admin-role") << "Edit roles…" << "Change roles" << "will get 403";
}

void TestUsersPage::theOnlyAdminStays()
{
    QFETCH(QString, action);
    QFETCH(QString, confirm);
    QFETCH(QString, consequence);
    selectUser("admin");
    QPushButton *pressed = button(m_page.get(), action);
    QVERIFY(pressed && pressed->isEnabled());
    pressed->click();
    if (action == "Edit roles…") {
        auto *dialog = waitFor<UserDialog>();
        dialog->findChild<QCheckBox *>("role-admin")->setChecked(false);
        dialog->findChild<QCheckBox *>("role-consumer")->setChecked(true);
        dialog->accept();
    }
    auto *box = waitFor<QMessageBox>();
    QVERIFY2(box->text().contains(consequence), qPrintable(box->text()));
    QVERIFY(box->text().contains("admin"));
    QPushButton *yes = button(box, confirm);
    QVERIFY(yes);
    QCOMPARE(box->defaultButton(), box->button(QMessageBox::Cancel)); // Enter does not destroy
    yes->click();

    QTRY_VERIFY_WITH_TIMEOUT(barText().contains("Cannot remove the last admin"), 10000);
    QVERIFY2(barText().contains("Give another user the admin role first"), qPrintable(barText()));
    QCOMPARE(status("/users", m_adminKey), 200); // still an enabled admin
    QCOMPARE(m_page->model()->rowCount(), 1);
    const User admin = m_page->model()->rowAt(0);
    QVERIFY(!admin.disabled);
    QCOMPARE(admin.roles, QStringList{"admin"});
    QFile users(m_dir.filePath("users.yaml"));
    QVERIFY(users.open(QIODevice::ReadOnly));
    QVERIFY(!users.readAll().contains("disabled"));
    QTRY_VERIFY(m_page->findChild<QMessageBox *>() == nullptr);
}

void TestUsersPage::cancelChangesNothing()
{
    selectUser("admin");
    const QString prefix = m_page->model()->rowAt(0).keyPrefix;
    button(m_page.get(), "Rotate key…")->click();
    auto *box = waitFor<QMessageBox>();
    QVERIFY2(box->text().contains("will get 401"), qPrintable(box->text()));
    box->button(QMessageBox::Cancel)->click();
    QTRY_VERIFY(m_page->findChild<QMessageBox *>() == nullptr);
    QTest::qWait(100);
    QCOMPARE(m_page->model()->rowAt(0).keyPrefix, prefix);
    QCOMPARE(status("/users", m_adminKey), 200);
}

void TestUsersPage::disablingAnotherUserRefusesItsKey()
{
    QFuture<Result<IssuedKey>> added = m_client->addUser("reporting", "Reports", {"consumer"});
    QTRY_VERIFY_WITH_TIMEOUT(added.isFinished(), 10000);
    QVERIFY(added.result().ok());
    const QString key = added.result()->apiKey;
    QTRY_COMPARE(m_page->model()->rowCount(), 2);
    QCOMPARE(status("/queues", key), 200);
    selectUser("reporting");
    button(m_page.get(), "Disable")->click();
    auto *box = waitFor<QMessageBox>();
    QVERIFY(box->text().contains("reporting"));
    button(box, "Disable")->click();
    QTRY_VERIFY_WITH_TIMEOUT(barText().contains("reporting disabled"), 10000);
    QCOMPARE(status("/queues", key), 401);
    // Enabling gives access back without a question.
    QTRY_VERIFY(button(m_page.get(), "Enable") != nullptr);
    button(m_page.get(), "Enable")->click();
    QTRY_VERIFY_WITH_TIMEOUT(barText().contains("reporting enabled"), 10000);
    QVERIFY(m_page->findChild<QMessageBox *>() == nullptr);
    QCOMPARE(status("/queues", key), 200);
}

QTEST_MAIN(TestUsersPage)
#include "tst_userspage.moc"
