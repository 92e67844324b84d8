// SPDX-License-Identifier: GPL-3.0-or-later
// /health, /api/health and /health/ready against a store whose health and status the test sets:
// what everyone sees (cheap, at most a second old, no internals), what a view_metrics key adds,
// and that a store refusing changes (read-only) is never reported as healthy or ready.
#include "restfixture.h"
#include "../support/controlledstore.h"
#include "errors/webhooksender.h"

#include <QJsonArray>
#include <QTcpServer>
#include <QTest>

using namespace Broker;
using namespace Broker::Testing;

namespace {

// A broker on a store the test controls, with a clock the test moves.
struct HealthFixture
{
    HealthFixture() : errors(clock), store(types, clock), broker(store, types, clock, {}, &errors), users(policy, clock)
    {
        const QString path = dir.filePath("users.yaml");
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly))
            qFatal("cannot write users.yaml");
        file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
        file.write("users:\n"
                   "  admin_user: {role: admin, api_key: " + AdminKey + "}\n"
                   "  publisher_user: {role: publisher, api_key: " + PublisherKey + "}\n");
        file.close();
        if (!users.load(path).ok())
            qFatal("cannot load users.yaml");
        server = std::make_unique<Rest::RestServer>(Rest::RestContext{broker, users, policy, errors, clock, {}});
        port = *server->listen(QHostAddress::LocalHost, 0);
    }

    HttpResponse request(const QByteArray &method, const QByteArray &path, const QByteArray &key = {},
                         const QByteArray &body = {})
    {
        RawClient client(port);
        QByteArray bytes = method + ' ' + path + " HTTP/1.1\r\nHost: test\r\nConnection: close\r\n";
        if (!key.isEmpty())
            bytes += "X-API-Key: " + key + "\r\n";
        if (method == "POST")
            bytes += "Content-Type: application/json\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n";
        client.send(bytes + "\r\n" + body);
        return client.receive(10'000);
    }

    QTemporaryDir dir;
    ManualClock clock;
    QueueTypeRegistry types;
    ErrorManager errors;
    ControlledStore store;
    MessageBroker broker;
    AccessPolicy policy;
    UserDirectory users;
    std::unique_ptr<Rest::RestServer> server;
    quint16 port = 0;
};

QJsonObject storageOf(const HttpResponse &response)
{
    return response.json().value("components").toObject().value("storage").toObject();
}

} // namespace

class TestHealthEndpoint : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void storeStates_data();
    void storeStates();
    void detailNeedsAKey_data();
    void detailNeedsAKey();
    void unauthenticatedHealthCountsAtMostOncePerSecond();
    void failedCountIsNotKeptOnceTheStoreIsBack();
    void aFailingNotificationWebhookShows();
};

void TestHealthEndpoint::storeStates_data()
{
    QTest::addColumn<int>("health"); // HealthStatus
    QTest::addColumn<bool>("writable");
    QTest::addColumn<QString>("reason");
    QTest::addColumn<int>("healthCode");
    QTest::addColumn<QString>("status");
    QTest::addColumn<int>("readyCode");
    QTest::addColumn<QString>("shownReason");

    QTest::addRow("healthy") << int(HealthStatus::Healthy) << true << QString() << 200 << "healthy" << 200 << QString();
    QTest::addRow("read-only-is-degraded-and-not-ready")
        << int(HealthStatus::Healthy) << false << "Journal writes fail: no space left on device" << 200 << "degraded"
        << 503 << "Journal writes fail: no space left on device";
    QTest::addRow("read-only-reason-loses-its-path")
        << int(HealthStatus::Healthy) << false << "/var/lib/brokerdesk/journal.log: Input/output error" << 200
        << "degraded" << 503 << "[path]: Input/output error";
    QTest::addRow("degraded-fallback-stays-ready") << int(HealthStatus::Degraded) << true << QString() << 200
                                                   << "degraded" << 200 << QString();
    QTest::addRow("unhealthy") << int(HealthStatus::Unhealthy) << true << QString() << 503 << "unhealthy" << 503
                               << QString();
    QTest::addRow("unhealthy-and-read-only") << int(HealthStatus::Unhealthy) << false << "disk full" << 503
                                             << "unhealthy" << 503 << "disk full";
}

