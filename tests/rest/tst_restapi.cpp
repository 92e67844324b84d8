// SPDX-License-Identifier: GPL-3.0-or-later
// The REST contract, black-box: every endpoint's success and error paths with gCore's strings and
// status codes, and the role x endpoint x key matrix.
#include "restfixture.h"

#include <QJsonArray>
#include <QTest>

using namespace Broker;
using namespace Broker::Testing;

namespace {

// Setup steps run with the admin key before the request under test: "METHOD /path body".
using Steps = QList<QByteArray>;
const Steps WithQueue{"POST /queues {\"name\":\"orders\"}"};
const Steps WithMessage{"POST /queues {\"name\":\"orders\"}", "POST /messages/orders {\"message\":{\"n\":1}}"};

void runSteps(RestFixture &f, const Steps &steps)
{
    for (const QByteArray &step : steps) {
        const QList<QByteArray> parts = step.split(' ');
        const QByteArray body = parts.mid(2).join(' ');
        const HttpResponse r = f.request(parts[0], parts[1], AdminKey, body);
        QVERIFY2(r.status == 200, step.constData());
    }
}

} // namespace

class TestRestApi : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void endpoints_data();
    void endpoints();
    void roleMatrix_data();
    void roleMatrix();
    void leaseAckNackExtendFlow();
    void consumeShapes();
    void publishBatchIsAllOrNothing();
    void partitionedQueue();
    void usersLifecycle();
    void healthAndOpenApi();
    void metricsExposition();
    void errorsEndpoint();
};

