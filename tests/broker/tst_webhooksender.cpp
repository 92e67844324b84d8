// SPDX-License-Identifier: GPL-3.0-or-later
// The notification webhook (error.webhook_url) against a local HTTP target that answers 200, 500,
// hangs or closes: order, HMAC signature, retries with backoff, giving up, timeouts, the bounded
// queue, and a status that never shows the URL's secrets.
#include "errors/webhooksender.h"

#include "../support/httptarget.h"

#include <QTest>

#include <memory>

using namespace Broker;

namespace {

using Target = Broker::Testing::HttpTarget;

WebhookOptions fast(const QUrl &url)
{
    WebhookOptions options;
    options.url = url;
    options.timeoutMs = 2000;
    options.firstRetryMs = 20;
    options.maxRetryMs = 80;
    return options;
}

} // namespace

class TestWebhookSender : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void signatureIsHmacSha256();
    void deliversInOrderAndSigned();
    void retriesWithBackoffUntilDelivered();
    void givesUpAfterTheLastAttempt();
    void aTargetThatHangsTimesOut();
    void aFullQueueDropsAndCounts();
    void statusNeverShowsTheUrlsSecrets();
};

void TestWebhookSender::signatureIsHmacSha256()
{
    // RFC 4231, test case 2.
    QCOMPARE(WebhookSender::signature("Jefe", "what do ya want for nothing?"),
             QByteArray("sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"));
}

void TestWebhookSender::deliversInOrderAndSigned()
{
    Target target({"200"});
    WebhookOptions options = fast(target.url(QStringLiteral("/hook")));
    options.secret = "s3cret";
    const SystemClock clock;
    WebhookSender sender(options, clock);
    for (int i = 0; i < 3; ++i)
        QVERIFY(sender.post(QByteArray("{\"n\":") + QByteArray::number(i) + '}'));
    QTRY_COMPARE(sender.status().delivered, 3);
    QCOMPARE(target.requests().size(), 3);
    for (int i = 0; i < 3; ++i) {
        const Target::Request &request = target.requests()[i];
        QCOMPARE(request.body, QByteArray("{\"n\":") + QByteArray::number(i) + '}');
        QVERIFY(request.head.startsWith("POST /hook HTTP/1.1"));
        QCOMPARE(request.header("Content-Type"), QByteArray("application/json"));
        QCOMPARE(request.header("X-BrokerDesk-Signature"), WebhookSender::signature("s3cret", request.body));
    }
    QCOMPARE(sender.status().queued, 0);
    QVERIFY(!sender.status().failing);
}

void TestWebhookSender::retriesWithBackoffUntilDelivered()
{
    Target target({"500", "close", "200"});
    const SystemClock clock;
    WebhookSender sender(fast(target.url(QStringLiteral("/hook"))), clock);
    QVERIFY(sender.post("{\"n\":1}"));
    QTRY_COMPARE(sender.status().delivered, 1);
    QCOMPARE(target.requests().size(), 3);
    for (const Target::Request &request : target.requests())
        QCOMPARE(request.body, QByteArray("{\"n\":1}"));
    const WebhookStatus status = sender.status();
    QCOMPARE(status.failed, 0);
    QVERIFY(!status.failing);
    QVERIFY(status.lastErrorAtMs > 0); // the close, before the success
}

void TestWebhookSender::givesUpAfterTheLastAttempt()
{
    Target target({"500"});
    WebhookOptions options = fast(target.url(QStringLiteral("/hook")));
    options.maxAttempts = 2;
    const SystemClock clock;
    WebhookSender sender(options, clock);
    QVERIFY(sender.post("{\"n\":1}"));
    QVERIFY(sender.post("{\"n\":2}"));
    QTRY_COMPARE(sender.status().failed, 2);
    QCOMPARE(target.requests().size(), 4);
    QCOMPARE(target.requests()[2].body, QByteArray("{\"n\":2}")); // the next one after giving up
    const WebhookStatus status = sender.status();
    QVERIFY(status.failing);
    QCOMPARE(status.lastError, "HTTP 500");
    QCOMPARE(status.delivered, 0);
    QCOMPARE(status.queued, 0);
}

void TestWebhookSender::aTargetThatHangsTimesOut()
{
    Target target({"hang"});
    WebhookOptions options = fast(target.url(QStringLiteral("/hook")));
    options.timeoutMs = 200;
    options.maxAttempts = 1;
    const SystemClock clock;
    WebhookSender sender(options, clock);
    QVERIFY(sender.post("{}"));
    QTRY_COMPARE(sender.status().failed, 1);
    QCOMPARE(sender.status().lastError, "timed out after 200 ms");
}

void TestWebhookSender::aFullQueueDropsAndCounts()
{
    Target target({"hang"});
    WebhookOptions options = fast(target.url(QStringLiteral("/hook")));
    options.maxQueued = 2; // the one being sent counts
    const SystemClock clock;
    WebhookSender sender(options, clock);
    QVERIFY(sender.post("{\"n\":1}"));
    QVERIFY(sender.post("{\"n\":2}"));
    QVERIFY(!sender.post("{\"n\":3}"));
    QVERIFY(!sender.post("{\"n\":4}"));
    const WebhookStatus status = sender.status();
    QCOMPARE(status.dropped, 2);
    QCOMPARE(status.queued, 2);
}

void TestWebhookSender::statusNeverShowsTheUrlsSecrets()
{
    const SystemClock clock;
    WebhookOptions options;
    options.url = QUrl(QStringLiteral("https://user:pw@hooks.example:8443/T0/B1/XyZsecret?token=abc"));
    WebhookSender sender(options, clock);
    QCOMPARE(sender.status().target, "https://hooks.example:8443");
}

QTEST_GUILESS_MAIN(TestWebhookSender)
#include "tst_webhooksender.moc"
