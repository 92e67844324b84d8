// SPDX-License-Identifier: GPL-3.0-or-later
// How processors and the notification webhook show on the API: GET /processors (who may, the
// queue filter, every field), components.processors of /health (the status for everyone, the
// details for a view_metrics key), the brokerdesk_processor_* and brokerdesk_notification_webhook_*
// families of /metrics, and the OpenAPI document's entry. The processors are real C++ callables
// on the engine, one that accepts and one that declines, so the statuses are the engine's own.
#include "core/engineoptions.h"
#include "errors/webhooksender.h"
#include "restfixture.h"

#include <QJsonArray>
#include <QTcpServer>
#include <QTest>

using namespace Broker;
using namespace Broker::Testing;

namespace {

struct ProcessorsFixture : RestFixture
{
    // "orders" has a processor that accepts, "audit" one that declines (two deliveries, then the
    // message is dead-lettered); one message went to each and both outcomes are recorded.
    bool startProcessors()
    {
        if (request("POST", "/queues", AdminKey, R"({"name":"orders"})").status != 200
            || request("POST", "/queues", AdminKey,
                       R"({"name":"audit","options":{"max_deliveries":2,"dead_letter_queue":true}})")
                    .status
                != 200)
            return false;
        accepting = broker.registerProcessor(QStringLiteral("orders"), [](const Message &) { return true; });
        declining = broker.registerProcessor(QStringLiteral("audit"), [](const Message &) { return false; });
        for (const char *queue : {"orders", "audit"}) {
            if (request("POST", QByteArray("/messages/") + queue, AdminKey, R"({"message":{"n":1}})").status != 200)
                return false;
        }
        QElapsedTimer timer;
        timer.start();
        while (timer.elapsed() < 10'000) {
            const ProcessorStatusList statuses = broker.processorStatuses();
            if (statuses.size() == 2 && statuses[0].successes == 1 && statuses[1].failures == 2)
                return true;
            QTest::qWait(5);
        }
        return false;
    }

    QJsonArray processors(const QByteArray &path = "/processors")
    {
        return request("GET", path, AdminKey).json().value("processors").toArray();
    }

    int accepting = 0;
    int declining = 0;
};

QJsonObject componentsOf(const HttpResponse &response)
{
    return response.json().value("components").toObject();
}

quint16 closedPort()
{
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost, 0))
        qFatal("cannot listen on loopback");
    return probe.serverPort(); // closed again when `probe` goes
}

} // namespace

class TestProcessorsEndpoint : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void listShowsEveryField();
    void queueFilter_data();
    void queueFilter();
    void access_data();
    void access();
    void healthComponent();
    void noProcessorsNoComponent();
    void metricsPerProcessor();
    void metricLabelsAreEscaped();
    void metricsCountNotifications();
    void openApiDescribesTheList();
};