void TestRestApi::endpoints_data()
{
    QTest::addColumn<Steps>("setup");
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("error"); // gCore's error string, or a field the success body has

    // Queues
    QTest::addRow("create") << Steps{} << QByteArray("POST") << QByteArray("/queues")
                            << QByteArray(R"({"name":"orders","options":{"max_size":5}})") << 200 << "success";
    QTest::addRow("create-no-name") << Steps{} << QByteArray("POST") << QByteArray("/queues") << QByteArray("{}") << 400
                                    << "Queue name is required";
    QTest::addRow("create-bad-name") << Steps{} << QByteArray("POST") << QByteArray("/queues")
                                     << QByteArray(R"({"name":"a/b"})") << 400 << "Invalid queue name";
    QTest::addRow("create-name-not-string") << Steps{} << QByteArray("POST") << QByteArray("/queues")
                                            << QByteArray(R"({"name":7})") << 400 << "Invalid queue name";
    QTest::addRow("create-bad-option") << Steps{} << QByteArray("POST") << QByteArray("/queues")
                                       << QByteArray(R"({"name":"q","options":{"ttl":-1}})") << 400
                                       << "Invalid option 'ttl': expected a whole number from 1 to 315360000";
    QTest::addRow("create-unknown-type") << Steps{} << QByteArray("POST") << QByteArray("/queues")
                                         << QByteArray(R"({"name":"q","options":{"type":"heap"}})") << 400
                                         << "Unknown queue type 'heap' (known: list, priority, stream)";
    QTest::addRow("create-exists") << WithQueue << QByteArray("POST") << QByteArray("/queues")
                                   << QByteArray(R"({"name":"orders"})") << 409 << "Queue already exists";
    QTest::addRow("create-not-json") << Steps{} << QByteArray("POST") << QByteArray("/queues") << QByteArray("{name")
                                     << 400 << "Invalid JSON";
    QTest::addRow("create-array-body") << Steps{} << QByteArray("POST") << QByteArray("/queues") << QByteArray("[1]")
                                       << 400 << "Request body must be a JSON object";
    QTest::addRow("create-partitioned") << Steps{} << QByteArray("POST") << QByteArray("/queues")
                                        << QByteArray(R"({"name":"orders","options":{"partitions":3}})") << 200 << "success";
    QTest::addRow("create-too-many-partitions") << Steps{} << QByteArray("POST") << QByteArray("/queues")
                                                << QByteArray(R"({"name":"q","options":{"partitions":65}})") << 400
                                                << "Invalid option 'partitions': expected a whole number from 1 to 64";
    QTest::addRow("publish-key") << WithQueue << QByteArray("POST") << QByteArray("/messages/orders")
                                 << QByteArray(R"({"message":1,"key":"customer-7"})") << 200 << "message_id";
    QTest::addRow("publish-bad-key") << WithQueue << QByteArray("POST") << QByteArray("/messages/orders")
                                     << QByteArray(R"({"message":1,"key":7})") << 400
                                     << "Invalid key: expected a string of 1 to 256 characters";
    QTest::addRow("list") << WithQueue << QByteArray("GET") << QByteArray("/queues") << QByteArray() << 200 << "queues";
    QTest::addRow("detail") << WithQueue << QByteArray("GET") << QByteArray("/queues/orders") << QByteArray() << 200
                            << "in_flight";
    QTest::addRow("detail-missing") << Steps{} << QByteArray("GET") << QByteArray("/queues/nope") << QByteArray() << 404
                                    << "Queue not found";
    QTest::addRow("detail-bad-name") << Steps{} << QByteArray("GET") << QByteArray("/queues/a%2Fb") << QByteArray()
                                     << 400 << "Invalid queue name";
    QTest::addRow("delete") << WithQueue << QByteArray("DELETE") << QByteArray("/queues/orders") << QByteArray() << 200
                            << "deleted_keys";
    QTest::addRow("delete-missing") << Steps{} << QByteArray("DELETE") << QByteArray("/queues/nope") << QByteArray()
                                    << 404 << "Queue not found";
    QTest::addRow("purge") << WithMessage << QByteArray("POST") << QByteArray("/queues/orders/purge") << QByteArray()
                           << 200 << "purged";
    QTest::addRow("purge-missing") << Steps{} << QByteArray("POST") << QByteArray("/queues/nope/purge") << QByteArray()
                                   << 404 << "Queue not found";
    QTest::addRow("browse") << WithMessage << QByteArray("GET") << QByteArray("/queues/orders/messages?offset=0&limit=10")
                            << QByteArray() << 200 << "messages";
    QTest::addRow("browse-bad-limit") << WithMessage << QByteArray("GET")
                                      << QByteArray("/queues/orders/messages?limit=0") << QByteArray() << 400
                                      << "Invalid limit: expected a whole number from 1 to 1000";
    QTest::addRow("redrive") << WithQueue << QByteArray("POST") << QByteArray("/queues/orders/redrive")
                             << QByteArray(R"({"limit":10})") << 200 << "moved";
    QTest::addRow("redrive-missing") << Steps{} << QByteArray("POST") << QByteArray("/queues/nope/redrive")
                                     << QByteArray() << 404 << "Queue not found";
    QTest::addRow("events") << WithMessage << QByteArray("GET") << QByteArray("/queues/orders/events") << QByteArray()
                            << 200 << "events";
    // Messages
    QTest::addRow("publish") << WithQueue << QByteArray("POST") << QByteArray("/messages/orders")
                             << QByteArray(R"({"message":{"a":1},"priority":2,"headers":{"t":"x"}})") << 200 << "message_id";
    QTest::addRow("publish-scalar") << WithQueue << QByteArray("POST") << QByteArray("/messages/orders")
                                    << QByteArray(R"({"message":"text"})") << 200 << "message_id";
    QTest::addRow("publish-no-message") << WithQueue << QByteArray("POST") << QByteArray("/messages/orders")
                                        << QByteArray(R"({"data":1})") << 400 << "Message is required";
    QTest::addRow("publish-null") << WithQueue << QByteArray("POST") << QByteArray("/messages/orders")
                                  << QByteArray(R"({"message":null})") << 400 << "Message is required";
    QTest::addRow("publish-missing-queue") << Steps{} << QByteArray("POST") << QByteArray("/messages/nope")
                                           << QByteArray(R"({"message":1})") << 404 << "Queue not found";
    QTest::addRow("publish-bad-delay") << WithQueue << QByteArray("POST") << QByteArray("/messages/orders")
                                       << QByteArray(R"({"message":1,"delay":-1})") << 400
                                       << "Invalid delay: expected a number from 0 to 86400";
    QTest::addRow("publish-too-large") << WithQueue << QByteArray("POST") << QByteArray("/messages/orders")
                                       << QByteArray("{\"message\":\"" + QByteArray(300 * 1024, 'x') + "\"}") << 413
                                       << "Message too large (at most 262144 bytes)";
    QTest::addRow("publish-full") << Steps{"POST /queues {\"name\":\"tiny\",\"options\":{\"max_size\":1}}",
                                           "POST /messages/tiny {\"message\":1}"}
                                  << QByteArray("POST") << QByteArray("/messages/tiny") << QByteArray(R"({"message":2})")
                                  << 429 << "Queue size limit reached";
    QTest::addRow("batch") << WithQueue << QByteArray("POST") << QByteArray("/messages/orders/batch")
                           << QByteArray(R"({"messages":[1,"two",{"three":3}]})") << 200 << "message_ids";
    QTest::addRow("batch-empty") << WithQueue << QByteArray("POST") << QByteArray("/messages/orders/batch")
                                 << QByteArray(R"({"messages":[]})") << 400 << "Messages are required";
    QTest::addRow("batch-null-item") << WithQueue << QByteArray("POST") << QByteArray("/messages/orders/batch")
                                     << QByteArray(R"({"messages":[1,null]})") << 400 << "Message is required";
    QTest::addRow("consume") << WithMessage << QByteArray("GET") << QByteArray("/messages/orders") << QByteArray() << 200
                             << "message";
    QTest::addRow("consume-empty") << WithQueue << QByteArray("GET") << QByteArray("/messages/orders") << QByteArray()
                                   << 204 << "";
    QTest::addRow("consume-missing") << Steps{} << QByteArray("GET") << QByteArray("/messages/nope") << QByteArray()
                                     << 404 << "Queue not found";
    QTest::addRow("consume-bad-ack") << WithQueue << QByteArray("GET") << QByteArray("/messages/orders?acknowledge=maybe")
                                     << QByteArray() << 400 << "Invalid acknowledge: expected true or false";
    QTest::addRow("consume-bad-wait") << WithQueue << QByteArray("GET") << QByteArray("/messages/orders?wait=21")
                                      << QByteArray() << 400 << "Invalid wait: expected a number from 0 to 20";
    QTest::addRow("consume-bad-count") << WithQueue << QByteArray("GET") << QByteArray("/messages/orders?count=0")
                                       << QByteArray() << 400 << "Invalid count: expected a whole number from 1 to 1000";
    QTest::addRow("ack-unknown") << WithQueue << QByteArray("PUT") << QByteArray("/messages/orders/msg-0000000000000001")
                                 << QByteArray() << 404 << "Message not found or already acknowledged";
    QTest::addRow("nack-unknown") << WithQueue << QByteArray("POST")
                                  << QByteArray("/messages/orders/msg-0000000000000001/nack") << QByteArray("{}") << 404
                                  << "Message not found or already acknowledged";
    QTest::addRow("extend-needs-timeout") << WithQueue << QByteArray("POST")
                                          << QByteArray("/messages/orders/msg-0000000000000001/extend") << QByteArray("{}")
                                          << 400 << "Invalid visibility_timeout: required";
    QTest::addRow("lifecycle-unknown") << WithQueue << QByteArray("GET")
                                       << QByteArray("/messages/orders/msg-0000000000000001/events") << QByteArray() << 404
                                       << "Message not found";
    // Users
    QTest::addRow("users") << Steps{} << QByteArray("GET") << QByteArray("/users") << QByteArray() << 200 << "users";
    QTest::addRow("user-add") << Steps{} << QByteArray("POST") << QByteArray("/users")
                              << QByteArray(R"({"id":"carol","roles":["consumer"],"name":"Carol"})") << 200 << "api_key";
    QTest::addRow("user-add-exists") << Steps{} << QByteArray("POST") << QByteArray("/users")
                                     << QByteArray(R"({"id":"admin_user","roles":["admin"]})") << 409 << "User already exists";
    QTest::addRow("user-add-bad-role") << Steps{} << QByteArray("POST") << QByteArray("/users")
                                       << QByteArray(R"({"id":"dan","roles":["root"]})") << 400
                                       << "Unknown role 'root' (known: admin, consumer, publisher)";
    QTest::addRow("user-add-no-roles") << Steps{} << QByteArray("POST") << QByteArray("/users")
                                       << QByteArray(R"({"id":"dan"})") << 400
                                       << "Invalid roles: expected a non-empty array of role names";
    QTest::addRow("user-delete-missing") << Steps{} << QByteArray("DELETE") << QByteArray("/users/nobody") << QByteArray()
                                         << 404 << "User not found";
    QTest::addRow("user-delete-last-admin") << Steps{} << QByteArray("DELETE") << QByteArray("/users/admin_user")
                                            << QByteArray() << 409 << "Cannot remove the last admin";
    QTest::addRow("user-rotate") << Steps{} << QByteArray("POST") << QByteArray("/users/consumer_user/rotate")
                                 << QByteArray() << 200 << "api_key";
    // Routing
    QTest::addRow("unknown-path") << Steps{} << QByteArray("GET") << QByteArray("/nothing/here") << QByteArray() << 404
                                  << "Not found";
    QTest::addRow("wrong-method") << Steps{} << QByteArray("PATCH") << QByteArray("/queues") << QByteArray() << 405
                                  << "Method not allowed";
    QTest::addRow("key-in-query") << Steps{} << QByteArray("GET") << QByteArray("/queues?api_key=" + AdminKey)
                                  << QByteArray() << 400 << "API key in the query string is not accepted";
}

