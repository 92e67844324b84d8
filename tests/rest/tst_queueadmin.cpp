// SPDX-License-Identifier: GPL-3.0-or-later
// The REST side of queue administration: PATCH /queues/{q} (options that may change, validation
// before permission before existence) and GET /queues/{q}/messages by state with its filter.
// Built twice: on the memory store and on the Redis store (BROKER_TEST_STORE=redis).
#include "restfixture.h"

#include <QJsonArray>
#include <QTest>

using namespace Broker;
using namespace Broker::Testing;

namespace {

QStringList payloadTexts(const HttpResponse &r)
{
    // Short payloads only: parsed values, written back compactly (key order is another test's).
    QStringList out;
    for (const QJsonValue &message : r.json().value("messages").toArray()) {
        const QByteArray wrapped = QJsonDocument(QJsonArray{message.toObject().value("data")}).toJson(QJsonDocument::Compact);
        out.append(QString::fromUtf8(wrapped.mid(1, wrapped.size() - 2)));
    }
    return out;
}

} // namespace

class TestQueueAdmin : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void patchQueue_data();
    void patchQueue();
    void patchAnswersLikeTheDetail();
    void browse_data();
    void browse();
    void browseInFlightAndDelayedCarryTheirTimes();
    void payloadKeyOrderSurvivesPublishAndBrowse();
    void openApiDescribesTheNewBodies();
    void messageActions_data();
    void messageActions();
    void redriveWithEditsAndDryRun();
    void redriveRefusals_data();
    void redriveRefusals();
};

void TestQueueAdmin::patchQueue_data()
{
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QByteArray>("key");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("error"); // the problem's error, or "" on success

    const QByteArray ok = R"({"options":{"max_size":9,"ttl":60}})";
    QTest::addRow("changes") << QByteArray("/queues/orders") << AdminKey << ok << 200 << "";
    QTest::addRow("dlq-set") << QByteArray("/queues/orders") << AdminKey
                             << QByteArray(R"({"options":{"dead_letter_queue":true}})") << 200 << "";
    QTest::addRow("type-refused") << QByteArray("/queues/orders") << AdminKey
                                  << QByteArray(R"({"options":{"type":"stream"}})") << 400
                                  << "Option 'type' cannot be changed: a queue keeps the type it was created with";
    QTest::addRow("out-of-range") << QByteArray("/queues/orders") << AdminKey
                                  << QByteArray(R"({"options":{"max_deliveries":0}})") << 400
                                  << "Invalid option 'max_deliveries': expected a whole number from 1 to 1000";
    QTest::addRow("empty-options") << QByteArray("/queues/orders") << AdminKey << QByteArray(R"({"options":{}})")
                                   << 400
                                   << "Nothing to change: options names none of max_size, ttl, visibility_timeout, max_deliveries, dead_letter_queue, partitions";
    QTest::addRow("options-missing") << QByteArray("/queues/orders") << AdminKey << QByteArray(R"({"max_size":3})")
                                     << 400 << "Unknown field 'max_size' (expected: options)";
    QTest::addRow("options-not-object") << QByteArray("/queues/orders") << AdminKey
                                        << QByteArray(R"({"options":[1]})") << 400 << "Invalid options: expected an object";
    QTest::addRow("not-json") << QByteArray("/queues/orders") << AdminKey << QByteArray("{") << 400 << "Invalid JSON";
    QTest::addRow("bad-name") << QByteArray("/queues/a%20b") << AdminKey << ok << 400 << "Invalid queue name";
    // Validation, then permission, then existence (gCore's order).
    QTest::addRow("invalid-before-forbidden") << QByteArray("/queues/orders") << ConsumerKey
                                              << QByteArray(R"({"options":{"type":"list"}})") << 400
                                              << "Option 'type' cannot be changed: a queue keeps the type it was created with";
    QTest::addRow("forbidden") << QByteArray("/queues/orders") << ConsumerKey << ok << 403 << "Unauthorized";
    QTest::addRow("publisher-forbidden") << QByteArray("/queues/orders") << PublisherKey << ok << 403 << "Unauthorized";
    QTest::addRow("forbidden-before-missing") << QByteArray("/queues/nope") << ConsumerKey << ok << 403 << "Unauthorized";
    QTest::addRow("missing") << QByteArray("/queues/nope") << AdminKey << ok << 404 << "Queue not found";
    QTest::addRow("no-key") << QByteArray("/queues/orders") << QByteArray() << ok << 401 << "Unauthorized - Missing API key";
}

