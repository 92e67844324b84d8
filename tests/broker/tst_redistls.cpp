// SPDX-License-Identifier: GPL-3.0-or-later
// RedisConnection over TLS against redis-server's tls-port, with certificates the test makes:
// commands, pipelining and deadlines; mutual TLS; and each way TLS can fail (wrong CA, wrong
// server name, no client certificate, unusable files, a handshake that never ends) failing the
// connection with a reason that says so, and the pool's commands with Unavailable, as any
// connection failure (the breaker counts those).
#include "redis/connectionpool.h"
#include "redis/redisconnection.h"

#include "../support/eventloop.h"
#include "../support/redisserver.h"
#include "../support/tlscertificates.h"

#include <QFile>
#include <QSignalSpy>
#include <QTest>

#include <optional>

using namespace Broker;
using namespace Broker::Redis;
using namespace Broker::Testing;

namespace {

std::optional<CommandResult> call(RedisConnection &connection, const QByteArrayList &args, int timeoutMs = 0)
{
    std::optional<CommandResult> outcome;
    connection.command(args, [&outcome](CommandResult result) { outcome = std::move(result); }, timeoutMs);
    waitUntil([&] { return outcome.has_value(); }, 10'000);
    return outcome;
}

// Opens `connection`; the reason it was lost, or an empty string once it is ready.
QString openOutcome(RedisConnection &connection)
{
    QSignalSpy lost(&connection, &RedisConnection::disconnected);
    connection.open();
    waitUntil([&] { return connection.state() == RedisConnection::State::Ready || lost.count() > 0; }, 10'000);
    if (connection.state() == RedisConnection::State::Ready)
        return QString();
    return lost.isEmpty() ? QStringLiteral("neither ready nor lost") : lost.first().first().toString();
}

} // namespace

class TestRedisTls : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void commandsPipeliningAndDeadlines();
    void mutualTls();
    void aclUserOverMutualTls();
    void callbackDestroysTheConnectionInItsRead();
    void failures_data();
    void failures();
    void handshakeThatNeverEndsTimesOut();
    void poolCommandsFailAsConnectionFailures();

private:
    ConnectionOptions tlsOptions(quint16 port) const
    {
        ConnectionOptions options;
        options.port = port;
        options.connectTimeoutMs = 2000;
        options.commandTimeoutMs = 2000;
        options.tls = true;
        options.tlsCaFile = m_certificates.caFile();
        return options;
    }
    ConnectionOptions mutualOptions() const
    {
        ConnectionOptions options = tlsOptions(m_mutual.port());
        options.tlsCertFile = m_certificates.clientCertFile();
        options.tlsKeyFile = m_certificates.clientKeyFile();
        return options;
    }
    QString writeFile(const char *name, const QByteArray &text)
    {
        const QString path = m_certificates.path(name);
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly) || file.write(text) != text.size())
            qFatal("cannot write %s", qPrintable(path));
        return path;
    }

    TlsCertificates m_certificates;
    RedisServer m_redis;  // TLS, no client certificate asked for
    RedisServer m_mutual; // TLS, a client certificate signed by the CA required
};

void TestRedisTls::initTestCase()
{
    QVERIFY2(m_certificates.make(), qPrintable(m_certificates.errorString()));
    m_redis.useTls(m_certificates, false);
    QVERIFY2(m_redis.start(), qPrintable(m_redis.errorString()));
    m_mutual.useTls(m_certificates, true);
    QVERIFY2(m_mutual.start(), qPrintable(m_mutual.errorString()));
}