void TestRestApi::endpoints()
{
    QFETCH(Steps, setup);
    QFETCH(QByteArray, method);
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, body);
    QFETCH(int, status);
    QFETCH(QString, error);

    RestFixture f;
    runSteps(f, setup);
    const HttpResponse r = f.request(method, path, AdminKey, body);
    QVERIFY(r.complete);
    QCOMPARE(r.status, status);
    QVERIFY(!r.header("X-Request-ID").isEmpty());
    if (status >= 400) {
        QCOMPARE(r.header("Content-Type"), QByteArray("application/problem+json"));
        QCOMPARE(r.error(), error);
        QCOMPARE(r.json().value("status").toInt(), status);
        QCOMPARE(r.json().value("request_id").toString().toLatin1(), r.header("X-Request-ID"));
    } else if (status == 200) {
        QCOMPARE(r.header("Content-Type"), QByteArray("application/json"));
        QVERIFY2(r.json().contains(error), r.body.constData());
        QVERIFY2(!r.body.contains("\n"), "compact JSON");
    } else {
        QVERIFY(r.body.isEmpty());
    }
    if (status == 405)
        QCOMPARE(r.header("Allow"), QByteArray("POST, GET, HEAD"));
}

void TestRestApi::roleMatrix_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QByteArray>("key");
    QTest::addColumn<int>("status");

    struct Endpoint
    {
        const char *name;
        QByteArray method, path, body;
        int okStatus;
        QList<QByteArray> allowed; // roles beyond admin
    };
    const QList<Endpoint> endpoints{
        {"create-queue", "POST", "/queues", R"({"name":"fresh"})", 200, {}},
        {"list-queues", "GET", "/queues", {}, 200, {"publisher", "consumer"}},
        {"queue-detail", "GET", "/queues/orders", {}, 200, {"publisher", "consumer"}},
        {"update-queue", "PATCH", "/queues/orders", R"({"options":{"max_size":9}})", 200, {}},
        {"delete-queue", "DELETE", "/queues/orders", {}, 200, {}},
        {"purge", "POST", "/queues/orders/purge", {}, 200, {}},
        {"browse", "GET", "/queues/orders/messages", {}, 200, {"consumer"}},
        {"redrive", "POST", "/queues/orders/redrive", {}, 200, {}},
        {"publish", "POST", "/messages/orders", R"({"message":1})", 200, {"publisher"}},
        {"batch", "POST", "/messages/orders/batch", R"({"messages":[1]})", 200, {"publisher"}},
        {"consume", "GET", "/messages/orders", {}, 200, {"consumer"}},
        {"ack", "PUT", "/messages/orders/msg-0000000000000001", {}, 404, {"consumer"}},
        {"users", "GET", "/users", {}, 200, {}},
        {"add-user", "POST", "/users", R"({"id":"zed","roles":["consumer"]})", 200, {}},
        {"metrics", "GET", "/metrics", {}, 200, {}},
        {"errors", "GET", "/errors", {}, 200, {}},
    };
    const QList<QPair<QByteArray, QByteArray>> roles{
        {"admin", AdminKey}, {"publisher", PublisherKey}, {"consumer", ConsumerKey}};
    for (const Endpoint &e : endpoints) {
        QTest::addRow("%s-missing-key", e.name) << e.method << e.path << e.body << QByteArray() << 401;
        QTest::addRow("%s-invalid-key", e.name) << e.method << e.path << e.body << QByteArray("bd_not-a-real-key") << 401;
        for (const auto &[role, key] : roles) {
            const bool allowed = role == "admin" || e.allowed.contains(role);
            QTest::addRow("%s-%s", e.name, role.constData()) << e.method << e.path << e.body << key
                                                             << (allowed ? e.okStatus : 403);
        }
    }
    // No key needed.
    for (const char *path : {"/health", "/api/health", "/health/live", "/health/ready", "/openapi.json"})
        QTest::addRow("%s-no-key", path) << QByteArray("GET") << QByteArray(path) << QByteArray() << QByteArray() << 200;
}

