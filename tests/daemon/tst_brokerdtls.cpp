// SPDX-License-Identifier: GPL-3.0-or-later
// Black-box: brokerd serving HTTPS from api.tls, its certificate swapped on disk and SIGHUP sent,
// as certbot's deploy hook does. New connections get the new certificate, a keep-alive
// connection opened before goes on answering; a pair that does not load (a key of another
// certificate, a damaged file) keeps the old certificate served and says why on the log,
// without key material.
#include "../support/brokerdlaunch.h"
#include "../support/tlscertificates.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslSocket>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <memory>

using Broker::Testing::TlsCertificates;

class TestBrokerdTls : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    TlsCertificates m_first;  // the pair brokerd starts with
    TlsCertificates m_second; // the renewal (another CA, so the two certificates differ)
    QProcess m_brokerd;
    QByteArray m_log;
    quint16 m_port = 0;

    QString tlsFile(const char *name) const { return m_dir.filePath(QStringLiteral("tls/") + QLatin1String(name)); }

    static bool copyOver(const QString &from, const QString &to)
    {
        QFile::remove(to);
        return QFile::copy(from, to);
    }

    static QByteArray fileBytes(const QString &path)
    {
        QFile file(path);
        return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
    }

    // A verified connection to brokerd (both CAs trusted; the name checked against 127.0.0.1).
    std::unique_ptr<QSslSocket> connectTls()
    {
        auto socket = std::make_unique<QSslSocket>();
        QSslConfiguration configuration = QSslConfiguration::defaultConfiguration();
        configuration.setCaCertificates(QSslCertificate::fromPath(m_first.caFile())
                                        + QSslCertificate::fromPath(m_second.caFile()));
        socket->setSslConfiguration(configuration);
        socket->connectToHostEncrypted(QStringLiteral("127.0.0.1"), m_port);
        if (!QTest::qWaitFor([&] { return socket->isEncrypted() || socket->state() == QAbstractSocket::UnconnectedState; },
                             10'000)
            || !socket->isEncrypted())
            return nullptr;
        return socket;
    }

    // One keep-alive request; the status line of the answer, or empty when none came.
    static QByteArray getLive(QSslSocket &socket)
    {
        socket.write("GET /health/live HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n");
        QByteArray answer;
        (void)QTest::qWaitFor([&] {
            answer += socket.readAll();
            return answer.contains("\r\n\r\n") || socket.state() != QAbstractSocket::ConnectedState;
        }, 10'000);
        return answer.left(answer.indexOf("\r\n"));
    }

    // Sends SIGHUP and waits for brokerd's answer on the log; the lines it wrote meanwhile.
    QByteArray reload()
    {
        const qsizetype before = m_log.size();
        ::kill(pid_t(m_brokerd.processId()), SIGHUP);
        (void)QTest::qWaitFor([&] {
            m_log += m_brokerd.readAllStandardError();
            return m_log.indexOf("SIGHUP", before) >= 0 && m_log.endsWith('\n');
        }, 10'000);
        return m_log.mid(before);
    }

    QSslCertificate served()
    {
        const std::unique_ptr<QSslSocket> socket = connectTls();
        return socket ? socket->peerCertificate() : QSslCertificate();
    }

private Q_SLOTS:
    void initTestCase()
    {
        if (!TlsCertificates::available())
            QSKIP("the openssl command is not installed (Debian package openssl)");
        QVERIFY(m_dir.isValid());
        QVERIFY2(m_first.make(), qPrintable(m_first.errorString()));
        QVERIFY2(m_second.make(), qPrintable(m_second.errorString()));
        QVERIFY(QDir(m_dir.path()).mkdir(QStringLiteral("tls")));
        QVERIFY(copyOver(m_first.serverCertFile(), tlsFile("server.crt")));
        QVERIFY(copyOver(m_first.serverKeyFile(), tlsFile("server.key")));

        // Relative names: they start at the configuration file's folder.
        QFile config(m_dir.filePath(QStringLiteral("broker.yaml")));
        QVERIFY(config.open(QIODevice::WriteOnly));
        config.write("api:\n"
                     "  bind: 127.0.0.1\n"
                     "  tls:\n"
                     "    enabled: true\n"
                     "    cert_file: tls/server.crt\n"
                     "    key_file: tls/server.key\n"
                     "security:\n"
                     "  users_file: users.yaml\n");
        config.close();
        QFile users(m_dir.filePath(QStringLiteral("users.yaml")));
        QVERIFY(users.open(QIODevice::WriteOnly));
        users.write("users:\n  admin: {role: admin, api_key: tls-admin-key-0001}\n");
        users.close();

        m_brokerd.start(QStringLiteral(BROKERD_PATH), {QStringLiteral("--config"), config.fileName(),
                                                       QStringLiteral("--port"), QStringLiteral("0")});
        QVERIFY(m_brokerd.waitForStarted());
        const QString url = Broker::Test::waitUntilListening(m_brokerd, m_log);
        QVERIFY2(url.startsWith(QStringLiteral("https://127.0.0.1:")), m_log.constData());
        m_port = quint16(url.section(u':', -1).toUInt());
        QCOMPARE(served(), QSslCertificate::fromPath(m_first.serverCertFile()).value(0));
    }

    void cleanupTestCase()
    {
        if (m_brokerd.state() == QProcess::NotRunning)
            return;
        m_brokerd.terminate();
        QVERIFY(m_brokerd.waitForFinished(10'000));
    }

    // Renewed files + SIGHUP: new connections see the renewal, an open one keeps answering.
    void renewedCertificateServedWithoutDroppingConnections()
    {
        const std::unique_ptr<QSslSocket> open = connectTls();
        QVERIFY(open);
        QCOMPARE(getLive(*open), QByteArray("HTTP/1.1 200 OK"));

        QVERIFY(copyOver(m_second.serverCertFile(), tlsFile("server.crt")));
        QVERIFY(copyOver(m_second.serverKeyFile(), tlsFile("server.key")));
        const QByteArray said = reload();
        QVERIFY2(said.contains("TLS certificate reloaded"), said.constData());

        QCOMPARE(served(), QSslCertificate::fromPath(m_second.serverCertFile()).value(0));
        QCOMPARE(open->state(), QAbstractSocket::ConnectedState);
        QCOMPARE(getLive(*open), QByteArray("HTTP/1.1 200 OK"));
        QCOMPARE(open->peerCertificate(), QSslCertificate::fromPath(m_first.serverCertFile()).value(0));
    }

    void pairThatDoesNotLoadKeepsTheServedOne_data()
    {
        QTest::addColumn<QString>("certFrom");
        QTest::addColumn<QString>("keyFrom");
        QTest::addColumn<QByteArray>("saysWhy");
        // Runs after the renewal above: the second pair is served.
        QTest::addRow("key-of-another-certificate") << m_first.serverCertFile() << m_second.serverKeyFile()
                                                    << QByteArray("not the private key of the certificate");
        QTest::addRow("certificate-file-damaged") << m_second.serverKeyFile() << m_second.serverKeyFile()
                                                  << QByteArray("api.tls.cert_file: no PEM certificate");
    }

    void pairThatDoesNotLoadKeepsTheServedOne()
    {
        QFETCH(QString, certFrom);
        QFETCH(QString, keyFrom);
        QFETCH(QByteArray, saysWhy);
        const QSslCertificate before = served();
        QVERIFY(!before.isNull());
        const std::unique_ptr<QSslSocket> open = connectTls();
        QVERIFY(open);

        QVERIFY(copyOver(certFrom, tlsFile("server.crt")));
        QVERIFY(copyOver(keyFrom, tlsFile("server.key")));
        const QByteArray said = reload();
        QVERIFY2(said.contains("SIGHUP:") && said.contains(saysWhy), said.constData());
        QVERIFY2(!said.contains("TLS certificate reloaded"), said.constData());
        // Nothing of the key reaches the log: not its PEM armour, not a line of its base64.
        QVERIFY(!said.contains("PRIVATE KEY"));
        const QList<QByteArray> keyLines = fileBytes(keyFrom).split('\n');
        for (const QByteArray &line : keyLines)
            if (line.size() > 16 && !line.startsWith("-----"))
                QVERIFY2(!said.contains(line), said.constData());

        QCOMPARE(served(), before);
        QCOMPARE(getLive(*open), QByteArray("HTTP/1.1 200 OK"));

        // Put right again, the next SIGHUP takes it.
        QVERIFY(copyOver(m_second.serverCertFile(), tlsFile("server.crt")));
        QVERIFY(copyOver(m_second.serverKeyFile(), tlsFile("server.key")));
        QVERIFY(reload().contains("TLS certificate reloaded"));
    }
};

QTEST_GUILESS_MAIN(TestBrokerdTls)
#include "tst_brokerdtls.moc"
