// SPDX-License-Identifier: GPL-3.0-or-later
// HTTPS on the Settings page, offscreen, with the window driving a real broker: a certificate
// made from the page and applied serves the API over HTTPS; a renewed certificate is reloaded
// without a restart (an open connection goes on, a new one sees the new certificate); a pair that
// does not load keeps the old one served and the file as it was; the form says what is missing
// and warns about plain HTTP beyond loopback.
#include "ui/certificatedialog.h"
#include "ui/tlssettingsform.h"

#include "settingsdesk.h"

#include "../support/tlscertificates.h"

#include <QCheckBox>
#include <QCryptographicHash>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslSocket>
#include <QStandardPaths>
#include <QTest>
#include <QUrl>

#include <sys/stat.h>

using namespace Broker;
using namespace Broker::Ui;
using Broker::Testing::Desk;
using Broker::Testing::TlsCertificates;

namespace {

// A keep-alive HTTPS connection to the desk's API that trusts `caFile` only. The broker answers
// from its own thread, so blocking waits here are fine.
class HttpsClient
{
public:
    HttpsClient(const QString &apiUrl, const QString &caFile)
    {
        QSslConfiguration configuration = QSslConfiguration::defaultConfiguration();
        configuration.setCaCertificates(QSslCertificate::fromPath(caFile));
        m_socket.setSslConfiguration(configuration);
        const QUrl url(apiUrl);
        m_socket.connectToHostEncrypted(url.host(), quint16(url.port()), QStringLiteral("localhost"));
        m_socket.waitForEncrypted(10'000);
    }
    bool encrypted() const { return m_socket.isEncrypted(); }
    QString error() const { return m_socket.errorString(); }
    QByteArray sha256() const { return m_socket.peerCertificate().digest(QCryptographicHash::Sha256); }
    bool connected() const { return m_socket.state() == QAbstractSocket::ConnectedState; }
    // The status line of GET /health/live on this connection.
    QByteArray liveStatus()
    {
        m_socket.write("GET /health/live HTTP/1.1\r\nHost: localhost\r\n\r\n");
        QByteArray answer;
        for (int i = 0; i < 100 && !answer.contains("\r\n\r\n"); ++i) {
            if (!m_socket.waitForReadyRead(100) && !connected())
                break;
            answer += m_socket.readAll();
        }
        // The body is short and comes with the head; the next request starts clean.
        for (int i = 0; i < 5 && m_socket.waitForReadyRead(20); ++i)
            answer += m_socket.readAll();
        return answer.left(answer.indexOf("\r\n"));
    }

private:
    QSslSocket m_socket;
};

QByteArray digestOf(const QString &certFile)
{
    const QList<QSslCertificate> chain = QSslCertificate::fromPath(certFile);
    return chain.isEmpty() ? QByteArray() : chain.first().digest(QCryptographicHash::Sha256);
}

bool copyFile(const QString &from, const QString &to)
{
    QFile::remove(to);
    return QFile::copy(from, to);
}

QByteArray tlsConfig()
{
    return "api: {bind: 127.0.0.1, port: 0, tls: {enabled: true, cert_file: server.crt, key_file: server.key}}\n";
}

} // namespace

class TestSettingsTls : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void madeCertificateServesHttpsAfterApply();
    void renewedCertificateIsReloadedWithoutRestart();
    void pairThatDoesNotLoadKeepsTheOldOne();
    void formSaysWhatIsMissing();

private:
    TlsCertificates m_first;
    TlsCertificates m_second;
};

void TestSettingsTls::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    if (!m_first.make() || !m_second.make())
        QSKIP(qPrintable(m_first.errorString() + m_second.errorString()));
}