void TestRedisTls::commandsPipeliningAndDeadlines()
{
    RedisConnection connection(tlsOptions(m_redis.port()));
    QCOMPARE(openOutcome(connection), QString());
    QVERIFY(call(connection, {"SET", "tls:key", QByteArray("binary\0value", 12)})->ok());
    QCOMPARE((*call(connection, {"GET", "tls:key"}))->string, QByteArray("binary\0value", 12));

    // 500 commands in one event-loop turn: one write, replies in order.
    QList<qint64> counts;
    for (int i = 0; i < 500; ++i)
        connection.command({"INCR", "tls:counter"}, [&](CommandResult r) { counts.append(r ? r->integer : -1); });
    QVERIFY(waitUntil([&] { return counts.size() == 500; }));
    for (int i = 0; i < 500; ++i)
        QCOMPARE(counts[i], i + 1);

    // A reply larger than one TLS record (16 KiB) comes back whole.
    const QByteArray big(300'000, 'x');
    QVERIFY(call(connection, {"SET", "tls:big", big})->ok());
    QCOMPARE((*call(connection, {"GET", "tls:big"}))->string, big);

    // A missed deadline gives the connection up, as in clear text.
    std::optional<CommandResult> blocked;
    connection.command({"BLPOP", "tls:empty", "2"}, [&](CommandResult r) { blocked = std::move(r); }, 200);
    QVERIFY(waitUntil([&] { return blocked.has_value(); }, 1500));
    QCOMPARE(blocked->error().code, ErrorCode::Timeout);
    QCOMPARE(connection.state(), RedisConnection::State::Disconnected);
    QCOMPARE(openOutcome(connection), QString());
    QVERIFY((*call(connection, {"PING"}))->isText("PONG"));
}

void TestRedisTls::mutualTls()
{
    RedisConnection connection(mutualOptions());
    QCOMPARE(openOutcome(connection), QString());
    QVERIFY((*call(connection, {"PING"}))->isText("PONG"));
    QCOMPARE(m_mutual.cli({"PING"}), QByteArray("PONG"));
}

void TestRedisTls::aclUserOverMutualTls()
{
    QCOMPARE(m_mutual.cli({"ACL", "SETUSER", "tls-broker", "on", ">tls-user-pass", "~*", "+@all"}), QByteArray("OK"));
    ConnectionOptions options = mutualOptions();
    options.username = QStringLiteral("tls-broker");
    options.password = QStringLiteral("tls-user-pass");
    RedisConnection connection(options);
    QCOMPARE(openOutcome(connection), QString());
    QCOMPARE((*call(connection, {"ACL", "WHOAMI"}))->string, QByteArray("tls-broker"));
}

void TestRedisTls::callbackDestroysTheConnectionInItsRead()
{
    // The callback runs inside the socket's readyRead; the socket must outlive that (ASan checks).
    auto *connection = new RedisConnection(tlsOptions(m_redis.port()));
    QCOMPARE(openOutcome(*connection), QString());
    int called = 0;
    connection->command({"PING"}, [&](CommandResult) {
        ++called;
        delete connection;
    });
    connection->command({"PING"}, [&](CommandResult) { ++called; });
    QVERIFY(waitUntil([&] { return called > 0; }));
    QTest::qWait(50);
    QCOMPARE(called, 1); // the second was dropped with the connection
}

void TestRedisTls::failures_data()
{
    QTest::addColumn<int>("server"); // 0: TLS, 1: mutual TLS
    QTest::addColumn<QString>("option");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("reason");

    QTest::addRow("wrong-ca") << 0 << "ca" << m_certificates.otherCaFile()
                              << "TLS handshake failed: the server's certificate was refused";
    QTest::addRow("wrong-server-name") << 0 << "server-name" << "redis.example.com"
                                       << "host name did not match";
    QTest::addRow("no-client-certificate") << 1 << "" << "" << "TLS: the server wants a client certificate";
    QTest::addRow("unreadable-ca-file") << 0 << "ca" << m_certificates.path("missing.crt")
                                        << "tls_ca_file " + m_certificates.path("missing.crt") + ": cannot read";
    QTest::addRow("ca-file-without-certificate") << 0 << "ca" << writeFile("not-a-ca.pem", "SECRET-LOOKING-TEXT\n")
                                                 << "holds no PEM certificate";
    QTest::addRow("key-file-not-a-key") << 1 << "key" << writeFile("not-a-key.pem", "SECRET-LOOKING-TEXT\n")
                                        << "tls_key_file";
    QTest::addRow("certificate-without-key") << 1 << "cert-only" << m_certificates.clientCertFile()
                                             << "tls_cert_file and tls_key_file go together";
}

void TestRedisTls::failures()
{
    QFETCH(int, server);
    QFETCH(QString, option);
    QFETCH(QString, value);
    QFETCH(QString, reason);
    ConnectionOptions options = server == 0 ? tlsOptions(m_redis.port()) : tlsOptions(m_mutual.port());
    if (option == u"ca") {
        options.tlsCaFile = value;
    } else if (option == u"server-name") {
        options.tlsServerName = value;
    } else if (option == u"key") {
        options = mutualOptions();
        options.tlsKeyFile = value;
    } else if (option == u"cert-only") {
        options.tlsCertFile = value;
    }
    RedisConnection connection(options);
    const QString lost = openOutcome(connection);
    qInfo().noquote() << QTest::currentDataTag() << "->" << lost; // what an operator reads
    QVERIFY2(lost.contains(reason), qPrintable(lost));
    QVERIFY2(!lost.contains("SECRET-LOOKING-TEXT"), qPrintable(lost)); // never a file's contents
    QCOMPARE(connection.state(), RedisConnection::State::Disconnected);
    QCOMPARE(call(connection, {"PING"})->error().code, ErrorCode::Unavailable);
}

void TestRedisTls::handshakeThatNeverEndsTimesOut()
{
    BlackHoleServer hole; // accepts, never answers the ClientHello
    ConnectionOptions options = tlsOptions(hole.port());
    options.connectTimeoutMs = 300;
    RedisConnection connection(options);
    QElapsedTimer timer;
    timer.start();
    const QString lost = openOutcome(connection);
    QVERIFY2(lost.contains("no TLS handshake within the connect timeout (300 ms)"), qPrintable(lost));
    QVERIFY2(timer.elapsed() >= 250 && timer.elapsed() < 2000, qPrintable(QString::number(timer.elapsed())));
}

void TestRedisTls::poolCommandsFailAsConnectionFailures()
{
    ConnectionOptions options = tlsOptions(m_redis.port());
    options.tlsCaFile = m_certificates.otherCaFile();
    PoolOptions poolOptions;
    poolOptions.size = 1;
    poolOptions.waitTimeoutMs = 500;
    ConnectionPool pool(options, poolOptions);
    pool.start();
    std::optional<CommandResult> outcome;
    pool.command({"PING"}, [&](CommandResult r) { outcome = std::move(r); });
    QVERIFY(waitUntil([&] { return outcome.has_value(); }));
    QCOMPARE(outcome->error().code, ErrorCode::Unavailable);
    QVERIFY2(outcome->error().message.contains("TLS handshake failed"), qPrintable(outcome->error().message));
    QVERIFY(pool.lastError().contains("certificate"));
    pool.stop();
}

QTEST_GUILESS_MAIN(TestRedisTls)
#include "tst_redistls.moc"
