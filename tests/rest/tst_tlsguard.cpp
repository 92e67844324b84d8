// SPDX-License-Identifier: GPL-3.0-or-later
// The API over HTTPS (api.tls): what the TLS layer under the guard promises — handshakes bounded in
// time, mutual TLS, a reload that keeps open connections and refuses a bad pair — and what health,
// metrics and the loader say about the certificate.
#include "restfixture.h"

#include "rest/tlsidentity.h"

#include <QSslKey>
#include <QTest>

using namespace Broker;
using namespace Broker::Testing;

namespace {

QByteArray get(const QByteArray &path, const QByteArray &key = {})
{
    return "GET " + path + " HTTP/1.1\r\nHost: t\r\n" + (key.isEmpty() ? QByteArray() : "X-API-Key: " + key + "\r\n") + "\r\n";
}

// A TLS client on 127.0.0.1 that trusts `caFile` (or nothing is verified when it is empty) and
// presents the client certificate of `certificates` when `withClientCertificate`.
class TlsClient
{
public:
    TlsClient(quint16 port, const QString &caFile, const TlsCertificates *clientIdentity = nullptr)
    {
        QSslConfiguration configuration = QSslConfiguration::defaultConfiguration();
        if (caFile.isEmpty()) {
            configuration.setPeerVerifyMode(QSslSocket::VerifyNone);
        } else {
            configuration.setCaCertificates(QSslCertificate::fromPath(caFile));
        }
        if (clientIdentity) {
            configuration.setLocalCertificateChain(QSslCertificate::fromPath(clientIdentity->clientCertFile()));
            QFile key(clientIdentity->clientKeyFile());
            if (key.open(QIODevice::ReadOnly))
                configuration.setPrivateKey(QSslKey(key.readAll(), QSsl::Ec));
        }
        m_socket.setSslConfiguration(configuration);
        m_socket.setPeerVerifyName(QStringLiteral("127.0.0.1"));
        m_socket.connectToHostEncrypted(QStringLiteral("127.0.0.1"), port);
        m_encrypted = waitForEncrypted(m_socket);
    }
    bool encrypted() const { return m_encrypted; }
    QSslSocket &socket() { return m_socket; }
    // Sends `request` and waits for one response (an incomplete one when none came).
    HttpResponse ask(const QByteArray &request)
    {
        m_socket.write(request);
        QElapsedTimer timer;
        timer.start();
        while (timer.elapsed() < 5000) {
            m_buffer += m_socket.readAll();
            if (std::optional<HttpResponse> response = takeResponse(m_buffer))
                return *response;
            if (m_socket.state() != QAbstractSocket::ConnectedState)
                break;
            QTest::qWait(2);
        }
        return {};
    }

private:
    QSslSocket m_socket;
    QByteArray m_buffer;
    bool m_encrypted = false;
};

Rest::TlsOptions tlsOf(const TlsCertificates &certificates)
{
    Rest::TlsOptions tls;
    tls.enabled = true;
    tls.certFile = certificates.serverCertFile();
    tls.keyFile = certificates.serverKeyFile();
    return tls;
}

QByteArray fingerprint(const QSslCertificate &certificate)
{
    return certificate.digest(QCryptographicHash::Sha256);
}

} // namespace

class TestTlsGuard : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();

    void httpsServesTheApiAndHealthShowsTheCertificate();
    void aPlainClientOnTheTlsPortIsClosed();
    void aSilentHandshakeIsCutOff();
    void mutualTlsWantsAClientCertificate();
    void pipelinedRequestsOverTlsAreAnsweredInOrder();
    void requestsArrivingWhileOthersAreAnsweredAreAllRead();
    void aClientThatResetsWhileAnswersAreSentCostsNothing();
    void reloadServesNewConnectionsAndKeepsOpenOnes();
    void aBadReloadKeepsTheServedPair();
    void aCertificateNearItsEndDegradesHealth();
    void loaderNamesWhatIsWrong_data();
    void loaderNamesWhatIsWrong();

private:
    TlsCertificates m_certificates{30};
    TlsCertificates m_short{2}; // expires within ExpiryWarningDays
};

void TestTlsGuard::initTestCase()
{
    if (!TlsCertificates::available())
        QSKIP("the openssl command is not installed (Debian package openssl)");
    QVERIFY2(m_certificates.make(), qPrintable(m_certificates.errorString()));
    QVERIFY2(m_short.make(), qPrintable(m_short.errorString()));
}

