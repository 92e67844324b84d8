// SPDX-License-Identifier: GPL-3.0-or-later
// A gCore user's setup moved over unchanged, black-box: brokerd with gCore's shipped
// message_broker.yaml as it is (pointed at a test Redis through gCore's VALKEY_PORT) keeps its
// queues in Redis under gCore's "mb:queue:" prefix; GCORE_ENV=production refuses to make keys on its
// own and to take API keys in plain HTTP on a non-loopback address.
#include "../support/brokerdlaunch.h"
#include "../support/redisserver.h"
#include "../support/testdata.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace Broker::Testing;

namespace {

const QByteArray Key = "gcore-compat-admin-key-0123456789abcdef";

struct Run
{
    int exitCode = -1;
    QByteArray log;
};

} // namespace

class TestGcoreCompat : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    RedisServer m_redis;
    QNetworkAccessManager m_network;

    QString writeFile(const QString &name, const QByteArray &bytes)
    {
        QFile file(m_dir.filePath(name));
        if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size())
            qFatal("cannot write %s", qPrintable(file.fileName()));
        return file.fileName();
    }

    QProcessEnvironment environment(const QStringList &extra) const
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("VALKEY_PORT"), QString::number(m_redis.port()));
        for (const QString &pair : extra)
            env.insert(pair.section(u'=', 0, 0), pair.section(u'=', 1));
        return env;
    }

    // brokerd run to its end (it refuses to start) within 20 s.
    Run runToEnd(const QStringList &arguments, const QStringList &env)
    {
        QProcess brokerd;
        brokerd.setProcessEnvironment(environment(env));
        brokerd.setProcessChannelMode(QProcess::MergedChannels);
        brokerd.start(BROKERD_PATH, arguments);
        if (!brokerd.waitForFinished(20'000)) {
            brokerd.kill();
            brokerd.waitForFinished();
        }
        return {brokerd.exitStatus() == QProcess::NormalExit ? brokerd.exitCode() : -1, brokerd.readAll()};
    }

    std::pair<int, QJsonObject> call(const QString &base, const QByteArray &method, const QString &path,
                                     const QByteArray &body = {})
    {
        QNetworkRequest request(QUrl(base + path));
        request.setRawHeader("X-API-Key", Key);
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        request.setTransferTimeout(5000);
        QNetworkReply *reply = m_network.sendCustomRequest(request, method, body);
        QElapsedTimer timer;
        timer.start();
        while (!reply->isFinished() && timer.elapsed() < 10'000)
            QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
        reply->deleteLater();
        return {reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(),
                QJsonDocument::fromJson(reply->readAll()).object()};
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        QVERIFY2(m_redis.start(), qPrintable(m_redis.errorString()));
        writeFile("message_broker.yaml", testData("gcore/message_broker.yaml"));
        writeFile("users.yaml", "users:\n  admin_user:\n    role: admin\n    api_key: " + Key + "\n");
    }

    void gcoresShippedFileKeepsQueuesInRedis();
    void productionRefusesToMakeKeys();
    void productionRefusesPlainHttpOnTheNetwork();
};

void TestGcoreCompat::gcoresShippedFileKeepsQueuesInRedis()
{
    QProcess brokerd;
    brokerd.setProcessEnvironment(environment({}));
    brokerd.start(BROKERD_PATH, {"--config", m_dir.filePath("message_broker.yaml"), "--port", "0"});
    QVERIFY(brokerd.waitForStarted());
    QByteArray log;
    const QString base = Broker::Test::waitUntilListening(brokerd, log);
    QVERIFY2(!base.isEmpty(), log.constData());
    QVERIFY2(log.contains("gCore's layout names a store (storage.host) and no storage.backend: running on Redis/Valkey"),
             log.constData());
    QVERIFY2(!log.contains("unknown key"), log.constData());
    QVERIFY2(log.contains(QStringLiteral("redis 127.0.0.1:%1 db 0, prefix \"mb:queue:\"").arg(m_redis.port()).toUtf8()),
             log.constData());

    QCOMPARE(call(base, "POST", "/queues", R"({"name":"orders"})").first, 200);
    QCOMPARE(call(base, "POST", "/messages/orders", R"({"message":{"n":1}})").first, 200);
    const QByteArray keys = m_redis.cli({"--scan"});
    QVERIFY2(keys.contains("mb:queue:{orders}:ready"), keys.constData());
    for (const QByteArray &key : keys.trimmed().split('\n'))
        QVERIFY2(key.startsWith("mb:queue:"), key.constData());
    // gCore's defaults from its file: max_queue_size and message_ttl.
    const QJsonObject info = call(base, "GET", "/queues/orders").second;
    QCOMPARE(info.value("config").toObject().value("max_size").toInt(), 10000);
    QCOMPARE(info.value("config").toObject().value("ttl").toInt(), 86400);

    brokerd.terminate();
    QVERIFY(brokerd.waitForFinished(10'000));
}

void TestGcoreCompat::productionRefusesToMakeKeys()
{
    const QString users = writeFile("placeholder-users.yaml", "users:\n  admin_user:\n    role: admin\n    api_key: admin-key-example\n");
    const Run run = runToEnd({"--config", m_dir.filePath("message_broker.yaml"), "--users", users, "--port", "0"},
                             {"GCORE_ENV=production"});
    QCOMPARE(run.exitCode, 4);
    QVERIFY2(run.log.contains("core.environment is production, and placeholder-users.yaml asks for new keys for "
                              "admin_user"),
             run.log.constData());
    QFile file(users);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QVERIFY(file.readAll().contains("api_key: admin-key-example")); // nothing was written
}

void TestGcoreCompat::productionRefusesPlainHttpOnTheNetwork()
{
    const Run run = runToEnd({"--config", m_dir.filePath("message_broker.yaml"), "--bind", "0.0.0.0", "--port", "0"},
                             {"GCORE_ENV=production"});
    QCOMPARE(run.exitCode, 3);
    QVERIFY2(run.log.contains("core.environment is production: the API would take API keys in plain HTTP on 0.0.0.0"),
             run.log.constData());
}

QTEST_GUILESS_MAIN(TestGcoreCompat)
#include "tst_gcorecompat.moc"