void TestProcessorsEndpoint::listShowsEveryField()
{
    ProcessorsFixture f;
    QVERIFY(f.startProcessors());
    const HttpResponse r = f.request("GET", "/processors", AdminKey);
    QCOMPARE(r.status, 200);
    QCOMPARE(r.json().value("count").toInt(), 2);
    const QJsonArray list = r.json().value("processors").toArray();
    QCOMPARE(list.size(), 2);

    const QJsonObject accepting = list[0].toObject();
    QCOMPARE(accepting.value("id").toInt(), f.accepting);
    QCOMPARE(accepting.value("queue").toString(), QString("orders"));
    QCOMPARE(accepting.value("kind").toString(), QString("callable"));
    QCOMPARE(accepting.value("target").toString(), QString()); // a callable points nowhere
    QCOMPARE(accepting.value("concurrency").toInt(), EngineOptions{}.processorBatch); // a callable takes a batch per turn
    QCOMPARE(accepting.value("in_flight").toInt(), 0);
    QCOMPARE(accepting.value("running").toBool(), true);
    QCOMPARE(accepting.value("successes").toInt(), 1);
    QCOMPARE(accepting.value("failures").toInt(), 0);
    QVERIFY(accepting.value("last_error").isNull());
    QVERIFY(accepting.value("last_error_at").isNull());
    QVERIFY(accepting.value("last_success_at").isDouble());
    QCOMPARE(accepting.value("failing").toBool(), false);

    const QJsonObject declining = list[1].toObject();
    QCOMPARE(declining.value("id").toInt(), f.declining);
    QCOMPARE(declining.value("queue").toString(), QString("audit"));
    QCOMPARE(declining.value("successes").toInt(), 0);
    QCOMPARE(declining.value("failures").toInt(), 2);
    QCOMPARE(declining.value("last_error").toString(), QString("declined"));
    QVERIFY(declining.value("last_success_at").isNull());
    QCOMPARE(declining.value("failing").toBool(), true);
    // Unix seconds, as `created` and `timestamp` are elsewhere in the API.
    const double now = double(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
    QVERIFY2(qAbs(declining.value("last_error_at").toDouble() - now) < 60,
             qPrintable(QString::number(declining.value("last_error_at").toDouble())));
}

void TestProcessorsEndpoint::queueFilter_data()
{
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<int>("status");
    QTest::addColumn<QStringList>("queues");
    QTest::addColumn<QString>("error");

    QTest::addRow("no-filter-lists-all") << QByteArray("/processors") << 200 << QStringList{"orders", "audit"}
                                         << QString();
    QTest::addRow("one-queue") << QByteArray("/processors?queue=audit") << 200 << QStringList{"audit"} << QString();
    QTest::addRow("queue-without-processors-is-empty")
        << QByteArray("/processors?queue=audit.dlq") << 200 << QStringList{} << QString();
    QTest::addRow("unknown-queue-is-empty")
        << QByteArray("/processors?queue=nowhere") << 200 << QStringList{} << QString();
    QTest::addRow("invalid-name-is-400") << QByteArray("/processors?queue=bad%20name") << 400 << QStringList{}
                                         << QString("Invalid queue name");
    QTest::addRow("empty-name-is-400") << QByteArray("/processors?queue=") << 400 << QStringList{}
                                       << QString("Queue name is required");
}

void TestProcessorsEndpoint::queueFilter()
{
    QFETCH(QByteArray, path);
    QFETCH(int, status);
    QFETCH(QStringList, queues);
    QFETCH(QString, error);

    ProcessorsFixture f;
    QVERIFY(f.startProcessors());
    const HttpResponse r = f.request("GET", path, AdminKey);
    QCOMPARE(r.status, status);
    QCOMPARE(r.error(), error);
    if (status != 200)
        return;
    QStringList shown;
    for (const QJsonValue &processor : r.json().value("processors").toArray())
        shown.append(processor.toObject().value("queue").toString());
    QCOMPARE(shown, queues);
    QCOMPARE(r.json().value("count").toInt(), queues.size());
}

void TestProcessorsEndpoint::access_data()
{
    QTest::addColumn<QByteArray>("key");
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("error");

    QTest::addRow("no-key") << QByteArray() << 401 << QString("Unauthorized - Missing API key");
    QTest::addRow("unknown-key") << QByteArray("nobody-key-0000") << 401 << QString("Unauthorized - Invalid API key");
    QTest::addRow("publisher-lacks-view-metrics") << PublisherKey << 403 << QString("Unauthorized");
    QTest::addRow("consumer-lacks-view-metrics") << ConsumerKey << 403 << QString("Unauthorized");
    QTest::addRow("admin") << AdminKey << 200 << QString();
}

void TestProcessorsEndpoint::access()
{
    QFETCH(QByteArray, key);
    QFETCH(int, status);
    QFETCH(QString, error);

    ProcessorsFixture f;
    QVERIFY(f.startProcessors());
    for (const QByteArray &path : {QByteArray("/processors"), QByteArray("/processors?queue=orders")}) {
        const HttpResponse r = f.request("GET", path, key);
        QCOMPARE(r.status, status);
        QCOMPARE(r.error(), error);
        if (status != 200)
            QVERIFY2(!r.body.contains("orders"), r.body.constData());
    }
}

void TestProcessorsEndpoint::healthComponent()
{
    ProcessorsFixture f;
    QVERIFY(f.startProcessors());

    // Everyone: the status and the counts, never a processor's details.
    HttpResponse r = f.request("GET", "/health");
    QCOMPARE(r.status, 200);
    QCOMPARE(r.json().value("status").toString(), QString("healthy")); // as with a failing notification webhook
    QJsonObject processors = componentsOf(r).value("processors").toObject();
    QCOMPARE(processors.value("status").toString(), QString("degraded"));
    QCOMPARE(processors.value("count").toInt(), 2);
    QCOMPARE(processors.value("failing").toInt(), 1);
    QCOMPARE(processors.value("stopped").toInt(), 0);
    QVERIFY(!processors.contains("processors"));
    QVERIFY2(!r.body.contains("declined"), r.body.constData());

    // view_metrics: each processor as GET /processors shows it.
    r = f.request("GET", "/health", AdminKey);
    processors = componentsOf(r).value("processors").toObject();
    QCOMPARE(processors.value("status").toString(), QString("degraded"));
    const QJsonArray details = processors.value("processors").toArray();
    QCOMPARE(details.size(), 2);
    QCOMPARE(details, f.processors());
    QCOMPARE(details[1].toObject().value("last_error").toString(), QString("declined"));
    // A view_metrics key that is not an admin's would see the same; a publisher sees what everyone does.
    r = f.request("GET", "/api/health", PublisherKey);
    QVERIFY(!componentsOf(r).value("processors").toObject().contains("processors"));

    // The failing one succeeds again: healthy.
    f.broker.unregisterProcessor(f.declining);
    f.declining = f.broker.registerProcessor(QStringLiteral("audit"), [](const Message &) { return true; });
    r = f.request("GET", "/health");
    processors = componentsOf(r).value("processors").toObject();
    QCOMPARE(processors.value("status").toString(), QString("healthy"));
    QCOMPARE(processors.value("failing").toInt(), 0);
}

void TestProcessorsEndpoint::noProcessorsNoComponent()
{
    RestFixture f;
    for (const QByteArray &key : {QByteArray(), AdminKey}) {
        const HttpResponse r = f.request("GET", "/health", key);
        QCOMPARE(r.status, 200);
        QVERIFY(componentsOf(r).contains("storage"));
        QVERIFY(!componentsOf(r).contains("processors"));
    }
    const HttpResponse list = f.request("GET", "/processors", AdminKey);
    QCOMPARE(list.status, 200);
    QCOMPARE(list.json().value("count").toInt(), 0);
    QVERIFY(list.json().value("processors").isArray());
}

void TestProcessorsEndpoint::metricsPerProcessor()
{
    ProcessorsFixture f;
    QVERIFY(f.startProcessors());
    const HttpResponse r = f.request("GET", "/metrics", AdminKey);
    QCOMPARE(r.status, 200);
    const QByteArray orders =
        "{queue=\"orders\",processor=\"" + QByteArray::number(f.accepting) + "\",kind=\"callable\"} ";
    const QByteArray audit =
        "{queue=\"audit\",processor=\"" + QByteArray::number(f.declining) + "\",kind=\"callable\"} ";
    const QList<QByteArray> lines = r.body.split('\n');
    for (const QByteArray &expected :
         {"brokerdesk_processor_successes_total" + orders + "1", "brokerdesk_processor_failures_total" + orders + "0",
          "brokerdesk_processor_successes_total" + audit + "0", "brokerdesk_processor_failures_total" + audit + "2",
          "brokerdesk_processor_in_flight" + orders + "0", "brokerdesk_processor_concurrency" + orders + "16",
          "brokerdesk_processor_running" + audit + "1", "brokerdesk_processor_failing" + orders + "0",
          "brokerdesk_processor_failing" + audit + "1",
          QByteArray("# TYPE brokerdesk_processor_successes_total counter"),
          QByteArray("# TYPE brokerdesk_processor_failures_total counter"),
          QByteArray("# TYPE brokerdesk_processor_in_flight gauge"),
          QByteArray("# TYPE brokerdesk_processor_failing gauge")}) {
        QVERIFY2(lines.contains(expected), expected.constData());
    }
    for (const char *family : {"successes_total", "failures_total", "in_flight", "concurrency", "running", "failing"})
        QVERIFY2(r.body.contains(QByteArray("# HELP brokerdesk_processor_") + family + ' '), family);
    QVERIFY2(!r.body.contains("target"), r.body.constData());
    QVERIFY(!r.body.contains("brokerdesk_notification_webhook")); // none configured
}

void TestProcessorsEndpoint::metricLabelsAreEscaped()
{
    // A C++ caller may register on any name; the exposition must stay parseable whatever it is.
    RestFixture f;
    const int id = f.broker.registerProcessor(QStringLiteral("we\"ird\\na\nme"), [](const Message &) { return true; });
    const HttpResponse r = f.request("GET", "/metrics", AdminKey);
    QCOMPARE(r.status, 200);
    const QByteArray expected = "brokerdesk_processor_running{queue=\"we\\\"ird\\\\na\\nme\",processor=\""
        + QByteArray::number(id) + "\",kind=\"callable\"} 1";
    QVERIFY2(r.body.split('\n').contains(expected), r.body.constData());
}

void TestProcessorsEndpoint::metricsCountNotifications()
{
    RestFixture f;
    const quint16 port = closedPort();
    WebhookOptions options;
    options.url = QUrl(QStringLiteral("http://127.0.0.1:%1/hook?token=abc").arg(port));
    options.maxAttempts = 1;
    f.errors.setWebhook(options, QStringLiteral("test"));
    HttpResponse r = f.request("GET", "/metrics", AdminKey);
    QVERIFY(r.body.split('\n').contains("brokerdesk_notification_webhook_failing 0"));

    f.errors.record(Severity::Error, QStringLiteral("storage"), QStringLiteral("redis_down"), QStringLiteral("boom"));
    QTRY_COMPARE(f.errors.webhookStatus()->failed, 1);
    r = f.request("GET", "/metrics", AdminKey);
    QCOMPARE(r.status, 200);
    const QList<QByteArray> lines = r.body.split('\n');
    for (const QByteArray &expected : {QByteArray("brokerdesk_notification_webhook_queued 0"),
                                       QByteArray("brokerdesk_notification_webhook_delivered_total 0"),
                                       QByteArray("brokerdesk_notification_webhook_failed_total 1"),
                                       QByteArray("brokerdesk_notification_webhook_dropped_total 0"),
                                       QByteArray("brokerdesk_notification_webhook_failing 1"),
                                       QByteArray("# TYPE brokerdesk_notification_webhook_failed_total counter"),
                                       QByteArray("# TYPE brokerdesk_notification_webhook_queued gauge")}) {
        QVERIFY2(lines.contains(expected), expected.constData());
    }
    QVERIFY2(!r.body.contains("token") && !r.body.contains(QByteArray::number(port)), r.body.constData());
    QCOMPARE(f.request("GET", "/metrics", PublisherKey).status, 403);
}

void TestProcessorsEndpoint::openApiDescribesTheList()
{
    RestFixture f;
    const QJsonObject document = f.request("GET", "/openapi.json").json();
    const QJsonObject get = document.value("paths").toObject().value("/processors").toObject().value("get").toObject();
    QVERIFY(!get.isEmpty());
    QCOMPARE(get.value("description").toString(), QString("Permission: `view_metrics`"));
    QCOMPARE(get.value("parameters").toArray().first().toObject().value("name").toString(), QString("queue"));
    const QJsonObject responses = get.value("responses").toObject();
    for (const char *status : {"200", "400", "401", "403"})
        QVERIFY2(responses.contains(status), status);
    QCOMPARE(responses.value("200")
                 .toObject()
                 .value("content")
                 .toObject()
                 .value("application/json")
                 .toObject()
                 .value("schema")
                 .toObject()
                 .value("$ref")
                 .toString(),
             QString("#/components/schemas/ProcessorList"));
    const QJsonObject schemas = document.value("components").toObject().value("schemas").toObject();
    QVERIFY(schemas.contains("ProcessorList"));
    // The schema names every field the endpoint writes.
    const QJsonObject properties = schemas.value("Processor").toObject().value("properties").toObject();
    ProcessorsFixture live;
    QVERIFY(live.startProcessors());
    const QJsonObject written = live.processors().first().toObject();
    QCOMPARE(properties.keys(), written.keys());
}

QTEST_GUILESS_MAIN(TestProcessorsEndpoint)
#include "tst_processorsendpoint.moc"