void TestTlsGuard::httpsServesTheApiAndHealthShowsTheCertificate()
{
    Rest::RestOptions options;
    options.tls = tlsOf(m_certificates);
    RestFixture f(options);
    TlsClient client(f.port, m_certificates.caFile());
    QVERIFY2(client.encrypted(), qPrintable(client.socket().errorString()));
    const HttpResponse health = client.ask(get("/health", AdminKey));
    QCOMPARE(health.status, 200);
    QCOMPARE(health.json().value("status").toString(), QStringLiteral("healthy"));
    const QJsonObject api = health.json().value("components").toObject().value("api").toObject();
    QCOMPARE(api.value("tls").toBool(), true);
    QCOMPARE(api.value("status").toString(), QStringLiteral("healthy"));
    const QJsonObject certificate = api.value("certificate").toObject();
    QVERIFY2(certificate.value("days_left").toInt() >= 28, qPrintable(QString::number(certificate.value("days_left").toInt())));
    QCOMPARE(certificate.value("subject").toString(), QStringLiteral("redis.test"));
    QVERIFY(!api.contains("warning"));

    const HttpResponse metrics = client.ask(get("/metrics", AdminKey));
    QCOMPARE(metrics.status, 200);
    QVERIFY(metrics.body.contains("brokerdesk_tls_certificate_days_left "));
    QVERIFY(metrics.body.contains("brokerdesk_tls_handshakes_failed_total{reason=\"timeout\"} 0"));

    // Without the CA the client refuses the server, and says why.
    TlsClient stranger(f.port, m_certificates.otherCaFile());
    QVERIFY(!stranger.encrypted());
}

void TestTlsGuard::aPlainClientOnTheTlsPortIsClosed()
{
    Rest::RestOptions options;
    options.tls = tlsOf(m_certificates);
    RestFixture f(options);
    QTcpSocket plain;
    plain.connectToHost(QHostAddress::LocalHost, f.port);
    QVERIFY(plain.waitForConnected(5000));
    plain.write(get("/health/live"));
    QTRY_VERIFY_WITH_TIMEOUT(plain.state() == QAbstractSocket::UnconnectedState, 5000);
    QVERIFY(!plain.readAll().startsWith("HTTP/1.1 200"));
    QTRY_COMPARE_WITH_TIMEOUT(f.server->guardStats().tlsHandshakeFailures, qint64(1), 5000);
    QCOMPARE(f.server->connectionCount(), 0);
}

void TestTlsGuard::aSilentHandshakeIsCutOff()
{
    Rest::RestOptions options;
    options.tls = tlsOf(m_certificates);
    options.tls.handshakeTimeoutMs = 300;
    RestFixture f(options);
    QTcpSocket silent;
    silent.connectToHost(QHostAddress::LocalHost, f.port);
    QVERIFY(silent.waitForConnected(5000));
    QTRY_COMPARE_WITH_TIMEOUT(f.server->connectionCount(), 1, 2000);
    QElapsedTimer timer;
    timer.start();
    QTRY_VERIFY_WITH_TIMEOUT(silent.state() == QAbstractSocket::UnconnectedState, 5000);
    QVERIFY2(timer.elapsed() < 3000, qPrintable(QString::number(timer.elapsed())));
    QCOMPARE(f.server->guardStats().tlsHandshakeTimeouts, qint64(1));
    QTRY_COMPARE_WITH_TIMEOUT(f.server->connectionCount(), 0, 2000);
    // A proper client is still served.
    TlsClient client(f.port, m_certificates.caFile());
    QVERIFY(client.encrypted());
    QCOMPARE(client.ask(get("/health/live")).status, 200);
}

void TestTlsGuard::mutualTlsWantsAClientCertificate()
{
    Rest::RestOptions options;
    options.tls = tlsOf(m_certificates);
    options.tls.clientCaFile = m_certificates.caFile();
    RestFixture f(options);

    TlsClient anonymous(f.port, m_certificates.caFile());
    // The server refuses during or right after the handshake (TLS 1.3 reports it on first read).
    const HttpResponse refused = anonymous.encrypted() ? anonymous.ask(get("/health/live")) : HttpResponse{};
    QCOMPARE(refused.status, 0);
    QTRY_VERIFY_WITH_TIMEOUT(f.server->guardStats().tlsHandshakeFailures >= 1, 5000);

    TlsClient known(f.port, m_certificates.caFile(), &m_certificates);
    QVERIFY2(known.encrypted(), qPrintable(known.socket().errorString()));
    QCOMPARE(known.ask(get("/health/live")).status, 200);
    const HttpResponse health = known.ask(get("/health", AdminKey));
    QCOMPARE(health.json().value("components").toObject().value("api").toObject().value("certificate").toObject()
                 .value("client_certificates").toBool(), true);
}

