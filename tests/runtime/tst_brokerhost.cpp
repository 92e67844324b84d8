// SPDX-License-Identifier: GPL-3.0-or-later
#include "runtime/brokerhost.h"

#include "../support/httptarget.h"
#include "../support/testdata.h"

#include "engine/messagebroker.h"
#include "security/accesspolicy.h"
#include "security/userdirectory.h"

#include <QCryptographicHash>
#include <QFile>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QTest>

using namespace Broker;
using Broker::Testing::testData;

class TestBrokerHost : public QObject
{
    Q_OBJECT

private:
    static void write(const QString &path, const QByteArray &text)
    {
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        QCOMPARE(file.write(text), text.size());
    }

private Q_SLOTS:
    void startsFromConfigAndUsers();
    void failuresNameTheirStage_data();
    void failuresNameTheirStage();
    void busyPortIsAListenFailure();
    void newKeysReachTheFileOnlyWhenTheStartWorks_data();
    void newKeysReachTheFileOnlyWhenTheStartWorks();
    void configuredProcessorsRunOnEveryStart();
};

void TestBrokerHost::startsFromConfigAndUsers()
{
    QTemporaryDir dir;
    write(dir.filePath("broker.yaml"), testData(QStringLiteral("brokerhost/relative-users/broker.yaml")));
    write(dir.filePath("people.yaml"), testData(QStringLiteral("brokerhost/relative-users/people.yaml")));
    BrokerHost host;
    HostSettings settings;
    settings.configFile = dir.filePath("broker.yaml");
    settings.bindOverride = "127.0.0.1";
    settings.portOverride = 0;
    const Result<void> started = host.start(settings);
    QVERIFY2(started.ok(), started.ok() ? "" : qPrintable(started.error().message));
    QVERIFY(host.apiUrl().startsWith("http://127.0.0.1:"));
    QVERIFY(!host.apiUrl().endsWith(":0"));
    QVERIFY(host.isRunning());
    QCOMPARE(host.usersFile(), dir.filePath("people.yaml"));
    QCOMPARE(host.issuedKeys().size(), 1);
    QVERIFY(host.policy().allows({"auditor"}, "list_queues"));
    QCOMPARE(host.users()->authenticate(host.issuedKeys().first().apiKey)->id, "audit");

    // The configured defaults reach the engine.
    std::optional<Result<QueueInfo>> created;
    const QueueConfig defaults = QueueConfig::withDefaults(host.broker()->options().queueDefaults);
    host.broker()->createQueue("q", defaults, [&](Result<QueueInfo> r) { created.emplace(std::move(r)); });
    QVERIFY(created && created->ok());
    QCOMPARE(created->value().config.maxSize, 7);
    host.stop();
    QVERIFY(!host.isRunning());
}

void TestBrokerHost::failuresNameTheirStage_data()
{
    QTest::addColumn<QByteArray>("config");
    QTest::addColumn<QByteArray>("users");
    QTest::addColumn<int>("stage");
    QTest::addColumn<QString>("error"); // after the temporary folder's path
    QTest::addRow("bad-yaml") << QByteArray("api: {port: -1}\n") << QByteArray() << int(StartStage::Config)
                              << "/broker.yaml:1:13: 'api.port' must be a whole number from 0 to 65535, not '-1'";
    QTest::addRow("redis-tls-unreadable-ca")
        << QByteArray("storage: {backend: redis, redis: {tls: true, tls_ca_file: /nonexistent/ca.pem}}\n")
        << QByteArray("users: {}\n") << int(StartStage::Storage)
        << "storage.redis.tls_ca_file /nonexistent/ca.pem: cannot read: No such file or directory";
    QTest::addRow("redis-tls-certificate-without-key")
        << QByteArray("storage: {backend: redis, redis: {tls: true, tls_cert_file: /etc/client.pem}}\n") << QByteArray()
        << int(StartStage::Config) << "'storage.redis.tls_key_file' go together (mutual TLS): give both or neither";
    QTest::addRow("bad-role") << QByteArray("security: {roles: {admin: {permissions: [x]}}}\n") << QByteArray()
                              << int(StartStage::Config) << "security.roles: The admin role cannot be redefined";
    QTest::addRow("no-users-file") << QByteArray("{}\n") << QByteArray() << int(StartStage::Users)
                                   << "/users.yaml: users file not found";
    QTest::addRow("bad-users") << QByteArray("{}\n") << QByteArray("users: [1]\n") << int(StartStage::Users)
                               << "/users.yaml:1:8: 'users' must be a mapping of keys to values";
    QTest::addRow("bad-bind") << QByteArray("api: {bind: everywhere}\n") << QByteArray("users: {}\n")
                              << int(StartStage::Listen) << "api.bind 'everywhere' is not an IP address";
    QTest::addRow("unusable-address") << QByteArray("api: {bind: 192.0.2.1}\n") << QByteArray("users: {}\n")
                                      << int(StartStage::Listen) << "The address is not available";
}