void TestRestApi::roleMatrix()
{
    QFETCH(QByteArray, method);
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, body);
    QFETCH(QByteArray, key);
    QFETCH(int, status);

    RestFixture f;
    runSteps(f, WithMessage);
    const HttpResponse r = f.request(method, path, key, body);
    QCOMPARE(r.status, status);
    if (status == 401)
        QCOMPARE(r.error(), key.isEmpty() ? QString("Unauthorized - Missing API key") : QString("Unauthorized - Invalid API key"));
    if (status == 403)
        QCOMPARE(r.error(), QString("Unauthorized"));
    // Secrets never come back.
    QVERIFY(!r.body.contains(AdminKey));
    QVERIFY(!r.body.contains(PublisherKey));
    QVERIFY(!r.body.contains(ConsumerKey));
}

void TestRestApi::leaseAckNackExtendFlow()
{
    RestFixture f;
    runSteps(f, WithQueue);
    QVERIFY(f.request("POST", "/messages/orders", PublisherKey, R"({"message":{"job":1}})").status == 200);

    HttpResponse leased = f.request("GET", "/messages/orders?acknowledge=false&visibility_timeout=60", ConsumerKey);
    QCOMPARE(leased.status, 200);
    QJsonObject message = leased.json().value("message").toObject();
    QCOMPARE(leased.json().value("acknowledged").toBool(), false);
    const QString id = message.value("id").toString();
    const QString receipt = message.value("receipt").toString();
    QCOMPARE(message.value("delivery_count").toInt(), 1);
    QCOMPARE(message.value("publisher").toString(), QString("publisher_user"));
    QCOMPARE(message.value("data").toObject().value("job").toInt(), 1);

    const QByteArray base = "/messages/orders/" + id.toLatin1();
    const HttpResponse extended =
        f.request("POST", base + "/extend", ConsumerKey, R"({"visibility_timeout":120,"receipt":")" + receipt.toLatin1() + "\"}");
    QCOMPARE(extended.status, 200);
    QVERIFY(extended.json().value("visible_at").toDouble() > double(QDateTime::currentSecsSinceEpoch()) + 100);

    const HttpResponse nacked = f.request("POST", base + "/nack", ConsumerKey, R"({"receipt":")" + receipt.toLatin1() + "\"}");
    QCOMPARE(nacked.status, 200);
    QCOMPARE(nacked.json().value("requeued").toBool(), true);
    QCOMPARE(nacked.json().value("dead_lettered").toBool(), false);

    leased = f.request("GET", "/messages/orders?acknowledge=false", ConsumerKey);
    message = leased.json().value("message").toObject();
    QCOMPARE(message.value("delivery_count").toInt(), 2);
    // The first receipt is stale now.
    const HttpResponse stale = f.request("PUT", base, ConsumerKey, R"({"receipt":")" + receipt.toLatin1() + "\"}");
    QCOMPARE(stale.status, 409);
    QVERIFY(stale.error().startsWith("Stale receipt"));
    const HttpResponse acked =
        f.request("PUT", base, ConsumerKey, R"({"receipt":")" + message.value("receipt").toString().toLatin1() + "\"}");
    QCOMPARE(acked.status, 200);
    QCOMPARE(acked.json().value("acknowledged").toBool(), true);
    QCOMPARE(f.request("PUT", base, ConsumerKey).status, 404);

    const HttpResponse life = f.request("GET", base + "/events", ConsumerKey);
    QCOMPARE(life.status, 200);
    QStringList kinds;
    for (const QJsonValue &event : life.json().value("events").toArray())
        kinds << event.toObject().value("event").toString();
    QCOMPARE(kinds, (QStringList{"published", "delivered", "nacked", "delivered", "acked"}));
}