void TestHealthEndpoint::storeStates()
{
    QFETCH(int, health);
    QFETCH(bool, writable);
    QFETCH(QString, reason);
    QFETCH(int, healthCode);
    QFETCH(QString, status);
    QFETCH(int, readyCode);
    QFETCH(QString, shownReason);

    HealthFixture f;
    f.store.reportedHealth = HealthStatus(health);
    f.store.reportedStatus.writable = writable;
    f.store.reportedStatus.readOnlyReason = reason;
    for (const QByteArray &key : {QByteArray(), AdminKey}) { // the cheap answer and the detailed one agree
        for (const char *path : {"/health", "/api/health"}) {
            const HttpResponse r = f.request("GET", path, key);
            QCOMPARE(r.status, healthCode);
            QCOMPARE(r.json().value("status").toString(), status);
            QCOMPARE(storageOf(r).value("status").toString(), status);
            QCOMPARE(storageOf(r).value("writable").toBool(), writable);
            QCOMPARE(storageOf(r).value("read_only_reason").toString(), shownReason);
            for (const char *field : {"queues", "messages_total", "messages_processed", "uptime", "version",
                                      "timestamp", "storage"}) {
                QVERIFY2(r.json().contains(field), field); // gCore's fields, always
            }
        }
    }
    const HttpResponse ready = f.request("GET", "/health/ready");
    QCOMPARE(ready.status, readyCode);
    QCOMPARE(ready.json().value("writable").toBool(), writable);
    QCOMPARE(ready.json().value("reason").toString(), shownReason);
    QCOMPARE(f.request("GET", "/health/live").status, 200); // alive whatever the store does
}

void TestHealthEndpoint::detailNeedsAKey_data()
{
    QTest::addColumn<QByteArray>("key");
    QTest::addColumn<int>("code");
    QTest::addColumn<bool>("detail");

    QTest::addRow("no-key-public") << QByteArray() << 200 << false;
    QTest::addRow("key-without-view_metrics-public") << PublisherKey << 200 << false;
    QTest::addRow("view_metrics-key-detail") << AdminKey << 200 << true;
    QTest::addRow("wrong-key-refused") << QByteArray("not-a-key-of-anyone") << 401 << false;
}

void TestHealthEndpoint::detailNeedsAKey()
{
    QFETCH(QByteArray, key);
    QFETCH(int, code);
    QFETCH(bool, detail);

    HealthFixture f;
    f.store.reportedHealth = HealthStatus::Degraded;
    f.store.reportedStatus.breaker = "open";
    f.store.reportedStatus.connections = 4;
    f.store.reportedStatus.spooledMessages = 12;
    f.store.reportedStatus.lastError = "connect to /run/redis/redis.sock failed";
    const HttpResponse r = f.request("GET", "/health", key);
    QCOMPARE(r.status, code);
    if (code != 200)
        return;
    const QJsonObject storage = storageOf(r);
    QCOMPARE(storage.value("circuit_breaker").toObject().value("state").toString(), QString("open"));
    QCOMPARE(storage.contains("last_error"), detail);
    QCOMPARE(storage.contains("pool"), detail);
    QCOMPARE(storage.contains("spooled_messages"), detail);
    QCOMPARE(r.json().value("components").toObject().value("api").toObject().contains("connections"), detail);
    QVERIFY2(!r.body.contains("/run/redis"), r.body.constData()); // not even with a key
    if (detail)
        QCOMPARE(storage.value("last_error").toString(), QString("connect to [path] failed"));
}

