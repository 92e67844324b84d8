// SPDX-License-Identifier: GPL-3.0-or-later
// The webhook processor against a local HTTP target that answers 200, 500, hangs or closes: acks,
// nacks with backoff, dead-letters after max_deliveries; the body is the message object a consumer
// gets; configured headers and the HMAC signature arrive; concurrency is respected; the status
// never shows the URL's path, query or credentials.
#include "engine/webhookprocessor.h"

#include "core/messagejson.h"
#include "errors/webhooksigning.h"

#include "../support/httptarget.h"
#include "processorfixture.h"

#include <QJsonArray>
#include <QTest>

using namespace Broker;
using namespace Broker::Testing;

class TestWebhookProcessor : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void answers_data();
    void answers();
    void bodyHeadersAndSignature();
    void concurrencyIsRespected();
    void targetShowsNoSecrets();
};

namespace {

int addWebhook(EngineFixture &f, const QUrl &url, int concurrency = 1, int timeoutMs = 5000,
               const QByteArray &secret = {}, const QList<std::pair<QByteArray, QByteArray>> &headers = {})
{
    WebhookProcessorOptions options;
    options.url = url;
    options.timeoutMs = timeoutMs;
    options.secret = secret;
    options.headers = headers;
    return f.broker.registerProcessor(QStringLiteral("q"), std::make_unique<WebhookProcessor>(options), concurrency,
                                      QStringLiteral("hook"));
}

} // namespace

void TestWebhookProcessor::answers_data()
{
    QTest::addColumn<QStringList>("script");
    QTest::addColumn<int>("acked");
    QTest::addColumn<int>("deadLettered");
    QTest::addColumn<int>("failures");
    QTest::addColumn<QString>("lastError");
    QTest::addRow("2xx-acknowledges") << QStringList{QStringLiteral("204")} << 1 << 0 << 0 << QString();
    QTest::addRow("500-nacks-then-dead-letters") << QStringList{QStringLiteral("500")} << 0 << 1 << 3
                                                << QStringLiteral("HTTP 500");
    QTest::addRow("redirect-is-not-followed") << QStringList{QStringLiteral("302")} << 0 << 1 << 3
                                             << QStringLiteral("HTTP 302");
    QTest::addRow("hang-times-out-then-dead-letters") << QStringList{QStringLiteral("hang")} << 0 << 1 << 3
                                                     << QStringLiteral("timed out after 300 ms");
    QTest::addRow("closed-connection-nacks") << QStringList{QStringLiteral("close")} << 0 << 1 << 3
                                            << QStringLiteral("connection closed before an answer");
    QTest::addRow("500-then-200-redelivers") << QStringList{QStringLiteral("500"), QStringLiteral("200")} << 1 << 0 << 1
                                            << QStringLiteral("HTTP 500");
}

void TestWebhookProcessor::answers()
{
    QFETCH(QStringList, script);
    QFETCH(int, acked);
    QFETCH(int, deadLettered);
    QFETCH(int, failures);
    QFETCH(QString, lastError);
    HttpTarget target(script);
    EngineFixture f(processorTestOptions());
    QVERIFY(f.create(QStringLiteral("q"), jsonObject(R"({"max_deliveries":3,"dead_letter_queue":true})")).ok());
    addWebhook(f, target.url(), 1, 300);
    QVERIFY(f.publish(QStringLiteral("q"), {QByteArray(R"({"order":1})")}).ok());
    QVERIFY(runUntil(f, [&] {
        const QueueInfo info = *f.info(QStringLiteral("q"));
        return info.size() == 0 && onlyStatus(f).inFlight == 0;
    }));
    const QueueInfo info = *f.info(QStringLiteral("q"));
    QCOMPARE(info.counters.acked, acked);
    QCOMPARE(f.info(QStringLiteral("q.dlq"))->depth, deadLettered);
    const ProcessorStatus status = onlyStatus(f);
    QCOMPARE(status.successes, acked);
    QCOMPARE(status.failures, failures);
    QCOMPARE(status.lastError, lastError);
    QCOMPARE(status.failing, acked == 0);
    // Each delivery reached the target once, with its delivery count (a closed connection may be
    // retried by Qt itself, so only "at least").
    QVERIFY(target.requests().size() >= acked + failures);
    if (script.first() != u"close") {
        QCOMPARE(target.requests().size(), acked + failures);
        for (qsizetype i = 0; i < target.requests().size(); ++i)
            QCOMPARE(target.requests()[i].header("X-BrokerDesk-Delivery-Count"), QByteArray::number(i + 1));
    }
}