void TestRestApi::partitionedQueue()
{
    RestFixture f;
    runSteps(f, {"POST /queues {\"name\":\"orders\",\"options\":{\"partitions\":3}}"});
    for (int i = 0; i < 2; ++i)
        QCOMPARE(f.request("POST", "/messages/orders", AdminKey, R"({"message":1,"key":"customer-7"})").status, 200);
    QCOMPARE(f.request("POST", "/messages/orders/batch", AdminKey, R"({"messages":[1,2],"key":"customer-8"})").status, 200);
    const QJsonObject detail = f.request("GET", "/queues/orders", AdminKey).json();
    QCOMPARE(detail.value("message_count").toInt(), 4);
    QCOMPARE(detail.value("config").toObject().value("partitions").toInt(), 3);
    const QJsonArray partitions = detail.value("partitions").toArray();
    QCOMPARE(partitions.size(), 3);
    int held = 0;
    for (qsizetype i = 0; i < partitions.size(); ++i) {
        const QJsonObject p = partitions.at(i).toObject();
        QCOMPARE(p.value("index").toInt(), int(i));
        QVERIFY(p.contains("rates"));
        QVERIFY(p.value("message_count").toInt() % 2 == 0); // each key's messages together
        held += p.value("message_count").toInt();
    }
    QCOMPARE(held, 4);
    QCOMPARE(f.request("GET", "/queues", AdminKey).json().value("count").toInt(), 1);
    const QByteArray metrics = f.request("GET", "/metrics", AdminKey).body;
    QVERIFY(metrics.contains("brokerdesk_queue_partition_depth{queue=\"orders\",partition=\"2\"}"));
    QVERIFY(!metrics.contains("orders~")); // a partition is never shown as a queue of its own
    const HttpResponse shrink = f.request("PATCH", "/queues/orders", AdminKey, R"({"options":{"partitions":2}})");
    QCOMPARE(shrink.status, 400);
    QVERIFY(shrink.error().contains("only grow"));
    const HttpResponse grow = f.request("PATCH", "/queues/orders", AdminKey, R"({"options":{"partitions":4}})");
    QCOMPARE(grow.status, 200);
    QCOMPARE(grow.json().value("partitions").toArray().size(), 4);
    QCOMPARE(f.request("GET", "/messages/orders?count=10", AdminKey).json().value("messages").toArray().size(), 4);
    // A plain queue's configuration has no partitions member (it reads as gCore's).
    runSteps(f, {"POST /queues {\"name\":\"plain\"}"});
    QVERIFY(!f.request("GET", "/queues/plain", AdminKey).json().value("config").toObject().contains("partitions"));
    QVERIFY(!f.request("GET", "/queues/plain", AdminKey).json().contains("partitions"));
}