void TestTlsGuard::pipelinedRequestsOverTlsAreAnsweredInOrder()
{
    Rest::RestOptions options;
    options.tls = tlsOf(m_certificates);
    RestFixture f(options);
    TlsClient client(f.port, m_certificates.caFile());
    QVERIFY(client.encrypted());
    const QByteArray queue = R"({"name":"orders"})";
    QCOMPARE(client.ask("POST /queues HTTP/1.1\r\nHost: t\r\nX-API-Key: " + AdminKey + "\r\nContent-Length: "
                        + QByteArray::number(queue.size()) + "\r\n\r\n" + queue).status, 200);
    QByteArray pipelined;
    for (int i = 0; i < 5; ++i) {
        const QByteArray body = R"({"message":)" + QByteArray::number(i) + "}";
        pipelined += "POST /messages/orders HTTP/1.1\r\nHost: t\r\nX-API-Key: " + AdminKey + "\r\nContent-Length: "
            + QByteArray::number(body.size()) + "\r\n\r\n" + body;
    }
    client.socket().write(pipelined);
    for (int i = 0; i < 5; ++i) {
        const HttpResponse published = client.ask({});
        QCOMPARE(published.status, 200);
        QCOMPARE(published.json().value("queue_size").toInt(), i + 1);
    }
}

void TestTlsGuard::requestsArrivingWhileOthersAreAnsweredAreAllRead()
{
    // Each request is a TLS record of its own and arrives while earlier ones are being answered,
    // so that QSslSocket decrypts some while the guard is not reading: they wait in QSslSocket's
    // buffer, not in the kernel, and must still be read when the guard reads again.
    Rest::RestOptions options;
    options.tls = tlsOf(m_certificates);
    RestFixture f(options);
    TlsClient client(f.port, m_certificates.caFile());
    QVERIFY(client.encrypted());
    constexpr int Requests = 400;
    for (int i = 0; i < Requests; ++i) {
        client.socket().write(get("/health/live"));
        client.socket().flush();
        if (i % 3 == 0)
            QCoreApplication::processEvents();
    }
    int answered = 0;
    while (answered < Requests) {
        const HttpResponse response = client.ask({});
        if (response.status != 200)
            break;
        ++answered;
    }
    QCOMPARE(answered, Requests);
}

void TestTlsGuard::aClientThatResetsWhileAnswersAreSentCostsNothing()
{
    // Large answers the client never reads, then a close with unread input (a reset) while the
    // server is still writing them: the connection must go quietly (a SIGPIPE would end this
    // process), three times over, and the next client is served.
    Rest::RestOptions options;
    options.tls = tlsOf(m_certificates);
    RestFixture f(options);
    for (int round = 0; round < 3; ++round) {
        TlsClient client(f.port, m_certificates.caFile());
        QVERIFY(client.encrypted());
        QCOMPARE(client.ask(get("/health/live")).status, 200);
        QByteArray many;
        for (int i = 0; i < 20; ++i)
            many += get("/openapi.json");
        client.socket().write(many);
        client.socket().flush();
        QTest::qWait(100); // answers are on their way: some wait in the kernel, unread
        client.socket().abort();
    }
    QTRY_COMPARE_WITH_TIMEOUT(f.server->connectionCount(), 0, 5000);
    TlsClient after(f.port, m_certificates.caFile());
    QVERIFY(after.encrypted());
    QCOMPARE(after.ask(get("/health/live")).status, 200);
}

void TestTlsGuard::reloadServesNewConnectionsAndKeepsOpenOnes()
{
    Rest::RestOptions options;
    options.tls = tlsOf(m_certificates);
    RestFixture f(options);
    TlsClient before(f.port, m_certificates.caFile());
    QVERIFY(before.encrypted());
    QCOMPARE(before.ask(get("/health/live")).status, 200);

    QVERIFY2(f.server->reloadTls(tlsOf(m_short)).ok(), "reload");
    // The open connection goes on with the old certificate; a new one gets the new certificate.
    QCOMPARE(before.ask(get("/health/live")).status, 200);
    QCOMPARE(fingerprint(before.socket().peerCertificate()),
             fingerprint(QSslCertificate::fromPath(m_certificates.serverCertFile()).value(0)));
    TlsClient after(f.port, m_short.caFile());
    QVERIFY2(after.encrypted(), qPrintable(after.socket().errorString()));
    QCOMPARE(fingerprint(after.socket().peerCertificate()),
             fingerprint(QSslCertificate::fromPath(m_short.serverCertFile()).value(0)));
    QCOMPARE(after.ask(get("/health/live")).status, 200);
}

