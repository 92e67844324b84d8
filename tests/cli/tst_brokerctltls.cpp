// SPDX-License-Identifier: GPL-3.0-or-later
// brokerctl over https against a canned HTTPS server in the test (brokerd's own TLS comes with the
// REST side of issue 18), with certificates from brokerd --make-cert: verified with --cacert, with
// API_CACERT and with a profile's CA; refused without a CA or with the wrong one; --insecure
// works and warns; a CA file that is no certificate is a usage error.
#include "../support/httpstestserver.h"
#include "brokerctlfixture.h"

#include <QDir>
#include <QJsonArray>

using namespace BrokerCtlTesting;

class TestBrokerctlTls : public QObject
{
    Q_OBJECT

    BrokerdFixture m_env; // not started: only its temporary folder and ctl()
    Broker::Test::HttpsTestServer m_server;
    QString m_certs;
    QString m_otherCerts;

    // brokerd --make-cert, checked for what it says: the fingerprint and the lines to paste.
    static bool makeCert(const QString &dir, const QStringList &hosts)
    {
        QStringList arguments{"--make-cert", dir};
        for (const QString &host : hosts)
            arguments << "--host" << host;
        QProcess brokerd;
        brokerd.start(BROKERD_PATH, arguments);
        if (!brokerd.waitForFinished(30'000) || brokerd.exitCode() != 0)
            return false;
        const QByteArray out = brokerd.readAllStandardOutput();
        static const QRegularExpression fingerprint("SHA-256 fingerprint of the server certificate: ([0-9A-F]{2}:){31}[0-9A-F]{2}\n");
        return fingerprint.match(QString::fromLatin1(out)).hasMatch()
            && out.contains("    cert_file: " + QFile::encodeName(dir) + "/server.crt\n");
    }

    QString url() const { return QStringLiteral("https://127.0.0.1:%1").arg(m_server.port()); }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_env.dir.isValid());
        m_certs = m_env.dir.filePath("certs");
        m_otherCerts = m_env.dir.filePath("other");
        QVERIFY(makeCert(m_certs, {"127.0.0.1", "localhost"}));
        QVERIFY(makeCert(m_otherCerts, {"127.0.0.1"}));
        QVERIFY(m_server.start(m_certs + "/server.crt", m_certs + "/server.key"));
        m_server.answer("/health", R"({"status":"healthy","version":"test"})");
        m_server.answer("/queues", R"({"queues":[{"name":"orders","type":"list","size":3}]})");
    }

    // Exit codes of --make-cert: 1 when it cannot write, 2 for a bad host name.
    void makeCertFailures()
    {
        QProcess brokerd;
        brokerd.start(BROKERD_PATH, {"--make-cert", m_certs});
        QVERIFY(brokerd.waitForFinished(30'000));
        QCOMPARE(brokerd.exitCode(), 1);
        QVERIFY(brokerd.readAllStandardError().contains("exists already (--force replaces it)"));
        brokerd.start(BROKERD_PATH, {"--make-cert", m_env.dir.filePath("bad"), "--host", "a,b"});
        QVERIFY(brokerd.waitForFinished(30'000));
        QCOMPARE(brokerd.exitCode(), 2);
        brokerd.start(BROKERD_PATH, {"--host", "x"});
        QVERIFY(brokerd.waitForFinished(30'000));
        QCOMPARE(brokerd.exitCode(), 2);
    }

    void https_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QStringList>("environment");
        QTest::addColumn<int>("exitCode");
        QTest::addColumn<QString>("stderrHas");
        const QString ca = m_certs + "/ca.crt";
        const QString otherCa = m_otherCerts + "/ca.crt";
        QTest::addRow("verified-with-cacert") << QStringList{"--cacert", ca, "health"} << QStringList{} << 0 << "";
        QTest::addRow("verified-with-API_CACERT") << QStringList{"health"} << QStringList{"API_CACERT=" + ca} << 0 << "";
        QTest::addRow("cacert-by-name-localhost")
            << QStringList{"--cacert", ca, "--url", url().replace("127.0.0.1", "localhost"), "health"} << QStringList{}
            << 0 << "";
        QTest::addRow("refused-without-a-ca")
            << QStringList{"health"} << QStringList{} << 4
            << QStringLiteral("TLS: the certificate of 127.0.0.1:%1 is not trusted").arg(m_server.port());
        QTest::addRow("refused-with-the-wrong-ca")
            << QStringList{"--cacert", otherCa, "health"} << QStringList{} << 4 << "not signed by the --cacert CA";
        QTest::addRow("insecure-works-and-warns")
            << QStringList{"--insecure", "health"} << QStringList{} << 0 << "is not verified";
        QTest::addRow("cacert-not-a-certificate")
            << QStringList{"--cacert", m_certs + "/server.key", "health"} << QStringList{} << 2
            << "holds no PEM certificate";
        QTest::addRow("cacert-missing") << QStringList{"--cacert", m_certs + "/none.crt", "health"} << QStringList{} << 2
                                        << "cannot read the CA file";
    }
    void https()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QStringList, environment);
        QFETCH(int, exitCode);
        QFETCH(QString, stderrHas);
        if (!arguments.contains("--url"))
            arguments = QStringList{"--url", url(), "-o", "json"} + arguments;
        const Run run = m_env.ctl(arguments, {}, environment + QStringList{"RETRY_ATTEMPTS=0"});
        QCOMPARE(run.exitCode, exitCode);
        if (exitCode == 0)
            QCOMPARE(run.json().value("status").toString(), "healthy");
        if (stderrHas.isEmpty())
            QVERIFY2(run.err.isEmpty(), run.err.constData());
        else
            QVERIFY2(run.err.contains(stderrHas.toUtf8()), run.err.constData());
        QCOMPARE(run.err.count('\n'), stderrHas.isEmpty() ? 0 : 1); // one line, never Qt's list
        QVERIFY(!run.err.contains("PRIVATE KEY"));
    }

    void profileKeepsItsCa()
    {
        const Run added = m_env.ctl({"profiles", "add", "lan", "--url", url(), "--cacert", m_certs + "/ca.crt"});
        QCOMPARE(added.exitCode, 0);
        const Run listed = m_env.ctl({"-o", "json", "profiles", "list"});
        QCOMPARE(listed.json().value("profiles").toArray().first().toObject().value("ca_file").toString(),
                 m_certs + "/ca.crt");
        const Run queues = m_env.ctl({"--profile", "lan", "-o", "json", "queues", "list"}, {}, {"API_URL="});
        QVERIFY2(queues.exitCode == 0, queues.err.constData());
        QVERIFY(queues.out.contains("orders"));
    }

    void profileMayBeInsecure()
    {
        QCOMPARE(m_env.ctl({"profiles", "add", "lab", "--url", url(), "--insecure"}).exitCode, 0);
        const Run run = m_env.ctl({"--profile", "lab", "-o", "json", "health"});
        QCOMPARE(run.exitCode, 0);
        QVERIFY(run.err.contains("is not verified"));
        const Run listed = m_env.ctl({"-o", "json", "profiles", "list"});
        QVERIFY(listed.out.contains(R"("insecure":true)"));
    }

    void shellUsesTheProfileCa()
    {
        const Run run = m_env.ctl({"--profile", "lan", "shell"}, "queues list\nexit\n");
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QVERIFY2(run.out.contains("orders"), run.out.constData());
    }
};

QTEST_GUILESS_MAIN(TestBrokerctlTls)
#include "tst_brokerctltls.moc"