void TestRestApi::consumeShapes()
{
    RestFixture f;
    runSteps(f, WithQueue);
    QVERIFY(f.request("POST", "/messages/orders/batch", AdminKey, R"({"messages":[1,2,3]})").status == 200);
    const HttpResponse one = f.request("GET", "/messages/orders?count=1", AdminKey);
    QVERIFY(one.json().contains("message"));
    QCOMPARE(one.json().value("acknowledged").toBool(), true);
    const HttpResponse many = f.request("GET", "/messages/orders?count=5", AdminKey);
    QCOMPARE(many.json().value("messages").toArray().size(), 2);
    QCOMPARE(many.json().value("messages").toArray().at(1).toObject().value("data").toInt(), 3);
    QCOMPARE(f.request("GET", "/messages/orders?count=5", AdminKey).status, 204);
}

void TestRestApi::publishBatchIsAllOrNothing()
{
    RestFixture f;
    runSteps(f, {"POST /queues {\"name\":\"small\",\"options\":{\"max_size\":3}}"});
    QCOMPARE(f.request("POST", "/messages/small/batch", AdminKey, R"({"messages":[1,2]})").status, 200);
    const HttpResponse refused = f.request("POST", "/messages/small/batch", AdminKey, R"({"messages":[3,4]})");
    QCOMPARE(refused.status, 429);
    QCOMPARE(refused.error(), QString("Queue size limit reached"));
    QCOMPARE(f.request("GET", "/queues/small", AdminKey).json().value("message_count").toInt(), 2);
}