void TestBrokerHost::failuresNameTheirStage()
{
    QFETCH(QByteArray, config);
    QFETCH(QByteArray, users);
    QFETCH(int, stage);
    QFETCH(QString, error);
    QTemporaryDir dir;
    write(dir.filePath("broker.yaml"), config);
    if (!users.isEmpty())
        write(dir.filePath("users.yaml"), users);
    BrokerHost host;
    HostSettings settings;
    settings.configFile = dir.filePath("broker.yaml");
    settings.portOverride = 0;
    const Result<void> started = host.start(settings);
    QVERIFY(!started.ok());
    QCOMPARE(int(host.failedStage()), stage);
    QVERIFY2(started.error().message.endsWith(error), qPrintable(started.error().message));
    QVERIFY(!host.isRunning());
}

void TestBrokerHost::busyPortIsAListenFailure()
{
    QTemporaryDir dir;
    write(dir.filePath("users.yaml"), "users: {}\n");
    BrokerHost first;
    HostSettings settings;
    settings.usersFile = dir.filePath("users.yaml");
    settings.bindOverride = "127.0.0.1";
    settings.portOverride = 0;
    QVERIFY(first.start(settings).ok());
    settings.portOverride = first.apiUrl().section(':', -1).toInt();
    BrokerHost second;
    const Result<void> started = second.start(settings);
    QVERIFY(!started.ok());
    QCOMPARE(second.failedStage(), StartStage::Listen);
    QVERIFY2(started.error().message.contains("cannot listen on 127.0.0.1:"), qPrintable(started.error().message));
    QVERIFY(!second.isRunning());
}

// A first start on a taken port must not leave a hash whose key nobody saw: the file is written
// (or rewritten) only by a start that works, and the key that start reports is the one it holds.
void TestBrokerHost::newKeysReachTheFileOnlyWhenTheStartWorks_data()
{
    QTest::addColumn<QByteArray>("users"); // empty: no users file yet (a desktop's first run)
    QTest::addColumn<QString>("user");
    QTest::addRow("first-run") << QByteArray() << "admin";
    QTest::addRow("placeholder-key") << QByteArray("users:\n  ops: {role: admin, api_key: \"\"}\n") << "ops";
}