void TestQueueAdmin::patchQueue()
{
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, key);
    QFETCH(QByteArray, body);
    QFETCH(int, status);
    QFETCH(QString, error);

    RestFixture f;
    QCOMPARE(f.request("POST", "/queues", AdminKey, R"({"name":"orders","options":{"max_size":100}})").status, 200);
    const HttpResponse r = f.request("PATCH", path, key, body);
    QCOMPARE(r.status, status);
    const QJsonObject config = f.request("GET", "/queues/orders", AdminKey).json().value("config").toObject();
    if (status != 200) {
        QCOMPARE(r.error(), error);
        QCOMPARE(r.header("Content-Type"), QByteArray("application/problem+json"));
        QCOMPARE(config.value("max_size").toInteger(), 100); // nothing changed
        return;
    }
    const QJsonObject options = QJsonDocument::fromJson(body).object().value("options").toObject();
    for (auto it = options.begin(); it != options.end(); ++it) {
        const QJsonValue expected = it.key() == u"dead_letter_queue" && it.value().isBool() ? QJsonValue("orders.dlq") : it.value();
        QCOMPARE(config.value(it.key()), expected);
        QCOMPARE(r.json().value("config").toObject().value(it.key()), expected);
    }
    if (options.contains("dead_letter_queue"))
        QCOMPARE(f.request("GET", "/queues/orders.dlq", AdminKey).status, 200);
}

void TestQueueAdmin::patchAnswersLikeTheDetail()
{
    RestFixture f;
    QCOMPARE(f.request("POST", "/queues", AdminKey, R"({"name":"orders"})").status, 200);
    QCOMPARE(f.request("POST", "/messages/orders", AdminKey, R"({"message":1})").status, 200);
    const HttpResponse patched = f.request("PATCH", "/queues/orders", AdminKey, R"({"options":{"visibility_timeout":45}})");
    QCOMPARE(patched.status, 200);
    const HttpResponse detail = f.request("GET", "/queues/orders", AdminKey);
    QJsonObject a = patched.json(), b = detail.json();
    // Rates are measured live; everything else is the same document.
    a.remove("rates");
    b.remove("rates");
    QCOMPARE(a, b);
    QCOMPARE(a.value("config").toObject().value("visibility_timeout").toInt(), 45);
    QCOMPARE(a.value("message_count").toInt(), 1);
}

void TestQueueAdmin::browse_data()
{
    QTest::addColumn<QByteArray>("query");
    QTest::addColumn<QByteArray>("key");
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("expected"); // payload texts joined by '|', or the error

    QTest::addRow("default-is-ready") << QByteArray("") << ConsumerKey << 200 << R"({"kind":"apple"}|{"kind":"pear"}|"plain")";
    QTest::addRow("ready") << QByteArray("?state=ready&limit=1") << ConsumerKey << 200 << R"({"kind":"apple"})";
    QTest::addRow("delayed") << QByteArray("?state=delayed") << ConsumerKey << 200 << R"("later")";
    QTest::addRow("in-flight") << QByteArray("?state=in_flight") << ConsumerKey << 200 << R"("leased")";
    QTest::addRow("dead") << QByteArray("?state=dead") << ConsumerKey << 200 << R"("failed")";
    QTest::addRow("text") << QByteArray("?q=pear") << ConsumerKey << 200 << R"({"kind":"pear"})";
    QTest::addRow("text-escaped") << QByteArray("?q=%22kind%22%3A%22apple") << ConsumerKey << 200 << R"({"kind":"apple"})";
    QTest::addRow("header") << QByteArray("?header=region:eu") << ConsumerKey << 200 << R"({"kind":"pear"})";
    QTest::addRow("header-present") << QByteArray("?header=region") << ConsumerKey << 200 << R"({"kind":"pear"})";
    QTest::addRow("no-match") << QByteArray("?q=banana") << ConsumerKey << 200 << "";
    QTest::addRow("bad-state") << QByteArray("?state=gone") << ConsumerKey << 400
                               << "Invalid state: expected ready, delayed, in_flight or dead";
    QTest::addRow("bad-header") << QByteArray("?header=:eu") << ConsumerKey << 400
                                << "Invalid header filter: expected key:value or key";
    QTest::addRow("text-too-long") << QByteArray("?q=" + QByteArray(1025, 'x')) << ConsumerKey << 400
                                   << "Invalid search text: at most 1024 bytes";
    QTest::addRow("bad-limit") << QByteArray("?limit=5000") << ConsumerKey << 400
                               << "Invalid limit: expected a whole number from 1 to 1000";
    QTest::addRow("invalid-before-forbidden") << QByteArray("?state=gone") << PublisherKey << 400
                                              << "Invalid state: expected ready, delayed, in_flight or dead";
    QTest::addRow("forbidden") << QByteArray("?state=dead") << PublisherKey << 403 << "Unauthorized";
}