void TestTlsGuard::aBadReloadKeepsTheServedPair()
{
    Rest::RestOptions options;
    options.tls = tlsOf(m_certificates);
    RestFixture f(options);
    Rest::TlsOptions mismatched = tlsOf(m_certificates);
    mismatched.keyFile = m_short.serverKeyFile(); // another certificate's key
    const Result<void> reloaded = f.server->reloadTls(mismatched);
    QVERIFY(!reloaded.ok());
    QVERIFY2(reloaded.error().message.contains(u"not the private key of the certificate"), qPrintable(reloaded.error().message));
    QVERIFY(!reloaded.error().message.contains(m_short.directory()));

    TlsClient client(f.port, m_certificates.caFile());
    QVERIFY(client.encrypted());
    QCOMPARE(fingerprint(client.socket().peerCertificate()),
             fingerprint(QSslCertificate::fromPath(m_certificates.serverCertFile()).value(0)));
    QCOMPARE(client.ask(get("/health/live")).status, 200);
}

void TestTlsGuard::aCertificateNearItsEndDegradesHealth()
{
    Rest::RestOptions options;
    options.tls = tlsOf(m_short);
    RestFixture f(options);
    TlsClient client(f.port, m_short.caFile());
    QVERIFY(client.encrypted());
    const HttpResponse health = client.ask(get("/health"));
    QCOMPARE(health.status, 200);
    QCOMPARE(health.json().value("status").toString(), QStringLiteral("degraded"));
    const QJsonObject api = health.json().value("components").toObject().value("api").toObject();
    QCOMPARE(api.value("status").toString(), QStringLiteral("degraded"));
    QVERIFY2(api.value("warning").toString().contains(u"expires in"), qPrintable(api.value("warning").toString()));
    QVERIFY(!api.value("certificate").toObject().contains("sha256")); // details for view_metrics keys only
}

void TestTlsGuard::loaderNamesWhatIsWrong_data()
{
    QTest::addColumn<QString>("certFile");
    QTest::addColumn<QString>("keyFile");
    QTest::addColumn<QString>("clientCaFile");
    QTest::addColumn<QString>("expected");
    const QString cert = m_certificates.serverCertFile();
    const QString key = m_certificates.serverKeyFile();
    QTest::addRow("missing-certificate") << m_certificates.path("none.crt") << key << QString() << "api.tls.cert_file: cannot read";
    QTest::addRow("key-as-certificate") << key << key << QString() << "api.tls.cert_file: no PEM certificate";
    QTest::addRow("missing-key") << cert << m_certificates.path("none.key") << QString() << "api.tls.key_file: cannot read";
    QTest::addRow("certificate-as-key") << cert << cert << QString() << "api.tls.key_file: no unencrypted PEM private key";
    QTest::addRow("another-certificates-key") << cert << m_certificates.clientKeyFile() << QString() << "not the private key";
    QTest::addRow("client-ca-not-pem") << cert << key << key << "api.tls.client_ca_file: no PEM certificate";
    // A chain (or a client CA file) whose second certificate is damaged is refused, not used cut short.
    QFile leaf(cert);
    QFile damaged(m_certificates.path("damaged-chain.crt"));
    if (leaf.open(QIODevice::ReadOnly) && damaged.open(QIODevice::WriteOnly)) {
        const QByteArray pem = leaf.readAll();
        damaged.write(pem + "-----BEGIN CERTIFICATE-----\nAAAAnotbase64!!\n-----END CERTIFICATE-----\n");
    }
    QTest::addRow("damaged-chain") << damaged.fileName() << key << QString() << "api.tls.cert_file: OpenSSL refused a chain certificate";
    QTest::addRow("damaged-client-ca") << cert << key << damaged.fileName()
                                       << "api.tls.client_ca_file: OpenSSL refused a certificate";
}

void TestTlsGuard::loaderNamesWhatIsWrong()
{
    QFETCH(QString, certFile);
    QFETCH(QString, keyFile);
    QFETCH(QString, clientCaFile);
    QFETCH(QString, expected);
    Rest::TlsOptions options;
    options.enabled = true;
    options.certFile = certFile;
    options.keyFile = keyFile;
    options.clientCaFile = clientCaFile;
    const Result<Rest::TlsIdentity> loaded = Rest::loadTlsIdentity(options);
    QVERIFY(!loaded.ok());
    QVERIFY2(loaded.error().message.contains(expected), qPrintable(loaded.error().message));
    QVERIFY2(!loaded.error().message.contains(m_certificates.directory()), qPrintable(loaded.error().message));
    QVERIFY(!loaded.error().message.contains("BEGIN")); // never the file's contents
}

QTEST_GUILESS_MAIN(TestTlsGuard)
#include "tst_tlsguard.moc"