void TestWebhookProcessor::bodyHeadersAndSignature()
{
    HttpTarget target({QStringLiteral("200")});
    EngineFixture f(processorTestOptions());
    QVERIFY(f.create(QStringLiteral("q")).ok());
    addWebhook(f, target.url(), 1, 5000, "s3cret", {{"Authorization", "Bearer abc"}, {"X-Tenant", "acme"}});
    NewMessage message;
    message.data = R"({"order":7,"items":["a","b"]})";
    message.headers = jsonObject(R"({"trace":"t-1"})");
    message.priority = 3;
    Captured<PublishResult> published;
    f.broker.publish(QStringLiteral("q"), {message}, QStringLiteral("alice"), published.sink());
    const QString id = published.take()->messageIds().value(0);
    QTRY_COMPARE(f.info(QStringLiteral("q"))->counters.acked, 1);

    QCOMPARE(target.requests().size(), 1);
    const HttpTarget::Request &request = target.requests().first();
    QVERIFY(request.head.startsWith("POST /hook?token=t0ps3cret HTTP/1.1"));
    QCOMPARE(request.header("Content-Type"), QByteArray("application/json"));
    QCOMPARE(request.header("Authorization"), QByteArray("Bearer abc"));
    QCOMPARE(request.header("X-Tenant"), QByteArray("acme"));
    QCOMPARE(request.header("X-BrokerDesk-Queue"), QByteArray("q"));
    QCOMPARE(request.header("X-BrokerDesk-Message-Id"), id.toUtf8());
    QCOMPARE(request.header(WebhookSignatureHeader), webhookSignature("s3cret", request.body));

    // The message object a consumer of GET /messages/q gets: its data unparsed, a lease receipt.
    const QJsonObject body = QJsonDocument::fromJson(request.body).object();
    QCOMPARE(body.value(u"id").toString(), id);
    QCOMPARE(body.value(u"data").toObject().value(u"order").toInt(), 7);
    QCOMPARE(body.value(u"data").toObject().value(u"items").toArray().size(), 2);
    QCOMPARE(body.value(u"publisher").toString(), QStringLiteral("alice"));
    QCOMPARE(body.value(u"delivery_count").toInt(), 1);
    QCOMPARE(body.value(u"priority").toInt(), 3);
    QCOMPARE(body.value(u"headers").toObject().value(u"trace").toString(), QStringLiteral("t-1"));
    QVERIFY(!body.value(u"receipt").toString().isEmpty());
    QVERIFY(body.value(u"visible_at").toDouble() > body.value(u"timestamp").toDouble());
    QVERIFY(body.value(u"timestamp").toDouble() > 0);
    // Byte for byte what the shared serializer writes (the REST layer's writeMessage uses it).
    Message parsed;
    parsed.id = id;
    parsed.data = message.data;
    parsed.headers = message.headers;
    parsed.publisher = QStringLiteral("alice");
    parsed.timestamp = body.value(u"timestamp").toDouble();
    parsed.priority = 3;
    parsed.deliveryCount = 1;
    parsed.receipt = body.value(u"receipt").toString();
    parsed.leaseDeadlineMs = qint64(body.value(u"visible_at").toDouble() * 1000.0 + 0.5);
    QCOMPARE(messageJson(parsed), request.body);
}

void TestWebhookProcessor::concurrencyIsRespected()
{
    HttpTarget target({QStringLiteral("slow")}, 150);
    EngineFixture f(processorTestOptions());
    QVERIFY(f.create(QStringLiteral("q")).ok());
    addWebhook(f, target.url(), 3);
    QVERIFY(f.publish(QStringLiteral("q"), numbers(1, 9)).ok());
    int mostInFlight = 0;
    QVERIFY(runUntil(f, [&] {
        mostInFlight = qMax(mostInFlight, onlyStatus(f).inFlight);
        return f.info(QStringLiteral("q"))->counters.acked == 9;
    }, 0));
    QCOMPARE(target.requests().size(), 9);
    QCOMPARE(target.mostAtOnce(), 3);
    QCOMPARE(mostInFlight, 3);
    QCOMPARE(onlyStatus(f).successes, 9);
}

void TestWebhookProcessor::targetShowsNoSecrets()
{
    WebhookProcessorOptions options;
    options.url = QUrl(QStringLiteral("https://user:pass@hooks.example.com:8443/p/a/t/h?token=abc#frag"));
    options.secret = "s3cret";
    options.headers = {{"Authorization", "Bearer abc"}};
    const WebhookProcessor processor(options);
    QCOMPARE(processor.target(), QStringLiteral("https://hooks.example.com:8443"));
    QCOMPARE(processor.kind(), QStringLiteral("webhook"));
    QCOMPARE(processor.leaseMs(), qint64(options.timeoutMs) + 5000);
}

QTEST_GUILESS_MAIN(TestWebhookProcessor)
#include "tst_webhookprocessor.moc"