void TestQueueAdmin::browse()
{
    QFETCH(QByteArray, query);
    QFETCH(QByteArray, key);
    QFETCH(int, status);
    QFETCH(QString, expected);

    RestFixture f;
    QCOMPARE(f.request("POST", "/queues", AdminKey, R"({"name":"orders","options":{"dead_letter_queue":true,"max_deliveries":1}})").status, 200);
    const auto publish = [&](const QByteArray &body) { QCOMPARE(f.request("POST", "/messages/orders", AdminKey, body).status, 200); };
    const auto lease = [&]() {
        return f.request("GET", "/messages/orders?acknowledge=false", AdminKey).json().value("message").toObject();
    };
    publish(R"({"message":"failed"})");
    const QJsonObject failed = lease();
    QCOMPARE(f.request("POST", "/messages/orders/" + failed.value("id").toString().toLatin1() + "/nack", AdminKey, "{}").status, 200);
    publish(R"({"message":"leased"})");
    lease();
    publish(R"({"message":"later","delay":60})");
    publish(R"({"message":{"kind":"apple"}})");
    publish(R"({"message":{"kind":"pear"},"headers":{"region":"eu"}})");
    publish(R"({"message":"plain"})");

    const HttpResponse r = f.request("GET", "/queues/orders/messages" + query, key);
    QCOMPARE(r.status, status);
    if (status != 200) {
        QCOMPARE(r.error(), expected);
        return;
    }
    QCOMPARE(payloadTexts(r).join(u'|'), expected);
    const QJsonObject body = r.json();
    QVERIFY(body.contains("scanned"));
    QCOMPARE(body.value("truncated").toBool(), false);
    const QByteArray state = query.contains("state=") ? query.mid(query.indexOf("state=") + 6).split('&').first() : "ready";
    QCOMPARE(body.value("state").toString(), QString::fromLatin1(state));
    for (const QJsonValue &message : body.value("messages").toArray()) {
        QCOMPARE(message.toObject().value("state").toString(), QString::fromLatin1(state));
        QVERIFY(message.toObject().value("receipt").isNull()); // never the consumer's proof of lease
    }
}