void TestSettingsTls::madeCertificateServesHttpsAfterApply()
{
    Desk desk(Testing::configOnPort(0));
    QTRY_VERIFY_WITH_TIMEOUT(desk.running(), 10000);
    QVERIFY(desk.client->lastStart().apiUrl.startsWith("http://"));
    desk.window->showPage(MainWindow::Settings);
    auto *tls = desk.page()->findChild<TlsSettingsForm *>("tls");
    QVERIFY(!tls->servesHttps());

    desk.button("makeCertificate")->click();
    CertificateDialog *dialog = nullptr;
    QTRY_VERIFY((dialog = desk.page()->findChild<CertificateDialog *>("certificateDialog")) != nullptr);
    // It offers a folder beside the configuration and this computer's names.
    QCOMPARE(dialog->request().directory, desk.dir.filePath("tls"));
    QVERIFY(dialog->request().hosts.contains("127.0.0.1"));
    dialog->findChild<QLineEdit *>("certificateHosts")->setText("localhost, 127.0.0.1");
    dialog->findChild<QPushButton *>("make")->click();
    QTRY_VERIFY_WITH_TIMEOUT(tls->madeText().contains("SHA-256"), 10000);
    QVERIFY(tls->servesHttps());
    const QString certFile = desk.dir.filePath("tls/server.crt");
    QCOMPARE(desk.page()->findChild<QLineEdit *>("tlsCertFile")->text(), certFile);
    QCOMPARE(desk.page()->findChild<QLineEdit *>("tlsKeyFile")->text(), desk.dir.filePath("tls/server.key"));
    QVERIFY(tls->madeText().contains(desk.dir.filePath("tls/ca.crt")));
    struct stat key{};
    QCOMPARE(::stat(qPrintable(desk.dir.filePath("tls/server.key")), &key), 0);
    QCOMPARE(key.st_mode & 0777, 0600u);

    // Turning HTTPS on is a restart: the listener changes.
    QPushButton *apply = desk.button("apply");
    QVERIFY(apply->isEnabled());
    QVERIFY2(apply->text().contains("restart"), qPrintable(apply->text()));
    if (!qEnvironmentVariableIsEmpty("BROKER_UI_SHOTS"))
        desk.window->grab().save(qEnvironmentVariable("BROKER_UI_SHOTS") + "/settings-https.png");
    apply->click();
    QTRY_VERIFY_WITH_TIMEOUT(desk.client->lastStart().apiUrl.startsWith("https://") && desk.running(), 15000);
    QVERIFY(desk.file("message_broker.yaml").contains(certFile.toUtf8()));
    HttpsClient client(desk.client->lastStart().apiUrl, desk.dir.filePath("tls/ca.crt"));
    QVERIFY2(client.encrypted(), qPrintable(client.error()));
    QCOMPARE(client.sha256(), digestOf(certFile));
    QCOMPARE(client.liveStatus(), QByteArray("HTTP/1.1 200 OK"));
    QVERIFY(desk.page()->changes().isEmpty());
}

void TestSettingsTls::renewedCertificateIsReloadedWithoutRestart()
{
    Desk desk(tlsConfig(), -1, false);
    // The pair goes beside the configuration before the broker reads it.
    QVERIFY(copyFile(m_first.serverCertFile(), desk.dir.filePath("server.crt")));
    QVERIFY(copyFile(m_first.serverKeyFile(), desk.dir.filePath("server.key")));
    desk.window->startBroker();
    QTRY_VERIFY_WITH_TIMEOUT(desk.running() && desk.client->lastStart().apiUrl.startsWith("https://"), 15000);
    const QString apiUrl = desk.client->lastStart().apiUrl;
    HttpsClient open(apiUrl, m_first.caFile());
    QVERIFY2(open.encrypted(), qPrintable(open.error()));
    QCOMPARE(open.sha256(), digestOf(m_first.serverCertFile()));
    QCOMPARE(open.liveStatus(), QByteArray("HTTP/1.1 200 OK"));

    QVERIFY(copyFile(m_second.serverCertFile(), desk.dir.filePath("renewed.crt")));
    QVERIFY(copyFile(m_second.serverKeyFile(), desk.dir.filePath("renewed.key")));
    desk.window->showPage(MainWindow::Settings);
    desk.page()->findChild<QLineEdit *>("tlsCertFile")->setText("renewed.crt");
    desk.page()->findChild<QLineEdit *>("tlsKeyFile")->setText("renewed.key");
    QPushButton *apply = desk.button("apply");
    QVERIFY2(apply->text().contains("reload"), qPrintable(apply->text()));
    QSignalSpy states(desk.client.get(), &BrokerClient::stateChanged);
    apply->click();
    QTRY_VERIFY_WITH_TIMEOUT(desk.page()->changes().isEmpty(), 10000);
    QVERIFY2(desk.page()->problem().isEmpty(), qPrintable(desk.page()->problem()));
    QCOMPARE(states.count(), 0); // no restart
    QVERIFY(desk.file("message_broker.yaml").contains("renewed.crt"));

    // The open connection goes on with its session; a new one gets the new certificate.
    QVERIFY(open.connected());
    QCOMPARE(open.liveStatus(), QByteArray("HTTP/1.1 200 OK"));
    HttpsClient fresh(apiUrl, m_second.caFile());
    QVERIFY2(fresh.encrypted(), qPrintable(fresh.error()));
    QCOMPARE(fresh.sha256(), digestOf(m_second.serverCertFile()));
    QCOMPARE(desk.client->lastStart().apiUrl, apiUrl);

    // Renewed in place (certbot's way): no change to apply, "Reload the files" reads them again.
    QPushButton *reload = desk.button("reloadCertificate");
    QVERIFY(reload && reload->isVisible());
    QVERIFY(copyFile(m_first.serverCertFile(), desk.dir.filePath("renewed.crt")));
    QVERIFY(copyFile(m_first.serverKeyFile(), desk.dir.filePath("renewed.key")));
    const QByteArray fileBefore = desk.file("message_broker.yaml");
    reload->click();
    QTRY_VERIFY_WITH_TIMEOUT(desk.window->findChild<QLabel *>("stateLabel")->text().contains("the same files read again"),
                             10000);
    QCOMPARE(states.count(), 0);
    QCOMPARE(desk.file("message_broker.yaml"), fileBefore);
    HttpsClient renewed(apiUrl, m_first.caFile());
    QVERIFY2(renewed.encrypted(), qPrintable(renewed.error()));
    QCOMPARE(renewed.sha256(), digestOf(m_first.serverCertFile()));
    QVERIFY(open.connected());

    // Editing a TLS file hides it: Apply is the way then.
    desk.page()->findChild<QLineEdit *>("tlsKeyFile")->setText("other.key");
    QVERIFY(!reload->isVisible());
}