void TestBrokerHost::newKeysReachTheFileOnlyWhenTheStartWorks()
{
    QFETCH(QByteArray, users);
    QFETCH(QString, user);
    QTemporaryDir dir;
    const QString usersPath = dir.filePath("users.yaml");
    if (!users.isEmpty())
        write(usersPath, users);
    QTcpServer taken;
    QVERIFY(taken.listen(QHostAddress::LocalHost, 0));
    HostSettings settings;
    settings.usersFile = usersPath;
    settings.createUsersFile = true;
    settings.bindOverride = "127.0.0.1";
    settings.portOverride = taken.serverPort();

    BrokerHost host;
    QVERIFY(!host.start(settings).ok());
    QCOMPARE(host.failedStage(), StartStage::Listen);
    if (users.isEmpty()) {
        QVERIFY(!QFile::exists(usersPath));
    } else {
        QFile file(usersPath);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QCOMPARE(file.readAll(), users); // the placeholder is still there for the next start
    }

    settings.portOverride = 0;
    const Result<void> started = host.start(settings);
    QVERIFY2(started.ok(), started.ok() ? "" : qPrintable(started.error().message));
    QCOMPARE(host.issuedKeys().size(), 1);
    const IssuedKey key = host.issuedKeys().first();
    QCOMPARE(key.userId, user);
    QFile file(usersPath);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray text = file.readAll();
    const QByteArray hash = QCryptographicHash::hash(key.apiKey.toUtf8(), QCryptographicHash::Sha256).toHex();
    QVERIFY2(text.contains("api_key_sha256: " + hash), text.constData());
    QVERIFY(!text.contains(key.apiKey.toUtf8()));
    QVERIFY(!host.users()->hasUnsavedKeys());
}

void TestBrokerHost::configuredProcessorsRunOnEveryStart()
{
    QTemporaryDir dir;
    Broker::Testing::HttpTarget target({QStringLiteral("200")});
    write(dir.filePath("broker.yaml"), QStringLiteral(R"(processors:
  - name: jobs-hook
    queue: jobs
    type: webhook
    url: %1
    secret: s3cret
  - queue: jobs
    type: exec
    command: [/bin/sh, -c, 'cat >> "$0"', %2]
    concurrency: 2
)")
                                           .arg(target.url().toString(), dir.filePath("ran"))
                                           .toUtf8());
    BrokerHost host;
    HostSettings settings;
    settings.configFile = dir.filePath("broker.yaml");
    settings.createUsersFile = true;
    settings.bindOverride = "127.0.0.1";
    settings.portOverride = 0;
    for (int start = 0; start < 2; ++start) { // Apply in the desktop, or a restart: a new engine, the same processors
        const Result<void> started = host.start(settings);
        QVERIFY2(started.ok(), started.ok() ? "" : qPrintable(started.error().message));
        ProcessorStatusList statuses = host.broker()->processorStatuses();
        QCOMPARE(statuses.size(), 2);
        QCOMPARE(statuses[0].kind, QStringLiteral("webhook"));
        QCOMPARE(statuses[0].name, QStringLiteral("jobs-hook"));
        QCOMPARE(statuses[0].target, QStringLiteral("http://127.0.0.1:%1").arg(target.url().port()));
        QCOMPARE(statuses[1].kind, QStringLiteral("exec"));
        QCOMPARE(statuses[1].target, QStringLiteral("sh"));
        QCOMPARE(statuses[1].concurrency, 2);
        QVERIFY(!statuses[0].running); // no queue "jobs" yet: waiting for it
        std::optional<Result<QueueInfo>> created;
        host.broker()->createQueue("jobs", QueueConfig::withDefaults(host.broker()->options().queueDefaults),
                                   [&](Result<QueueInfo> r) { created.emplace(std::move(r)); });
        QVERIFY(created && created->ok());
        std::optional<Result<PublishResult>> published;
        host.broker()->publish("jobs", {NewMessage{QByteArray::number(start), {}, 0, 0, {}}}, "alice",
                               [&](Result<PublishResult> r) { published.emplace(std::move(r)); });
        QVERIFY(published && published->ok());
        // One of the two takes it.
        QTRY_VERIFY([&] {
            statuses = host.broker()->processorStatuses();
            return statuses[0].successes + statuses[1].successes == 1;
        }());
        host.stop();
    }
    QFile ran(dir.filePath("ran"));
    const QByteArray ranText = ran.open(QIODevice::ReadOnly) ? ran.readAll() : QByteArray();
    QCOMPARE(target.requests().size() + ranText.size(), 2);
}

QTEST_GUILESS_MAIN(TestBrokerHost)
#include "tst_brokerhost.moc"