void TestRestApi::usersLifecycle()
{
    RestFixture f;
    const HttpResponse added = f.request("POST", "/users", AdminKey, R"({"id":"carol","roles":["publisher"],"name":"Carol"})");
    QCOMPARE(added.status, 200);
    const QByteArray carolKey = added.json().value("api_key").toString().toLatin1();
    QVERIFY(carolKey.startsWith("bd_"));
    QCOMPARE(f.request("GET", "/queues", carolKey).status, 200);

    const HttpResponse listed = f.request("GET", "/users", AdminKey);
    QCOMPARE(listed.json().value("count").toInt(), 4);
    QVERIFY(!listed.body.contains(carolKey));
    QVERIFY(!listed.body.contains("sha256"));

    const HttpResponse patched = f.request("PATCH", "/users/carol", AdminKey, R"({"roles":["consumer"],"disabled":true})");
    QCOMPARE(patched.status, 200);
    QCOMPARE(f.request("GET", "/queues", carolKey).status, 401); // disabled
    QCOMPARE(f.request("PATCH", "/users/carol", AdminKey, R"({"disabled":false})").status, 200);
    const HttpResponse rotated = f.request("POST", "/users/carol/rotate", AdminKey);
    const QByteArray newKey = rotated.json().value("api_key").toString().toLatin1();
    QCOMPARE(f.request("GET", "/queues", carolKey).status, 401);
    QCOMPARE(f.request("GET", "/queues", newKey).status, 200);
    QCOMPARE(f.request("PATCH", "/users/admin_user", AdminKey, R"({"roles":["consumer"]})").status, 409);
    QCOMPARE(f.request("DELETE", "/users/carol", AdminKey).status, 200);
    QCOMPARE(f.request("GET", "/queues", newKey).status, 401);

    // Persisted: a fresh directory reads the same users.
    UserDirectory reread(f.policy, f.clock);
    QVERIFY(reread.load(f.users.path()).ok());
    QCOMPARE(reread.users().size(), 3);
}

void TestRestApi::healthAndOpenApi()
{
    RestFixture f;
    runSteps(f, WithMessage);
    for (const char *path : {"/health", "/api/health"}) {
        const QJsonObject health = f.request("GET", path).json();
        QCOMPARE(health.value("status").toString(), QString("healthy"));
        QCOMPARE(health.value("queues").toInt(), 1);
        QCOMPARE(health.value("messages_total").toInt(), 1);
        QCOMPARE(health.value("version").toString(), QString(BROKER_VERSION));
        QCOMPARE(health.value("storage").toString(), f.store->backendName());
        QCOMPARE(health.value("components").toObject().value("storage").toObject().value("durability").toString(),
                 QString("none"));
    }
    QCOMPARE(f.request("GET", "/health/live").json().value("status").toString(), QString("alive"));
    QCOMPARE(f.request("GET", "/health/ready").json().value("status").toString(), QString("ready"));

    const QJsonObject openapi = f.request("GET", "/openapi.json").json();
    QCOMPARE(openapi.value("openapi").toString(), QString("3.0.3"));
    const QJsonObject paths = openapi.value("paths").toObject();
    for (const Rest::Route &route : f.server->router().routes()) {
        const QJsonObject item = paths.value(route.pattern).toObject();
        QVERIFY2(item.contains(Rest::Router::methodName(route.method).toLower()), qPrintable(route.pattern));
    }
    QVERIFY(paths.value("/messages/{queue}").toObject().value("get").toObject().value("responses").toObject().contains("204"));
}