void TestHealthEndpoint::unauthenticatedHealthCountsAtMostOncePerSecond()
{
    HealthFixture f;
    QCOMPARE(f.request("POST", "/queues", AdminKey, R"({"name":"orders"})").status, 200);
    QCOMPARE(f.request("POST", "/messages/orders", AdminKey, R"({"message":1})").status, 200);
    const int before = f.store.listings;
    // The clock stands still: however many ask, the queues are counted once.
    for (int i = 0; i < 40; ++i) {
        const HttpResponse r = f.request("GET", i % 2 ? "/health" : "/health/ready");
        QCOMPARE(r.status, 200);
    }
    QCOMPARE(f.request("GET", "/health").json().value("queues").toInt(), 1);
    QCOMPARE(f.request("GET", "/health").json().value("messages_total").toInt(), 1);
    // The engine's own once-a-second rate sample may list once more while the test runs.
    QVERIFY2(f.store.listings - before <= 2, qPrintable(QString::number(f.store.listings - before)));

    // Within the second the answer may be stale, never older.
    QCOMPARE(f.request("POST", "/queues", AdminKey, R"({"name":"billing"})").status, 200);
    f.clock.advanceMs(1000);
    QCOMPARE(f.request("GET", "/health").json().value("queues").toInt(), 2);

    // A view_metrics key counts afresh every time (and pays for it).
    const int keyed = f.store.listings;
    for (int i = 0; i < 3; ++i)
        QCOMPARE(f.request("GET", "/health", AdminKey).status, 200);
    QVERIFY(f.store.listings - keyed >= 3);
}

void TestHealthEndpoint::failedCountIsNotKeptOnceTheStoreIsBack()
{
    HealthFixture f;
    f.store.failListings = true;
    HttpResponse r = f.request("GET", "/health");
    QCOMPARE(r.status, 503);
    QCOMPARE(r.json().value("status").toString(), QString("unhealthy"));
    QVERIFY(!storageOf(r).contains("last_error")); // not without a key

    // While the store says it is degraded (spooling), the failed count stands for its second.
    f.store.reportedHealth = HealthStatus::Degraded;
    const int listings = f.store.listings;
    for (int i = 0; i < 5; ++i)
        QCOMPARE(f.request("GET", "/health").json().value("status").toString(), QString("degraded"));
    QVERIFY(f.store.listings - listings <= 1);

    // The store is back: the very next answer counts again instead of repeating the failure.
    f.store.failListings = false;
    f.store.reportedHealth = HealthStatus::Healthy;
    r = f.request("GET", "/health");
    QCOMPARE(r.status, 200);
    QCOMPARE(r.json().value("status").toString(), QString("healthy"));
    QCOMPARE(f.request("GET", "/health/ready").status, 200);
}

// error.webhook_url pointing at a port nobody listens on: the notification fails, and /health
// says so in components.notifications without changing the broker's status; only a
// view_metrics key sees where it points.
void TestHealthEndpoint::aFailingNotificationWebhookShows()
{
    HealthFixture f;
    quint16 closedPort = 0;
    {
        QTcpServer probe;
        QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
        closedPort = probe.serverPort();
    }
    WebhookOptions options;
    options.url = QUrl(QStringLiteral("http://127.0.0.1:%1/hook?token=abc").arg(closedPort));
    options.maxAttempts = 1;
    f.errors.setWebhook(options, QStringLiteral("test"));
    HttpResponse r = f.request("GET", "/health");
    QCOMPARE(r.json().value("components").toObject().value("notifications").toObject().value("status").toString(),
             QString("healthy"));

    f.errors.record(Severity::Error, QStringLiteral("storage"), QStringLiteral("redis_down"), QStringLiteral("boom"));
    QTRY_VERIFY(f.errors.webhookStatus()->failed == 1);
    r = f.request("GET", "/health");
    QCOMPARE(r.status, 200);
    QCOMPARE(r.json().value("status").toString(), QString("healthy"));
    QJsonObject notifications = r.json().value("components").toObject().value("notifications").toObject();
    QCOMPARE(notifications.value("status").toString(), QString("degraded"));
    QVERIFY(!notifications.value("last_error").toString().isEmpty());
    QVERIFY(!notifications.contains("target"));
    r = f.request("GET", "/health", AdminKey);
    notifications = r.json().value("components").toObject().value("notifications").toObject();
    QCOMPARE(notifications.value("target").toString(), QStringLiteral("http://127.0.0.1:%1").arg(closedPort));
    QCOMPARE(notifications.value("failed").toInt(), 1);
    QVERIFY2(!r.body.contains("token"), r.body.constData());
}

QTEST_GUILESS_MAIN(TestHealthEndpoint)
#include "tst_healthendpoint.moc"
