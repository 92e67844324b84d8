// SPDX-License-Identifier: GPL-3.0-or-later
// What the guarded TCP server protects QHttpServer from: oversized and endless input, floods,
// slow and idle clients, pipelining, clients that leave, and what well-behaved clients expect
// (100-continue, HEAD, Connection: close, request ids, CORS).
#include "restfixture.h"

#include <QTest>

using namespace Broker;
using namespace Broker::Testing;

namespace {

QByteArray post(const QByteArray &path, const QByteArray &key, const QByteArray &body, const QByteArray &extra = {})
{
    return "POST " + path + " HTTP/1.1\r\nHost: t\r\nX-API-Key: " + key + "\r\nContent-Length: "
        + QByteArray::number(body.size()) + "\r\n" + extra + "\r\n" + body;
}

QByteArray get(const QByteArray &path, const QByteArray &key = {}, const QByteArray &extra = {})
{
    return "GET " + path + " HTTP/1.1\r\nHost: t\r\n" + (key.isEmpty() ? QByteArray() : "X-API-Key: " + key + "\r\n")
        + extra + "\r\n";
}

Rest::RestOptions shortTimeouts()
{
    Rest::RestOptions options;
    options.guard.idleTimeoutMs = 300;
    options.guard.requestTimeoutMs = 300;
    return options;
}

} // namespace

class TestHttpGuard : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // The HTTP layer beneath the routes: its answers (framing, limits, timeouts) come before any
    // route, so they are not the OpenAPI document's operations.
    void initTestCase() { RestFixture::checksContractByDefault = false; }

    void oversizedContentLengthIsRefusedAtOnce();
    void oversizedChunkedBodyIsRefused();
    void headerLimits_data();
    void headerLimits();
    void slowClientTimesOut();
    void idleConnectionIsClosed();
    void connectionCap();
    void pipelinedRequestsAreAnsweredInOrder();
    void expectContinue();
    void headIsServedForGet();
    void connectionCloseAndHttp10();
    void requestIds();
    void cors();
    void deepJsonAndInvalidUtf8();
    void badQueueNames_data();
    void badQueueNames();
    void clientLeavingDuringLongPollLosesNothing();
    void longPollIsWokenByAnotherClient();
    void rateLimits();
    void failedAuthenticationIsThrottled_data();
    void failedAuthenticationIsThrottled();
    void failedAuthenticationsAreLoggedAsSummaries();
    void aKeyRememberedByItsConnectionFollowsTheDirectory();
    void aChunkedPublishArrivesDecoded();
    void keyInTheQueryIsRefusedInAnySpelling_data();
    void keyInTheQueryIsRefusedInAnySpelling();
    void drainFinishesRequestsInProgress();
};

void TestHttpGuard::oversizedContentLengthIsRefusedAtOnce()
{
    RestFixture f;
    RawClient client(f.port);
    client.send("POST /messages/q HTTP/1.1\r\nHost: t\r\nX-API-Key: " + AdminKey
                + "\r\nContent-Length: 524288000\r\n\r\n" + QByteArray(64 * 1024, 'x'));
    const HttpResponse r = client.receive();
    QCOMPARE(r.status, 413);
    QCOMPARE(r.error(), QString("Request body too large"));
    QCOMPARE(r.header("Connection"), QByteArray("close"));
    QVERIFY(client.closedWithin(2000));
}

void TestHttpGuard::oversizedChunkedBodyIsRefused()
{
    RestFixture f;
    RawClient client(f.port);
    client.send("POST /messages/q HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n");
    const QByteArray chunk = "10000\r\n" + QByteArray(0x10000, 'x') + "\r\n"; // 64 KiB each
    for (int i = 0; i < 17 && client.socket().state() == QAbstractSocket::ConnectedState; ++i)
        client.send(chunk);
    const HttpResponse r = client.receive();
    QCOMPARE(r.status, 413);
    QVERIFY(client.closedWithin(2000));
}