void TestSettingsTls::pairThatDoesNotLoadKeepsTheOldOne()
{
    Desk desk(tlsConfig(), -1, false);
    QVERIFY(copyFile(m_first.serverCertFile(), desk.dir.filePath("server.crt")));
    QVERIFY(copyFile(m_first.serverKeyFile(), desk.dir.filePath("server.key")));
    desk.window->startBroker();
    QTRY_VERIFY_WITH_TIMEOUT(desk.running() && desk.client->lastStart().apiUrl.startsWith("https://"), 15000);
    const QString apiUrl = desk.client->lastStart().apiUrl;
    const QByteArray fileBefore = desk.file("message_broker.yaml");

    // Another certificate's key: the pair does not match.
    QVERIFY(copyFile(m_second.serverKeyFile(), desk.dir.filePath("other.key")));
    desk.window->showPage(MainWindow::Settings);
    desk.page()->findChild<QLineEdit *>("tlsKeyFile")->setText("other.key");
    desk.button("apply")->click();
    QTRY_VERIFY_WITH_TIMEOUT(desk.page()->problem().contains("not loaded"), 10000);
    QVERIFY2(desk.page()->problem().contains("key"), qPrintable(desk.page()->problem()));
    QVERIFY(!desk.page()->problem().contains("BEGIN")); // no key material in the banner
    QCOMPARE(desk.file("message_broker.yaml"), fileBefore);
    // The form keeps what was tried, so Retry is one click away.
    QCOMPARE(desk.page()->findChild<QLineEdit *>("tlsKeyFile")->text(), QString("other.key"));
    QVERIFY(desk.button("retry"));
    QVERIFY(desk.running());
    HttpsClient fresh(apiUrl, m_first.caFile());
    QVERIFY2(fresh.encrypted(), qPrintable(fresh.error()));
    QCOMPARE(fresh.sha256(), digestOf(m_first.serverCertFile()));
    QCOMPARE(fresh.liveStatus(), QByteArray("HTTP/1.1 200 OK"));
}

void TestSettingsTls::formSaysWhatIsMissing()
{
    Desk desk(Testing::configOnPort(0));
    QTRY_VERIFY_WITH_TIMEOUT(desk.running(), 10000);
    desk.window->showPage(MainWindow::Settings);
    auto *warning = desk.page()->findChild<QLabel *>("plaintextWarning");
    QVERIFY(!warning->isVisible());
    desk.page()->findChild<QLineEdit *>("bind")->setText("0.0.0.0");
    QVERIFY(warning->isVisible()); // the network would see keys and messages in clear text
    auto *tls = desk.page()->findChild<TlsSettingsForm *>("tls");
    tls->setServesHttps(true);
    QVERIFY(!warning->isVisible());
    QVERIFY(!desk.button("apply")->isEnabled()); // HTTPS without its files
    QVERIFY(tls->problem().contains("certificate"));
    desk.page()->findChild<QLineEdit *>("tlsCertFile")->setText("server.crt");
    desk.page()->findChild<QLineEdit *>("tlsKeyFile")->setText("server.key");
    QVERIFY(tls->problem().isEmpty());
    QVERIFY(desk.button("apply")->isEnabled());
    QVERIFY(desk.button("apply")->text().contains("restart")); // off to on is a restart
}

QTEST_MAIN(TestSettingsTls)
#include "tst_settingstls.moc"