void TestRestApi::metricsExposition()
{
    RestFixture f;
    runSteps(f, WithMessage);
    QCOMPARE(f.request("GET", "/nothing", AdminKey).status, 404);
    const HttpResponse metrics = f.request("GET", "/metrics", AdminKey);
    QCOMPARE(metrics.status, 200);
    QCOMPARE(metrics.header("Content-Type"), QByteArray("text/plain; version=0.0.4; charset=utf-8"));
    for (const char *line : {"brokerdesk_queue_depth{queue=\"orders\"} 1", "brokerdesk_queue_published_total{queue=\"orders\"} 1",
                             "brokerdesk_http_requests_total{method=\"POST\",route=\"/queues\",status=\"200\"} 1",
                             "brokerdesk_http_requests_total{method=\"GET\",route=\"unmatched\",status=\"404\"} 1",
                             "brokerdesk_http_request_duration_seconds_bucket{route=\"/messages/{queue}\",le=\"+Inf\"} 1",
                             "brokerdesk_up 1", "# TYPE brokerdesk_queue_published_total counter",
                             "brokerdesk_http_connections_refused_total{reason=\"address_full\"} 0",
                             "brokerdesk_http_connections_cut_total{reason=\"stalled_output\"} 0",
                             "# TYPE brokerdesk_http_buffered_bytes gauge", "brokerdesk_storage_writable 1"}) {
        QVERIFY2(metrics.body.contains(line), line);
    }
    // The Redis store's wake-up subscription; on a cluster every node with its redirects.
    if (testingRedis()) {
        QVERIFY(metrics.body.contains("brokerdesk_storage_wakeup_subscribed 1"));
        QVERIFY(metrics.body.contains("# TYPE brokerdesk_storage_wakeups_received_total counter"));
        const QJsonObject storage =
            f.request("GET", "/health", AdminKey).json().value("components").toObject().value("storage").toObject();
        QCOMPARE(storage.value("wakeups").toObject().value("subscribed").toBool(), true);
        QCOMPARE(storage.contains("cluster"), testingRedisCluster());
    }
    if (testingRedisCluster()) {
        QVERIFY(metrics.body.contains("brokerdesk_storage_cluster_slots_served 1"));
        QCOMPARE(metrics.body.count("brokerdesk_storage_cluster_node_connections_ready{node=\"127.0.0.1:"), 3);
        QCOMPARE(metrics.body.count("brokerdesk_storage_cluster_redirects_total{node=\"127.0.0.1:"), 2 * 6);
        QVERIFY(metrics.body.contains(",role=\"replica\",kind=\"moved\"} 0"));
        const QJsonObject cluster = f.request("GET", "/health", AdminKey).json().value("components").toObject()
                                        .value("storage").toObject().value("cluster").toObject();
        QCOMPARE(cluster.value("all_slots_served").toBool(), true);
        const QJsonArray nodes = cluster.value("nodes").toArray();
        QCOMPARE(nodes.size(), 6);
        int slotsServed = 0;
        for (const QJsonValue &node : nodes) {
            const QJsonObject one = node.toObject();
            slotsServed += one.value("slots").toInt();
            if (one.value("role").toString() == "primary")
                QCOMPARE(one.value("pool").toObject().value("ready").toInt(), one.value("pool").toObject().value("size").toInt());
            QVERIFY(one.value("redirects").toObject().contains("moved"));
        }
        QCOMPARE(slotsServed, 16384);
        // Without view_metrics, no node list.
        QVERIFY(!f.request("GET", "/health").json().value("components").toObject().value("storage").toObject().contains("cluster"));
    }
}

void TestRestApi::errorsEndpoint()
{
    RestFixture f;
    f.errors.record(Severity::Error, "storage", "timeout", "Redis did not answer");
    const HttpResponse r = f.request("GET", "/errors?limit=5", AdminKey);
    QCOMPARE(r.status, 200);
    const QJsonObject first = r.json().value("errors").toArray().first().toObject();
    QCOMPARE(first.value("component").toString(), QString("storage"));
    QCOMPARE(first.value("count").toInt(), 1);
    QCOMPARE(f.request("GET", "/errors?limit=0", AdminKey).status, 400);
}

QTEST_GUILESS_MAIN(TestRestApi)
#include "tst_restapi.moc"
