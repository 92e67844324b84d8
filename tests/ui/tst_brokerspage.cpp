// SPDX-License-Identifier: GPL-3.0-or-later
// The Brokers page against a real brokerd on a free loopback port: a remote broker added with its
// key is followed live (queues made over REST show up), stopping brokerd shows "reconnecting" and
// starting it again reconnects by itself; connections are kept without keys; with no keyring
// running the key stays for the session and the page says so.
#include "../support/brokerdlaunch.h"

#include "ui/brokerspage.h"
#include "ui/keyring.h"
#include "ui/messagebar.h"

#include <QApplication>
#include <QCoreApplication>
#include <QFile>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace Broker;
using namespace Broker::Ui;

namespace {

const QByteArray AdminKey = "desk-remote-admin-key-0001";

} // namespace

class TestBrokersPage : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QProcess m_brokerd;
    QString m_url;
    QByteArray m_log;

    bool startBrokerd(const QString &port)
    {
        m_url = Test::startBrokerd(m_brokerd, BROKERD_PATH, m_dir.filePath("users.yaml"), port, m_log);
        return !m_url.isEmpty();
    }

    int post(const QString &path, const QByteArray &body)
    {
        QNetworkAccessManager network;
        QNetworkRequest request(QUrl(m_url + path));
        request.setRawHeader("X-API-Key", AdminKey);
        request.setHeader(QNetworkRequest::ContentTypeHeader, "application/json");
        QNetworkReply *reply = network.post(request, body);
        if (!QTest::qWaitFor([reply] { return reply->isFinished(); }, 10'000))
            return 0;
        const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
        reply->deleteLater();
        return status;
    }

    static QString cell(const BrokersPage &page, const QString &name, int column)
    {
        const int row = page.model()->rowOf(name);
        return row < 0 ? QString() : page.model()->index(row, column).data().toString();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QFile users(m_dir.filePath("users.yaml"));
        QVERIFY(users.open(QIODevice::WriteOnly));
        users.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
        users.write("users:\n  desk_admin: {role: admin, api_key: " + AdminKey + "}\n");
        users.close();
        QVERIFY2(startBrokerd("0"), m_log.constData());
    }

    void cleanupTestCase()
    {
        m_brokerd.terminate();
        m_brokerd.waitForFinished(10'000);
    }

    void aRemoteBrokerIsFollowedLiveAndThroughARestart()
    {
        const QString file = m_dir.filePath("live/connections.json");
        BrokersPage page(ConnectionProfiles(file), nullptr);
        page.resize(1000, 300);
        page.show();
        QCOMPARE(page.model()->rowCount(), 1); // the embedded broker, always listed
        const ConnectionProfile server{QStringLiteral("server"), QUrl(m_url), {},
                                       ConnectionProfile::KeySource::AskEachSession, {}};
        QVERIFY(page.addConnection(server, AdminKey).ok());
        QCOMPARE(page.model()->rowCount(), 2);
        QTRY_VERIFY_WITH_TIMEOUT(cell(page, "server", BrokersTableModel::Connection).startsWith("connected as desk_admin"), 10'000);

        QCOMPARE(post("/queues", R"({"name":"remote.orders"})"), 200);
        QCOMPARE(post("/messages/remote.orders", R"({"message":{"n":1}})"), 200);
        QTRY_COMPARE_WITH_TIMEOUT(cell(page, "server", BrokersTableModel::Queues), QStringLiteral("1"), 10'000);
        QTRY_COMPARE_WITH_TIMEOUT(cell(page, "server", BrokersTableModel::Messages), QStringLiteral("1"), 10'000);
        QCOMPARE(cell(page, "server", BrokersTableModel::Health), QStringLiteral("healthy"));
        QCOMPARE(cell(page, "server", BrokersTableModel::Storage), QStringLiteral("memory"));
        QVERIFY(page.grab().save(m_dir.filePath("brokers.png")));

        // Stopped: the page says it is reconnecting, keeps the last figures, and shows their age.
        const QString port = QUrl(m_url).port() > 0 ? QString::number(QUrl(m_url).port()) : QString();
        m_brokerd.terminate();
        QVERIFY(m_brokerd.waitForFinished(10'000));
        QTRY_VERIFY_WITH_TIMEOUT(cell(page, "server", BrokersTableModel::Connection).startsWith("reconnecting"), 10'000);
        QCOMPARE(cell(page, "server", BrokersTableModel::Queues), QStringLiteral("1"));
        QTRY_VERIFY_WITH_TIMEOUT(cell(page, "server", BrokersTableModel::Updated).endsWith("ago"), 5'000);

        // Back on the same port: connected again by itself (this brokerd keeps nothing: no queues).
        QVERIFY2(startBrokerd(port), m_log.constData());
        QTRY_VERIFY_WITH_TIMEOUT(cell(page, "server", BrokersTableModel::Connection).startsWith("connected"), 20'000);
        QTRY_COMPARE_WITH_TIMEOUT(cell(page, "server", BrokersTableModel::Queues), QStringLiteral("0"), 10'000);

        // Kept on disk without the key; read back, it waits for the key (asked once per session).
        QFile saved(file);
        QVERIFY(saved.open(QIODevice::ReadOnly));
        const QByteArray text = saved.readAll();
        QVERIFY(text.contains("\"server\""));
        QVERIFY(!text.contains(AdminKey));
        BrokersPage again(ConnectionProfiles(file), nullptr);
        again.loadConnections();
        QCOMPARE(again.model()->rowCount(), 2);
        QVERIFY(cell(again, "server", BrokersTableModel::Connection).startsWith("key needed"));
        QCOMPARE(again.feed("server"), nullptr);
    }

    void aRefusedKeyIsShownAsSuch()
    {
        BrokersPage page(ConnectionProfiles(m_dir.filePath("refused/connections.json")), nullptr);
        QVERIFY(page.addConnection({QStringLiteral("wrong"), QUrl(m_url), {}, ConnectionProfile::KeySource::AskEachSession, {}},
                                   "not-the-key").ok());
        QTRY_VERIFY_WITH_TIMEOUT(cell(page, "wrong", BrokersTableModel::Connection).startsWith("key refused"), 10'000);
        QCOMPARE(cell(page, "wrong", BrokersTableModel::Queues), QStringLiteral("—"));
    }

    // Under with-keyring.sh (a Secret Service of its own): the key goes to the keyring, and a page
    // made later (the next start) reads it from there and connects.
    void keysInTheKeyringAreUsedOnTheNextStart()
    {
        if (qEnvironmentVariableIntValue("BROKER_TEST_KEYRING") != 1)
            QSKIP("needs a Secret Service: runs as tst_brokerspage_keyring (with-keyring.sh)");
        Keyring keyring(QStringLiteral("brokerdesk-test-%1").arg(QCoreApplication::applicationPid()));
        const QString file = m_dir.filePath("keyring/connections.json");
        {
            BrokersPage page(ConnectionProfiles(file), &keyring);
            QVERIFY(page.addConnection({QStringLiteral("server"), QUrl(m_url), {}, ConnectionProfile::KeySource::Keyring, {}},
                                       AdminKey).ok());
            QTRY_VERIFY_WITH_TIMEOUT(cell(page, "server", BrokersTableModel::Connection).startsWith("connected"), 10'000);
        }
        QByteArray stored;
        QObject context;
        QTRY_VERIFY_WITH_TIMEOUT([&] {
            keyring.read(QStringLiteral("server"), &context, [&](Result<QByteArray> key) { stored = key ? *key : QByteArray(); });
            QTest::qWait(100);
            return stored == AdminKey;
        }(), 10'000);
        BrokersPage next(ConnectionProfiles(file), &keyring);
        next.loadConnections();
        QTRY_VERIFY_WITH_TIMEOUT(cell(next, "server", BrokersTableModel::Connection).startsWith("connected as desk_admin"), 10'000);
        keyring.remove(QStringLiteral("server"));
    }

    void withoutAKeyringTheKeyIsKeptForTheSession()
    {
        if (qEnvironmentVariableIntValue("BROKER_TEST_KEYRING") == 1)
            QSKIP("a keyring runs here");
        // No session bus: the keyring cannot be reached, as on a server or in CI.
        qputenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/bus");
        Keyring keyring(QStringLiteral("brokerdesk-test"));
        BrokersPage page(ConnectionProfiles(m_dir.filePath("nokeyring/connections.json")), &keyring);
        QVERIFY(page.addConnection({QStringLiteral("server"), QUrl(m_url), {}, ConnectionProfile::KeySource::Keyring, {}},
                                   AdminKey).ok());
        QTRY_VERIFY_WITH_TIMEOUT(page.messageBar()->text().contains("kept for this session only"), 10'000);
        QTRY_VERIFY_WITH_TIMEOUT(cell(page, "server", BrokersTableModel::Connection).startsWith("connected"), 10'000);

        // Read back later, the key is not found: the page says what is missing and why.
        BrokersPage again(ConnectionProfiles(m_dir.filePath("nokeyring/connections.json")), &keyring);
        again.loadConnections();
        QTRY_VERIFY_WITH_TIMEOUT(cell(again, "server", BrokersTableModel::Connection).contains("Reconnect asks for the key"), 10'000);
    }

    void aConnectionThatCannotBeSavedIsNotAdded()
    {
        QFile blocker(m_dir.filePath("blocker"));
        QVERIFY(blocker.open(QIODevice::WriteOnly));
        blocker.close();
        BrokersPage page(ConnectionProfiles(m_dir.filePath("blocker/connections.json")), nullptr);
        const Result<void> added = page.addConnection(
            {QStringLiteral("server"), QUrl(m_url), {}, ConnectionProfile::KeySource::AskEachSession, {}}, AdminKey);
        QVERIFY(!added.ok());
        QVERIFY2(added.error().message.contains("cannot write"), qPrintable(added.error().message));
        QCOMPARE(page.model()->rowCount(), 1);
        QCOMPARE(page.feed("server"), nullptr);
    }

    void aProfileThatDoesNotCheckOutIsRefused()
    {
        BrokersPage page(ConnectionProfiles(m_dir.filePath("bad/connections.json")), nullptr);
        const Result<void> added = page.addConnection({QStringLiteral("bad"), QUrl(QStringLiteral("ftp://h:1")), {},
                                                       ConnectionProfile::KeySource::AskEachSession, {}}, "k");
        QVERIFY(!added.ok());
        QVERIFY(added.error().message.startsWith("URL"));
        QCOMPARE(page.model()->rowCount(), 1);
        QVERIFY(!QFile::exists(m_dir.filePath("bad/connections.json")));
    }
};

QTEST_MAIN(TestBrokersPage)
#include "tst_brokerspage.moc"