void TestQueueAdmin::browseInFlightAndDelayedCarryTheirTimes()
{
    RestFixture f;
    QCOMPARE(f.request("POST", "/queues", AdminKey, R"({"name":"orders","options":{"dead_letter_queue":true,"max_deliveries":1}})").status, 200);
    QCOMPARE(f.request("POST", "/messages/orders", AdminKey, R"({"message":1})").status, 200);
    const QJsonObject leased =
        f.request("GET", "/messages/orders?acknowledge=false&visibility_timeout=90", AdminKey).json().value("message").toObject();
    QCOMPARE(f.request("POST", "/messages/orders", AdminKey, R"({"message":2,"delay":120})").status, 200);

    const QJsonObject inFlight = f.request("GET", "/queues/orders/messages?state=in_flight", AdminKey)
                                     .json().value("messages").toArray().first().toObject();
    QCOMPARE(inFlight.value("id"), leased.value("id"));
    QCOMPARE(inFlight.value("lease_expires").toDouble(), leased.value("visible_at").toDouble());
    QCOMPARE(inFlight.value("delivery_count").toInt(), 1);
    const QJsonObject delayed = f.request("GET", "/queues/orders/messages?state=delayed", AdminKey)
                                    .json().value("messages").toArray().first().toObject();
    const double now = double(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
    QVERIFY(delayed.value("visible_at").toDouble() > now + 100);
    QVERIFY(delayed.value("visible_at").toDouble() <= now + 120);
    QVERIFY(!delayed.contains("lease_expires"));

    QCOMPARE(f.request("POST", "/messages/orders/" + leased.value("id").toString().toLatin1() + "/nack", AdminKey, "{}").status, 200);
    const QJsonObject dead = f.request("GET", "/queues/orders/messages?state=dead", AdminKey)
                                 .json().value("messages").toArray().first().toObject();
    QCOMPARE(dead.value("origin_queue").toString(), QString("orders"));
    QCOMPARE(dead.value("dead_letter_reason").toString(), QString("max_deliveries"));
}

void TestQueueAdmin::payloadKeyOrderSurvivesPublishAndBrowse()
{
    // What a publisher sent is what a browser sees, byte for byte: keys are not re-sorted anywhere.
    const QByteArray payload = R"({"zeta":1,"alpha":{"y":[3,1,2],"b":"x"},"mid":null})";
    RestFixture f;
    QCOMPARE(f.request("POST", "/queues", AdminKey, R"({"name":"orders"})").status, 200);
    QCOMPARE(f.request("POST", "/messages/orders", AdminKey, R"({"message": )" + payload + "}").status, 200);
    QCOMPARE(f.request("POST", "/messages/orders", AdminKey, R"({"message": )" + payload + R"(,"delay":30})").status, 200);
    for (const QByteArray state : {"ready", "delayed"}) {
        const HttpResponse r = f.request("GET", "/queues/orders/messages?state=" + state, AdminKey);
        QCOMPARE(r.status, 200);
        QVERIFY2(r.body.contains(R"("data":)" + payload), r.body.constData());
    }
    const HttpResponse consumed = f.request("GET", "/messages/orders", AdminKey);
    QVERIFY2(consumed.body.contains(R"("data":)" + payload), consumed.body.constData());
}

void TestQueueAdmin::openApiDescribesTheNewBodies()
{
    RestFixture f;
    const QJsonObject document = f.request("GET", "/openapi.json").json();
    const QJsonObject paths = document.value("paths").toObject();
    // Bodies are named components now: follow the reference.
    const JsonSchemaValidator resolver(document);
    const auto named = [&](const QJsonObject &schema) {
        return schema.contains("$ref") ? resolver.resolve(schema.value("$ref").toString()) : schema;
    };
    const QJsonObject patch = paths.value("/queues/{name}").toObject().value("patch").toObject();
    const QJsonObject schema = named(patch.value("requestBody").toObject().value("content").toObject()
                                         .value("application/json").toObject().value("schema").toObject());
    const QJsonObject options = schema.value("properties").toObject().value("options").toObject();
    QCOMPARE(options.value("properties").toObject().keys(),
             (QStringList{"dead_letter_queue", "max_deliveries", "max_size", "partitions", "ttl", "visibility_timeout"}));
    QVERIFY(patch.value("responses").toObject().contains("404"));
    QStringList parameters;
    for (const QJsonValue &p : paths.value("/queues/{name}/messages").toObject().value("get").toObject().value("parameters").toArray())
        parameters.append(p.toObject().value("name").toString());
    QCOMPARE(parameters, (QStringList{"name", "offset", "limit", "state", "q", "header", "id"}));
    const auto bodySchema = [&](const char *path) {
        return named(paths.value(path).toObject().value("post").toObject().value("requestBody").toObject().value("content")
                         .toObject().value("application/json").toObject().value("schema").toObject())
            .value("properties").toObject();
    };
    QCOMPARE(bodySchema("/queues/{name}/messages/actions").value("action").toObject().value("enum").toArray(),
             (QJsonArray{"delete", "requeue", "move", "dead_letter"}));
    QCOMPARE(bodySchema("/queues/{name}/redrive").keys(), (QStringList{"dry_run", "edits", "ids", "limit"}));
}

namespace {

// orders (dlq orders.dlq) with two ready messages and target "billing"; their ids.
QStringList seedForActions(RestFixture &f)
{
    QStringList ids;
    if (f.request("POST", "/queues", AdminKey, R"({"name":"orders","options":{"dead_letter_queue":true}})").status != 200
        || f.request("POST", "/queues", AdminKey, R"({"name":"billing"})").status != 200)
        qFatal("setup failed");
    for (const QByteArray body : {R"({"message":{"n":1}})", R"({"message":{"n":2}})"})
        ids.append(f.request("POST", "/messages/orders", AdminKey, body).json().value("message_id").toString());
    return ids;
}

} // namespace

void TestQueueAdmin::messageActions_data()
{
    QTest::addColumn<QByteArray>("key");
    QTest::addColumn<QByteArray>("body"); // %1, %2: the two message ids
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("expected"); // the error, or "affected=N orders=N billing=N dlq=N"

    QTest::addRow("delete") << AdminKey << QByteArray(R"({"action":"delete","ids":["%1"]})") << 200
                            << "affected=1 orders=1 billing=0 dlq=0";
    QTest::addRow("move") << AdminKey << QByteArray(R"({"action":"move","ids":["%1","%2"],"target":"billing"})") << 200
                          << "affected=2 orders=0 billing=2 dlq=0";
    QTest::addRow("dead-letter") << AdminKey << QByteArray(R"({"action":"dead_letter","ids":["%2"]})") << 200
                                 << "affected=1 orders=1 billing=0 dlq=1";
    QTest::addRow("requeue-ready") << AdminKey << QByteArray(R"({"action":"requeue","ids":["%1","msg-nope"]})") << 200
                                   << "affected=1 orders=2 billing=0 dlq=0";
    QTest::addRow("consumer-may-requeue") << ConsumerKey << QByteArray(R"({"action":"requeue","ids":["%1"]})") << 200
                                          << "affected=1 orders=2 billing=0 dlq=0";
    QTest::addRow("consumer-may-not-delete") << ConsumerKey << QByteArray(R"({"action":"delete","ids":["%1"]})") << 403
                                             << "Unauthorized";
    QTest::addRow("consumer-may-not-dead-letter") << ConsumerKey << QByteArray(R"({"action":"dead_letter","ids":["%1"]})")
                                                  << 403 << "Unauthorized";
    // Move needs consume on the source and publish on the target: neither role has both.
    QTest::addRow("consumer-may-not-move") << ConsumerKey
                                           << QByteArray(R"({"action":"move","ids":["%1"],"target":"billing"})") << 403
                                           << "Unauthorized";
    QTest::addRow("publisher-may-not-move") << PublisherKey
                                            << QByteArray(R"({"action":"move","ids":["%1"],"target":"billing"})") << 403
                                            << "Unauthorized";
    QTest::addRow("bad-action") << AdminKey << QByteArray(R"({"action":"explode","ids":["%1"]})") << 400
                                << "Invalid action: expected delete, requeue, move or dead_letter";
    QTest::addRow("no-action") << AdminKey << QByteArray(R"({"ids":["%1"]})") << 400
                               << "action is required: delete, requeue, move or dead_letter";
    QTest::addRow("no-ids") << AdminKey << QByteArray(R"({"action":"delete","ids":[]})") << 400
                            << "ids is required: the messages to act on";
    QTest::addRow("ids-not-strings") << AdminKey << QByteArray(R"({"action":"delete","ids":[1]})") << 400
                                     << "Invalid ids: expected an array of message ids";
    QTest::addRow("unknown-field") << AdminKey << QByteArray(R"({"action":"delete","ids":["%1"],"force":true})") << 400
                                   << "Unknown field 'force' (expected: action, ids, target)";
    QTest::addRow("target-on-delete") << AdminKey << QByteArray(R"({"action":"delete","ids":["%1"],"target":"billing"})")
                                      << 400 << "Invalid target: only a move has one";
    QTest::addRow("invalid-before-forbidden") << ConsumerKey << QByteArray(R"({"action":"explode","ids":["%1"]})") << 400
                                              << "Invalid action: expected delete, requeue, move or dead_letter";
    QTest::addRow("missing-target") << AdminKey << QByteArray(R"({"action":"move","ids":["%1"],"target":"nope"})") << 404
                                    << "Target queue not found";
    QTest::addRow("dead-letter-without-dlq") << AdminKey << QByteArray(R"({"action":"dead_letter","ids":["x"]})") << 409
                                             << "Queue has no dead-letter queue";
}

void TestQueueAdmin::messageActions()
{
    QFETCH(QByteArray, key);
    QFETCH(QByteArray, body);
    QFETCH(int, status);
    QFETCH(QString, expected);

    RestFixture f;
    const QStringList ids = seedForActions(f);
    const QByteArray path = QString::fromLatin1(QTest::currentDataTag()) == u"dead-letter-without-dlq"
        ? "/queues/billing/messages/actions" : "/queues/orders/messages/actions";
    const HttpResponse r = f.request("POST", path, key, QString::fromUtf8(body).arg(ids[0], ids[1]).toUtf8());
    QCOMPARE(r.status, status);
    const auto depth = [&](const char *queue) {
        const QJsonObject q = f.request("GET", QByteArray("/queues/") + queue, AdminKey).json();
        return q.value("message_count").toInt() + q.value("delayed").toInt() + q.value("in_flight").toInt();
    };
    if (status != 200) {
        QCOMPARE(r.error(), expected);
        QCOMPARE(depth("orders"), 2);
        return;
    }
    const QJsonObject answer = r.json();
    QCOMPARE(answer.value("success").toBool(), true);
    QCOMPARE(QStringLiteral("affected=%1 orders=%2 billing=%3 dlq=%4")
                 .arg(answer.value("affected").toInt())
                 .arg(depth("orders"))
                 .arg(depth("billing"))
                 .arg(depth("orders.dlq")),
             expected);
    if (body.contains("msg-nope"))
        QCOMPARE(answer.value("missing").toArray(), QJsonArray{QStringLiteral("msg-nope")});
}

void TestQueueAdmin::redriveWithEditsAndDryRun()
{
    RestFixture f;
    const QStringList ids = seedForActions(f);
    QCOMPARE(f.request("POST", "/queues/orders/messages/actions", AdminKey,
                       QStringLiteral(R"({"action":"dead_letter","ids":["%1","%2"]})").arg(ids[0], ids[1]).toUtf8()).status, 200);
    // The edit keeps its key order and spacing is made compact, as a publish's payload is.
    const QByteArray edits = QStringLiteral(R"({"ids":["%1"],"edits":{"%1": {"zz":1, "aa":[2, 3]}},"dry_run":true})").arg(ids[1]).toUtf8();
    const HttpResponse dry = f.request("POST", "/queues/orders/redrive", AdminKey, edits);
    QCOMPARE(dry.status, 200);
    QVERIFY2(dry.body.contains(R"("before":{"n":2},"after":{"zz":1,"aa":[2,3]},"edited":true)"), dry.body.constData());
    QCOMPARE(dry.json().value("moved").toInt(), 1);
    QCOMPARE(dry.json().value("dry_run").toBool(), true);
    QCOMPARE(f.request("GET", "/queues/orders/messages?state=dead", AdminKey).json().value("total").toInt(), 2);

    QByteArray real = edits;
    real.replace(R"("dry_run":true)", R"("dry_run":false)");
    const HttpResponse moved = f.request("POST", "/queues/orders/redrive", AdminKey, real);
    QCOMPARE(moved.status, 200);
    QCOMPARE(moved.json().value("moved").toInt(), 1);
    const HttpResponse back = f.request("GET", "/queues/orders/messages?id=" + ids[1].toLatin1(), AdminKey);
    QVERIFY2(back.body.contains(R"("data":{"zz":1,"aa":[2,3]})"), back.body.constData());
    QCOMPARE(f.request("GET", "/queues/orders/messages?state=dead", AdminKey).json().value("total").toInt(), 1);
    // A plain redrive answers as it always did.
    const HttpResponse rest = f.request("POST", "/queues/orders/redrive", AdminKey, R"({"limit":10})");
    QCOMPARE(rest.json().value("moved").toInt(), 1);
    QVERIFY(!rest.json().contains("messages"));
}

void TestQueueAdmin::redriveRefusals_data()
{
    QTest::addColumn<QByteArray>("key");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("error");
    QTest::addRow("unknown-field") << AdminKey << QByteArray(R"({"limt":1})") << 400
                                   << "Unknown field 'limt' (expected: limit, ids, edits, dry_run)";
    QTest::addRow("edits-not-object") << AdminKey << QByteArray(R"({"edits":[1]})") << 400
                                      << "Invalid edits: expected an object of message id to payload";
    QTest::addRow("edit-null") << AdminKey << QByteArray(R"({"edits":{"msg-1":null}})") << 400
                               << "Invalid edit of msg-1: Message is required";
    QTest::addRow("dry-run-not-bool") << AdminKey << QByteArray(R"({"dry_run":"yes"})") << 400
                                      << "Invalid dry_run: expected true or false";
    QTest::addRow("invalid-before-forbidden") << ConsumerKey << QByteArray(R"({"dry_run":1})") << 400
                                              << "Invalid dry_run: expected true or false";
    QTest::addRow("forbidden") << ConsumerKey << QByteArray(R"({"dry_run":true})") << 403 << "Unauthorized";
}

void TestQueueAdmin::redriveRefusals()
{
    QFETCH(QByteArray, key);
    QFETCH(QByteArray, body);
    QFETCH(int, status);
    QFETCH(QString, error);
    RestFixture f;
    seedForActions(f);
    const HttpResponse r = f.request("POST", "/queues/orders/redrive", key, body);
    QCOMPARE(r.status, status);
    QCOMPARE(r.error(), error);
}

QTEST_GUILESS_MAIN(TestQueueAdmin)
#include "tst_queueadmin.moc"
