// SPDX-License-Identifier: GPL-3.0-or-later
// CertificateMaker: the files and their modes, what Qt reads from them, the chain, a real TLS
// handshake against a QSslServer that uses them, and every refusal.
#include "security/certificatemaker.h"

#include "../support/httpstestserver.h"

#include <QFileInfo>
#include <QSignalSpy>
#include <QSslSocket>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace Broker;

class TestCertificateMaker : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;
    MadeCertificate m_made; // made once in initTestCase: key generation is the slow part

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        const auto made = CertificateMaker::make(
            {m_dir.filePath(QStringLiteral("certs")), {"localhost", "127.0.0.1", "::1", "broker.lan"}});
        QVERIFY2(made, qPrintable(made ? QString() : made.error().message));
        m_made = *made;
    }

    void writesThreeFilesWithTheirModes()
    {
        const auto mode = [](const QString &path) {
            struct stat info {};
            return ::stat(QFile::encodeName(path).constData(), &info) == 0 ? info.st_mode & 07777 : 0u;
        };
        QCOMPARE(mode(m_made.keyFile), 0600u);
        QCOMPARE(mode(m_made.certFile), 0644u);
        QCOMPARE(mode(m_made.caFile), 0644u);
        QCOMPARE(mode(QFileInfo(m_made.keyFile).absolutePath()), 0700u);
        QFile key(m_made.keyFile);
        QVERIFY(key.open(QIODevice::ReadOnly));
        QVERIFY(key.readAll().startsWith("-----BEGIN PRIVATE KEY-----")); // PKCS#8, unencrypted
    }

    void qtReadsTheCertificates()
    {
        const QList<QSslCertificate> chain = QSslCertificate::fromPath(m_made.certFile);
        QCOMPARE(chain.size(), 2); // the server certificate, then the CA
        const QList<QSslCertificate> ca = QSslCertificate::fromPath(m_made.caFile);
        QCOMPARE(ca.size(), 1);
        QCOMPARE(chain.at(1), ca.first());
        QVERIFY(chain.first().expiryDate() > QDateTime::currentDateTimeUtc().addDays(820));
        QVERIFY(chain.first().serialNumber().size() >= 32); // 16 bytes as "aa:bb:..."
        QCOMPARE(QString::fromLatin1(chain.first().digest(QCryptographicHash::Sha256).toHex(':').toUpper()),
                 m_made.fingerprint);
    }

    void namesEveryHost()
    {
        const QSslCertificate leaf = QSslCertificate::fromPath(m_made.certFile).first();
        const auto names = leaf.subjectAlternativeNames();
        QStringList dns = names.values(QSsl::DnsEntry);
        dns.sort();
        QCOMPARE(dns, (QStringList{"broker.lan", "localhost"}));
        QStringList addresses = names.values(QSsl::IpAddressEntry);
        QCOMPARE(addresses.size(), 2);
        QVERIFY(addresses.contains("127.0.0.1"));
    }

    void serverCertificateVerifiesAgainstTheCa()
    {
        const QList<QSslCertificate> chain = QSslCertificate::fromPath(m_made.certFile);
        const QList<QSslError> errors = QSslCertificate::verify({chain.first(), chain.at(1)}, "broker.lan");
        // verify() uses the system's CAs; ours is not among them, so the only complaint is that.
        for (const QSslError &error : errors)
            QVERIFY2(error.error() == QSslError::SelfSignedCertificateInChain, qPrintable(error.errorString()));
    }

    void handshake_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<bool>("verified");
        QTest::addRow("ip-in-the-certificate") << "127.0.0.1" << true;
        QTest::addRow("name-in-the-certificate") << "localhost" << true;
        QTest::addRow("name-not-in-the-certificate") << "elsewhere.example" << false;
    }
    void handshake()
    {
        QFETCH(QString, name);
        QFETCH(bool, verified);
        Test::HttpsTestServer server;
        QVERIFY(server.start(m_made.certFile, m_made.keyFile));
        QSslSocket client;
        QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
        tls.setCaCertificates(QSslCertificate::fromPath(m_made.caFile)); // only ours
        client.setSslConfiguration(tls);
        client.setPeerVerifyName(name);
        QSignalSpy encrypted(&client, &QSslSocket::encrypted);
        QSignalSpy refused(&client, &QSslSocket::sslErrors);
        client.connectToHostEncrypted("127.0.0.1", server.port());
        QTRY_VERIFY(!encrypted.isEmpty() || !refused.isEmpty());
        QCOMPARE(!encrypted.isEmpty(), verified);
        if (!verified)
            QCOMPARE(refused.first().first().value<QList<QSslError>>().first().error(), QSslError::HostNameMismatch);
    }

    void refusesToReplaceFiles()
    {
        const auto again = CertificateMaker::make({QFileInfo(m_made.keyFile).absolutePath(), {}});
        QVERIFY(!again);
        QVERIFY(again.error().message.contains("exists already"));
        QCOMPARE(QSslCertificate::fromPath(m_made.certFile).first().digest(QCryptographicHash::Sha256).toHex(':').toUpper(),
                 m_made.fingerprint.toLatin1()); // untouched
    }

    void forceReplacesThem()
    {
        QTemporaryDir dir;
        const auto first = CertificateMaker::make({dir.path(), {"localhost"}});
        QVERIFY(first);
        const auto second = CertificateMaker::make({dir.path(), {"localhost"}, true});
        QVERIFY(second);
        QVERIFY(first->fingerprint != second->fingerprint);
    }

    void refuses_data()
    {
        QTest::addColumn<QString>("host");
        QTest::addColumn<QString>("message");
        QTest::addRow("comma-would-inject-a-name") << "a.example,IP:10.0.0.1" << "neither a host name";
        QTest::addRow("space") << "bad host" << "neither a host name";
        QTest::addRow("empty") << "" << "neither a host name";
    }
    void refuses()
    {
        QFETCH(QString, host);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const auto made = CertificateMaker::make({dir.path(), {host}});
        QVERIFY(!made);
        QCOMPARE(made.error().code, ErrorCode::InvalidArgument);
        QVERIFY2(made.error().message.contains(message), qPrintable(made.error().message));
        QVERIFY(!QFileInfo::exists(dir.filePath("server.key")));
    }

    void unwritableFolderIsNamed()
    {
        if (::geteuid() == 0)
            QSKIP("root writes into a folder without write permission");
        QTemporaryDir dir;
        QFile::setPermissions(dir.path(), QFileDevice::ReadOwner | QFileDevice::ExeOwner);
        const auto made = CertificateMaker::make({dir.path(), {"localhost"}});
        QFile::setPermissions(dir.path(), QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
        QVERIFY(!made);
        QVERIFY2(made.error().message.startsWith("cannot write " + dir.path()), qPrintable(made.error().message));
    }

    void uncreatableFolderIsNamed()
    {
        // A folder under a file cannot exist, for root too.
        QTemporaryDir dir;
        QFile file(dir.filePath("plain"));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.close();
        const auto made = CertificateMaker::make({dir.filePath("plain/certs"), {"localhost"}});
        QVERIFY(!made);
        QCOMPARE(made.error().message, "cannot create the folder " + dir.filePath("plain/certs"));
    }
};

QTEST_GUILESS_MAIN(TestCertificateMaker)
#include "tst_certificatemaker.moc"