void TestHttpGuard::headerLimits_data()
{
    QTest::addColumn<QByteArray>("request");
    QTest::addColumn<int>("status");
    QByteArray fields;
    for (int i = 0; i < 99; ++i) // + Host = 100
        fields += "X-F" + QByteArray::number(i) + ": v\r\n";
    QTest::addRow("100-fields") << QByteArray("GET /health/live HTTP/1.1\r\nHost: t\r\n" + fields + "\r\n") << 200;
    QTest::addRow("101-fields") << QByteArray("GET /health/live HTTP/1.1\r\nHost: t\r\n" + fields + "X-Last: v\r\n\r\n") << 431;
    QTest::addRow("17-KiB-header") << QByteArray("GET /health/live HTTP/1.1\r\nX-Big: " + QByteArray(17 * 1024, 'a') + "\r\n\r\n")
                                   << 431;
    QTest::addRow("endless-header") << QByteArray("GET /health/live HTTP/1.1\r\nX-Big: " + QByteArray(64 * 1024, 'a')) << 431;
    QTest::addRow("bad-version") << QByteArray("GET /health/live HTTP/3.0\r\n\r\n") << 505;
    QTest::addRow("smuggling") << QByteArray("POST /queues HTTP/1.1\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
                               << 400;
}

void TestHttpGuard::headerLimits()
{
    QFETCH(QByteArray, request);
    QFETCH(int, status);
    RestFixture f;
    RawClient client(f.port);
    client.send(request);
    QCOMPARE(client.receive().status, status);
}

void TestHttpGuard::slowClientTimesOut()
{
    RestFixture f(shortTimeouts());
    RawClient client(f.port);
    client.send("GET /health/live HTTP/1.1\r\nHost: t\r\n"); // and never the blank line
    QElapsedTimer timer;
    timer.start();
    const HttpResponse r = client.receive(3000);
    QCOMPARE(r.status, 408);
    QVERIFY(timer.elapsed() < 2000);
    QVERIFY(client.closedWithin(1000));
}

void TestHttpGuard::idleConnectionIsClosed()
{
    RestFixture f(shortTimeouts());
    RawClient client(f.port);
    client.send(get("/health/live"));
    QCOMPARE(client.receive().status, 200);
    QVERIFY(client.closedWithin(2000));
}

void TestHttpGuard::connectionCap()
{
    Rest::RestOptions options;
    options.guard.maxConnections = 2;
    RestFixture f(options);
    RawClient one(f.port);
    RawClient two(f.port);
    one.send(get("/health/live"));
    two.send(get("/health/live"));
    QCOMPARE(one.receive().status, 200);
    QCOMPARE(two.receive().status, 200);
    RawClient three(f.port);
    const HttpResponse refused = three.receive();
    QCOMPARE(refused.status, 503);
    QCOMPARE(refused.header("Retry-After"), QByteArray("1"));
    QCOMPARE(f.server->connectionCount(), 2);
    QCOMPARE(f.server->refusedConnections(), 1);
}

void TestHttpGuard::pipelinedRequestsAreAnsweredInOrder()
{
    RestFixture f;
    QCOMPARE(f.request("POST", "/queues", AdminKey, R"({"name":"q"})").status, 200);
    RawClient client(f.port);
    // A long poll that has to wait, then two quick requests behind it on the same connection.
    client.send(get("/messages/q?wait=1", AdminKey) + post("/messages/other", AdminKey, R"({"message":1})")
                + get("/health/live"));
    QCOMPARE(client.receive().status, 204);
    QCOMPARE(client.receive().status, 404);
    QCOMPARE(client.receive().status, 200);
}

void TestHttpGuard::expectContinue()
{
    RestFixture f;
    QCOMPARE(f.request("POST", "/queues", AdminKey, R"({"name":"q"})").status, 200);
    RawClient client(f.port);
    const QByteArray body = R"({"message":"after continue"})";
    client.send("POST /messages/q HTTP/1.1\r\nHost: t\r\nX-API-Key: " + AdminKey + "\r\nExpect: 100-continue\r\nContent-Length: "
                + QByteArray::number(body.size()) + "\r\n\r\n");
    QCOMPARE(client.receive().status, 100);
    client.send(body);
    QCOMPARE(client.receive().status, 200);
}

void TestHttpGuard::headIsServedForGet()
{
    RestFixture f;
    RawClient client(f.port);
    client.send("HEAD /health HTTP/1.1\r\nHost: t\r\n\r\n" + get("/health/live"));
    const HttpResponse head = client.receive(5000, true);
    QCOMPARE(head.status, 200);
    QVERIFY(head.header("Content-Length").toInt() > 0);
    QVERIFY(head.body.isEmpty());
    QCOMPARE(client.receive().json().value("status").toString(), QString("alive")); // the stream stayed in step
}

void TestHttpGuard::connectionCloseAndHttp10()
{
    RestFixture f;
    for (const QByteArray &request : {QByteArray("GET /health/live HTTP/1.0\r\n\r\n"),
                                      QByteArray("GET /health/live HTTP/1.1\r\nConnection: close\r\n\r\n")}) {
        RawClient client(f.port);
        client.send(request);
        const HttpResponse r = client.receive();
        QCOMPARE(r.status, 200);
        QCOMPARE(r.header("Connection"), QByteArray("close"));
        QVERIFY(client.closedWithin(1000));
    }
    RawClient keepAlive(f.port);
    keepAlive.send("GET /health/live HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
    QCOMPARE(keepAlive.receive().status, 200);
    QVERIFY(!keepAlive.closedWithin(200));
}

void TestHttpGuard::requestIds()
{
    RestFixture f;
    QCOMPARE(f.request("GET", "/health/live", {}, {}, {{"X-Request-ID", "trace-42.a:b_c"}}).header("X-Request-ID"),
             QByteArray("trace-42.a:b_c"));
    const QByteArray replaced = f.request("GET", "/health/live", {}, {}, {{"X-Request-ID", "bad id<script>"}}).header("X-Request-ID");
    QCOMPARE(replaced.size(), 16);
    const HttpResponse missing = f.request("GET", "/no/such/thing");
    QCOMPARE(missing.status, 404);
    QCOMPARE(missing.json().value("request_id").toString().toLatin1(), missing.header("X-Request-ID"));
}

void TestHttpGuard::cors()
{
    Rest::RestOptions options;
    options.corsOrigins = {"https://admin.example"};
    RestFixture f(options);
    const HttpResponse allowed = f.request("GET", "/health", {}, {}, {{"Origin", "https://admin.example"}});
    QCOMPARE(allowed.header("Access-Control-Allow-Origin"), QByteArray("https://admin.example"));
    const HttpResponse other = f.request("GET", "/health", {}, {}, {{"Origin", "https://evil.example"}});
    QCOMPARE(other.status, 200);
    QVERIFY(other.header("Access-Control-Allow-Origin").isEmpty());
    const HttpResponse preflight = f.request("OPTIONS", "/queues", {}, {},
                                             {{"Origin", "https://admin.example"}, {"Access-Control-Request-Method", "POST"}});
    QCOMPARE(preflight.status, 204);
    QVERIFY(preflight.header("Access-Control-Allow-Headers").contains("X-API-Key"));
    QCOMPARE(f.request("OPTIONS", "/queues", {}, {}, {{"Origin", "https://evil.example"}}).status, 403);
}

void TestHttpGuard::deepJsonAndInvalidUtf8()
{
    RestFixture f;
    QCOMPARE(f.request("POST", "/queues", AdminKey, R"({"name":"q"})").status, 200);
    const QByteArray deep = "{\"message\":" + QByteArray(100, '[') + QByteArray(100, ']') + "}";
    const HttpResponse tooDeep = f.request("POST", "/messages/q", AdminKey, deep);
    QCOMPARE(tooDeep.status, 400);
    QCOMPARE(tooDeep.error(), QString("JSON nested too deeply (at most 64 levels)"));
    const HttpResponse badUtf8 = f.request("POST", "/messages/q", AdminKey, "{\"message\":\"\xff\xfe\"}");
    QCOMPARE(badUtf8.status, 400);
    QCOMPARE(badUtf8.error(), QString("Invalid JSON"));
    QCOMPARE(f.request("GET", "/queues/q", AdminKey).json().value("message_count").toInt(), 0);
}

void TestHttpGuard::badQueueNames_data()
{
    QTest::addColumn<QByteArray>("path");
    QTest::addRow("encoded-slash") << QByteArray("/queues/a%2Fb");
    QTest::addRow("space") << QByteArray("/queues/a%20b");
    QTest::addRow("leading-dot") << QByteArray("/queues/.hidden");
    QTest::addRow("unicode") << QByteArray("/queues/z%C3%BCrich");
    QTest::addRow("too-long") << QByteArray("/queues/" + QByteArray(129, 'a'));
    QTest::addRow("brace") << QByteArray("/queues/%7Bq%7D");
}

void TestHttpGuard::badQueueNames()
{
    QFETCH(QByteArray, path);
    RestFixture f;
    const HttpResponse r = f.request("GET", path, AdminKey);
    QCOMPARE(r.status, 400);
    QCOMPARE(r.error(), QString("Invalid queue name"));
}

void TestHttpGuard::clientLeavingDuringLongPollLosesNothing()
{
    RestFixture f;
    QCOMPARE(f.request("POST", "/queues", AdminKey, R"({"name":"q"})").status, 200);
    {
        RawClient client(f.port);
        client.send(get("/messages/q?wait=5", AdminKey));
        QTest::qWait(100);
        client.socket().abort();
    }
    QTest::qWait(100);
    QCOMPARE(f.request("POST", "/messages/q", AdminKey, R"({"message":"keep me"})").status, 200);
    QTest::qWait(100);
    QCOMPARE(f.request("GET", "/queues/q", AdminKey).json().value("message_count").toInt(), 1);
    const HttpResponse r = f.request("GET", "/messages/q", AdminKey);
    QCOMPARE(r.json().value("message").toObject().value("data").toString(), QString("keep me"));
}

void TestHttpGuard::longPollIsWokenByAnotherClient()
{
    RestFixture f;
    QCOMPARE(f.request("POST", "/queues", AdminKey, R"({"name":"q"})").status, 200);
    RawClient waiter(f.port);
    QElapsedTimer timer;
    timer.start();
    waiter.send(get("/messages/q?wait=10", ConsumerKey));
    QTest::qWait(100);
    RawClient publisher(f.port);
    publisher.send(post("/messages/q", PublisherKey, R"({"message":"ping"})"));
    QCOMPARE(publisher.receive().status, 200);
    const HttpResponse woken = waiter.receive();
    QCOMPARE(woken.status, 200);
    QVERIFY(timer.elapsed() < 2000);
    QCOMPARE(woken.json().value("message").toObject().value("data").toString(), QString("ping"));
}

void TestHttpGuard::rateLimits()
{
    Rest::RestOptions options;
    options.rateLimitEnabled = true;
    options.requestsPerMinute = 60;
    options.burst = 3;
    RestFixture f(options);
    for (int i = 0; i < 3; ++i)
        QCOMPARE(f.request("GET", "/queues", AdminKey).status, 200);
    const HttpResponse limited = f.request("GET", "/queues", AdminKey);
    QCOMPARE(limited.status, 429);
    QCOMPARE(limited.header("Retry-After"), QByteArray("1"));
    QCOMPARE(f.request("GET", "/queues", ConsumerKey).status, 200); // per key
}

void TestHttpGuard::failedAuthenticationIsThrottled_data()
{
    // What a request gets while its address is throttled, by the key it presents.
    QTest::addColumn<QByteArray>("key"); // "strong": a valid generated key
    QTest::addColumn<int>("status");
    QTest::addRow("valid-strong-key-passes") << QByteArray("strong") << 200;
    QTest::addRow("valid-short-key-is-not-checked") << AdminKey << 429;
    QTest::addRow("invalid-strong-key") << QByteArray("bd_" + QByteArray(43, 'x')) << 429;
    QTest::addRow("invalid-short-key") << QByteArray("guess-7") << 429;
    QTest::addRow("missing-key") << QByteArray() << 401;
}

void TestHttpGuard::failedAuthenticationIsThrottled()
{
    QFETCH(QByteArray, key);
    QFETCH(int, status);
    Rest::RestOptions options;
    options.authFailuresPerMinute = 5; // one more attempt every 12 s once the five are used
    RestFixture f(options);
    const Result<IssuedKey> strong = f.users.addUser("ops", "Ops", {"admin"});
    QVERIFY(strong.ok());
    QVERIFY(strong->apiKey.size() >= Rest::AuthThrottle::StrongKeyLength);
    for (int i = 0; i < 5; ++i)
        QCOMPARE(f.request("GET", "/queues", "guess-" + QByteArray::number(i)).status, 401);
    const HttpResponse throttled = f.request("GET", "/queues", "guess-6");
    QCOMPARE(throttled.status, 429);
    QCOMPARE(throttled.header("Retry-After"), QByteArray("12"));

    const HttpResponse r = f.request("GET", "/queues", key == "strong" ? strong->apiKey.toUtf8() : key);
    QCOMPARE(r.status, status);
    if (status == 429) {
        const int retryAfter = r.header("Retry-After").toInt();
        QVERIFY(retryAfter >= 11 && retryAfter <= 12);
    }
    // A valid key does not lift the throttle for the others, and refusals while throttled do not
    // prolong it: still one attempt in about 12 s.
    QCOMPARE(f.request("GET", "/queues", "guess-8").status, 429);
}

void TestHttpGuard::failedAuthenticationsAreLoggedAsSummaries()
{
    Rest::RestOptions options;
    options.authFailuresPerMinute = 30;
    options.authLogIntervalMs = 1500; // far longer than the 200 attempts take
    RestFixture f(options);
    RawClient client(f.port);
    constexpr int Attempts = 200;
    for (int i = 0; i < Attempts; ++i)
        client.send(get("/queues", "guess-" + QByteArray::number(i)));
    int failed = 0;
    int throttled = 0;
    for (int i = 0; i < Attempts; ++i) {
        const int status = client.receive().status;
        failed += status == 401;
        throttled += status == 429;
    }
    QCOMPARE(failed, 30);
    QCOMPARE(throttled, Attempts - 30);
    // The first failure at once, everything after it in one summary at the interval's end.
    QCOMPARE(f.errors.total(Severity::Warning), 1);
    QTRY_COMPARE_WITH_TIMEOUT(f.errors.total(Severity::Warning), 2, 5000);
    QTest::qWait(1700); // a quiet interval adds nothing
    QCOMPARE(f.errors.total(Severity::Warning), 2);
    const QList<ErrorRecord> recorded = f.errors.recent();
    QCOMPARE(recorded.last().message, QString("Invalid API key from 127.0.0.1"));
    QCOMPARE(recorded.first().code, QString("auth_throttled"));
    QVERIFY2(recorded.first().message.contains("29 invalid API keys, 170 attempts throttled, from 1 address(es); "
                                               "most from 127.0.0.1 (199)"),
             qPrintable(recorded.first().message));
    for (const ErrorRecord &record : recorded)
        QVERIFY(!record.message.contains("guess"));
    // After the quiet interval, the next one is recorded at once again (401 or 429: by now the
    // allowance has refilled by a token or so).
    const int again = f.request("GET", "/queues", "guess-again").status;
    QVERIFY(again == 401 || again == 429);
    QCOMPARE(f.errors.total(Severity::Warning), 3);
}

void TestHttpGuard::aKeyRememberedByItsConnectionFollowsTheDirectory()
{
    // A connection remembers the key that last authenticated on it, so the requests that follow
    // skip hashing it; every change of the directory (disable, enable, rotate) is seen by the
    // very next request on that connection, and another key is checked as a key of its own.
    RestFixture f;
    const Result<IssuedKey> ops = f.users.addUser("ops", "Ops", {"admin"});
    QVERIFY(ops.ok());
    const QByteArray key = ops->apiKey.toUtf8();
    RawClient client(f.port);
    auto status = [&client](const QByteArray &withKey) {
        client.send(get("/queues", withKey));
        return client.receive().status;
    };
    QCOMPARE(status(key), 200);
    QCOMPARE(status(key), 200);
    QCOMPARE(status(key + "x"), 401);        // not a prefix match
    QCOMPARE(status(key.chopped(1)), 401);
    QCOMPARE(status(key), 200);
    QVERIFY(f.users.setDisabled("ops", true).ok());
    QCOMPARE(status(key), 401);
    QVERIFY(f.users.setDisabled("ops", false).ok());
    QCOMPARE(status(key), 200);
    const Result<IssuedKey> rotated = f.users.rotateKey("ops");
    QVERIFY(rotated.ok());
    QCOMPARE(status(key), 401);
    QCOMPARE(status(rotated->apiKey.toUtf8()), 200);
    QCOMPARE(status(AdminKey), 200);         // another user's key on the same connection
    QCOMPARE(status(rotated->apiKey.toUtf8()), 200);
    QVERIFY(f.users.removeUser("ops").ok());
    QCOMPARE(status(rotated->apiKey.toUtf8()), 401);
}

void TestHttpGuard::aChunkedPublishArrivesDecoded()
{
    // The guard decodes a chunked body (QHttpServer is given none): in pieces of any size, with
    // extensions and trailers, over several writes, the message is stored byte for byte.
    RestFixture f;
    QCOMPARE(f.request("POST", "/queues", AdminKey, R"({"name":"q"})").status, 200);
    RawClient client(f.port);
    client.send("POST /messages/q HTTP/1.1\r\nHost: t\r\nX-API-Key: " + AdminKey
                + "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                  "b\r\n{\"message\":\r\n");
    QTest::qWait(20);
    client.send("9;ext=1\r\n{\"a\":\"x y\r\n4\r\n\"}}\n\r\n0\r\nTrailer: t\r\n\r\n");
    const HttpResponse published = client.receive();
    QCOMPARE(published.status, 200);
    const HttpResponse consumed = f.request("GET", "/messages/q", AdminKey);
    QCOMPARE(consumed.status, 200);
    QCOMPARE(consumed.json().value("message").toObject().value("data").toObject(), (QJsonObject{{"a", "x y"}}));
}

void TestHttpGuard::keyInTheQueryIsRefusedInAnySpelling_data()
{
    QTest::addColumn<QByteArray>("query");
    QTest::addColumn<int>("status");
    for (const char *name : {"api_key", "API_KEY", "ApiKey", "apikey", "api-key", "Api-Key", "key", "KEY", "x-api-key",
                             "X-Api-Key", "api%5Fkey", "%4Bey"})
        QTest::addRow("%s", name) << QByteArray(name) + "=" + AdminKey << 400;
    QTest::addRow("monkey-is-not-a-key") << QByteArray("monkey=1") << 200;
    QTest::addRow("keys-is-not-a-key") << QByteArray("keys=1") << 200;
}

void TestHttpGuard::keyInTheQueryIsRefusedInAnySpelling()
{
    QFETCH(QByteArray, query);
    QFETCH(int, status);
    RestFixture f;
    const HttpResponse r = f.request("GET", "/queues?" + query, AdminKey);
    QCOMPARE(r.status, status);
    if (status == 400)
        QCOMPARE(r.error(), QString("API key in the query string is not accepted"));
}

void TestHttpGuard::drainFinishesRequestsInProgress()
{
    RestFixture f;
    QCOMPARE(f.request("POST", "/queues", AdminKey, R"({"name":"q"})").status, 200);
    RawClient busy(f.port);
    RawClient idle(f.port);
    busy.send(get("/messages/q?wait=1", AdminKey));
    idle.send(get("/health/live"));
    QCOMPARE(idle.receive().status, 200);
    QTest::qWait(50);
    bool drained = false;
    QObject::connect(f.server.get(), &Rest::RestServer::drained, [&] { drained = true; });
    f.server->stopAccepting();
    QVERIFY(idle.closedWithin(1000));
    QVERIFY(!drained);
    const HttpResponse answered = busy.receive();
    QCOMPARE(answered.status, 204);
    QCOMPARE(answered.header("Connection"), QByteArray("close"));
    QTRY_VERIFY_WITH_TIMEOUT(drained, 3000);
    RawClient late(f.port);
    QVERIFY(late.closedWithin(1000) || late.socket().state() != QAbstractSocket::ConnectedState);
}

QTEST_GUILESS_MAIN(TestHttpGuard)
#include "tst_httpguard.moc"
