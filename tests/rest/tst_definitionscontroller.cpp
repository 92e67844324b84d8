// SPDX-License-Identifier: GPL-3.0-or-later
// GET/POST /definitions, black-box: what an export holds (and never holds), that a bad document
// changes nothing, who may import, and an import into a second broker: what is missing is added,
// what differs is reported and left alone, roles are reported with the reason.
#include "restfixture.h"

#include <QJsonArray>
#include <QTest>

using namespace Broker;
using namespace Broker::Testing;

namespace {

QJsonObject entryNamed(const QJsonArray &array, const QString &key, const QString &name)
{
    for (const QJsonValue &value : array) {
        if (value[key].toString() == name)
            return value.toObject();
    }
    return {};
}

} // namespace

class TestDefinitionsController : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void exportHoldsQueuesRolesAndUsersWithoutKeys();
    void badDocumentChangesNothing_data();
    void badDocumentChangesNothing();
    void importNeedsThePermissionsOfWhatItDoes_data();
    void importNeedsThePermissionsOfWhatItDoes();
    void importIntoAnotherBrokerAddsWhatIsMissing();
    void openApiDescribesTheDocument();
};

void TestDefinitionsController::exportHoldsQueuesRolesAndUsersWithoutKeys()
{
    RestFixture f;
    QVERIFY(f.policy.defineRole("auditor", {"list_queues", "peek:*"}));
    QCOMPARE(f.request("POST", "/queues", AdminKey,
                       R"({"name":"orders","options":{"max_size":50,"dead_letter_queue":true}})")
                 .status,
             200);
    const HttpResponse r = f.request("GET", "/definitions", AdminKey);
    QCOMPARE(r.status, 200);
    const QJsonObject json = r.json();
    QCOMPARE(json.value("definitions_version").toInt(), 1);
    const QJsonObject orders = entryNamed(json.value("queues").toArray(), "name", "orders");
    QCOMPARE(orders.value("options").toObject().value("max_size").toInt(), 50);
    QCOMPARE(orders.value("options").toObject().value("dead_letter_queue").toString(), QString("orders.dlq"));
    QVERIFY(!entryNamed(json.value("queues").toArray(), "name", "orders.dlq").isEmpty());
    const QJsonObject auditor = entryNamed(json.value("roles").toArray(), "name", "auditor");
    QCOMPARE(auditor.value("permissions").toArray(), QJsonArray({"list_queues", "peek:*"}));
    QVERIFY(entryNamed(json.value("roles").toArray(), "name", "admin").isEmpty());
    const QJsonObject publisher = entryNamed(json.value("users").toArray(), "id", "publisher_user");
    QCOMPARE(publisher.value("roles").toArray(), QJsonArray({"publisher"}));
    QCOMPARE(publisher.keys(), QStringList({"disabled", "id", "name", "roles"}));
    QVERIFY(!r.body.contains(AdminKey));
    QVERIFY(!r.body.contains("api_key"));
    QVERIFY(!r.body.contains("sha256"));
}

void TestDefinitionsController::badDocumentChangesNothing_data()
{
    QTest::addColumn<QByteArray>("document");
    QTest::addColumn<QString>("detail");
    // Each document starts with a valid queue and user that must NOT be created.
    const QByteArray good = R"("queues":[{"name":"fresh"}],"users":[{"id":"fresh_user","roles":["publisher"]}])";
    QTest::addRow("not-json") << QByteArray("{") << QString();
    QTest::addRow("queues-not-array") << QByteArray(R"({"queues":{}})") << "queues: expected an array";
    QTest::addRow("bad-queue-name") << QByteArray("{" + good
                                                  + R"(,"roles":[],"queues":[{"name":"fresh"},{"name":"bad name"}]})")
                                    << "queues[1]: invalid queue name";
    QTest::addRow("bad-option") << QByteArray(
        R"({"users":[{"id":"fresh_user","roles":["publisher"]}],"queues":[{"name":"fresh"},{"name":"q2","options":{"max_size":-1}}]})")
                                << "queues[1].options";
    QTest::addRow("unknown-option") << QByteArray(
        R"({"queues":[{"name":"fresh"},{"name":"q2","options":{"colour":"red"}}]})")
                                    << "queues[1].options";
    QTest::addRow("unknown-type") << QByteArray(
        "{" + good + R"(,"roles":[],"queues":[{"name":"fresh"},{"name":"q3","options":{"type":"circular"}}]})")
                                  << "queue 'q3'";
    QTest::addRow("queue-twice") << QByteArray(R"({"queues":[{"name":"fresh"},{"name":"fresh"}]})") << "listed twice";
    QTest::addRow("user-with-key") << QByteArray(
        R"({"queues":[{"name":"fresh"}],"users":[{"id":"x","roles":["admin"],"api_key":"k"}]})")
                                   << "users[0]: unknown member 'api_key'";
    QTest::addRow("user-without-roles") << QByteArray(
        R"({"queues":[{"name":"fresh"}],"users":[{"id":"x","roles":[]}]})")
                                        << "users[0].roles";
    QTest::addRow("bad-user-id") << QByteArray(
        R"({"queues":[{"name":"fresh"}],"users":[{"id":"no spaces","roles":["admin"]}]})")
                                 << "users[0]: invalid user id";
    QTest::addRow("role-without-permissions")
        << QByteArray("{" + good + R"(,"roles":[{"name":"r"}]})") << "roles[0].permissions";
    QTest::addRow("unknown-member") << QByteArray("{" + good + R"(,"exchanges":[]})") << "unknown member 'exchanges'";
    QTest::addRow("future-version") << QByteArray("{" + good + R"(,"definitions_version":2})") << "definitions_version";
}

void TestDefinitionsController::badDocumentChangesNothing()
{
    QFETCH(QByteArray, document);
    QFETCH(QString, detail);
    RestFixture f;
    const QByteArray before = f.request("GET", "/definitions", AdminKey).body;
    const HttpResponse r = f.request("POST", "/definitions", AdminKey, document);
    QCOMPARE(r.status, 400);
    QVERIFY2(r.json().value("detail").toString().contains(detail), r.body.constData());
    QCOMPARE(f.request("GET", "/definitions", AdminKey).body, before);
    QVERIFY(!f.users.find("fresh_user"));
}

void TestDefinitionsController::importNeedsThePermissionsOfWhatItDoes_data()
{
    QTest::addColumn<QByteArray>("role");
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QByteArray>("document");
    QTest::addColumn<int>("status");
    QTest::addRow("publisher-may-not-export") << QByteArray("publisher") << QByteArray("GET") << QByteArray() << 403;
    QTest::addRow("publisher-may-not-import")
        << QByteArray("publisher") << QByteArray("POST") << QByteArray("{}") << 403;
    QTest::addRow("user-manager-exports") << QByteArray("usermanager") << QByteArray("GET") << QByteArray() << 200;
    QTest::addRow("user-manager-cannot-create-queues")
        << QByteArray("usermanager") << QByteArray("POST") << QByteArray(R"({"queues":[{"name":"fresh"}]})") << 403;
    QTest::addRow("user-manager-cannot-grant-more-than-it-has")
        << QByteArray("usermanager") << QByteArray("POST")
        << QByteArray(R"({"users":[{"id":"fresh_user","roles":["publisher"]}]})") << 403;
    QTest::addRow("user-manager-grants-its-own-role")
        << QByteArray("usermanager") << QByteArray("POST")
        << QByteArray(R"({"users":[{"id":"fresh_user","roles":["usermanager"]}]})") << 200;
}

void TestDefinitionsController::importNeedsThePermissionsOfWhatItDoes()
{
    QFETCH(QByteArray, role);
    QFETCH(QByteArray, method);
    QFETCH(QByteArray, document);
    QFETCH(int, status);
    RestFixture f;
    QVERIFY(f.policy.defineRole("usermanager", {"manage_users"}));
    const Result<IssuedKey> key = f.users.addUser("actor", {}, {QString::fromLatin1(role)});
    QVERIFY(key);
    const HttpResponse r = f.request(method, "/definitions", key->apiKey.toLatin1(), document);
    QCOMPARE(r.status, status);
    QCOMPARE(f.users.find("fresh_user") != nullptr, status == 200 && method == "POST");
    QCOMPARE(f.request("GET", "/queues/fresh", AdminKey).status, 404);
}

void TestDefinitionsController::importIntoAnotherBrokerAddsWhatIsMissing()
{
    QByteArray exported;
    {
        // One broker at a time: with the Redis store both would share one server, which each
        // fixture empties when it starts.
        RestFixture source;
        QVERIFY(source.policy.defineRole("auditor", {"list_queues", "peek:*"}));
        QCOMPARE(source
                     .request("POST", "/queues", AdminKey,
                              R"({"name":"orders","options":{"max_size":50,"dead_letter_queue":true}})")
                     .status,
                 200);
        QCOMPARE(source
                     .request("POST", "/queues", AdminKey, R"({"name":"audit","options":{"type":"stream","ttl":600}})")
                     .status,
                 200);
        QCOMPARE(source.request("POST", "/queues", AdminKey, R"({"name":"shared","options":{"max_size":7}})").status,
                 200);
        QVERIFY(source.users.addUser("robot", "CI robot", {"publisher"}));
        QVERIFY(source.users.addUser("sleeper", {}, {"consumer"}));
        QVERIFY(source.users.changeUser("sleeper", std::nullopt, true));
        QVERIFY(source.users.addUser("watcher", {}, {"auditor"}));
        exported = source.request("GET", "/definitions", AdminKey).body;
    }

    RestFixture target;
    QCOMPARE(target.request("POST", "/queues", AdminKey, R"({"name":"shared","options":{"max_size":9}})").status, 200);
    const HttpResponse r = target.request("POST", "/definitions", AdminKey, exported);
    QCOMPARE(r.status, 200);
    const QJsonObject summary = r.json();
    QVERIFY2(summary.value("success").toBool(), r.body.constData());
    QStringList created;
    for (const QJsonValue &name : summary["queues"]["created"].toArray())
        created << name.toString();
    created.sort();
    QCOMPARE(created, QStringList({"audit", "orders", "orders.dlq"}));
    const QJsonObject conflict = summary["queues"]["conflicts"].toArray().at(0).toObject();
    QCOMPARE(conflict.value("name").toString(), QString("shared"));
    QCOMPARE(conflict["differences"]["max_size"]["existing"].toInt(), 9);
    QCOMPARE(conflict["differences"]["max_size"]["requested"].toInt(), 7);
    QCOMPARE(target.request("GET", "/queues/shared", AdminKey).json().value("config")["max_size"].toInt(), 9); // not changed
    QCOMPARE(target.request("GET", "/queues/audit", AdminKey).json().value("config")["type"].toString(), QString("stream"));
    QCOMPARE(target.request("GET", "/queues/orders", AdminKey).json().value("config")["dead_letter_queue"].toString(),
             QString("orders.dlq"));

    // Roles come from the config file: the built-in ones are present, the custom one is reported.
    QCOMPARE(summary["roles"]["present"].toArray().size(), 2);
    const QJsonObject auditor = summary["roles"]["not_imported"].toArray().at(0).toObject();
    QCOMPARE(auditor.value("name").toString(), QString("auditor"));
    QVERIFY(auditor.value("reason").toString().contains("message_broker.yaml"));

    // New users get fresh keys that work; a user whose role is missing here is not added.
    const QJsonObject robot = entryNamed(summary["users"]["created"].toArray(), "id", "robot");
    const QByteArray robotKey = robot.value("api_key").toString().toLatin1();
    QVERIFY(robotKey.startsWith("bd_"));
    QCOMPARE(target.request("POST", "/messages/orders", robotKey, R"({"message":1})").status, 200);
    QCOMPARE(target.users.find("robot")->name, QString("CI robot"));
    QVERIFY(target.users.find("sleeper")->disabled);
    QVERIFY(!target.users.find("watcher"));
    QVERIFY(entryNamed(summary["users"]["conflicts"].toArray(), "id", "watcher")
                .value("reason")
                .toString()
                .contains("auditor"));

    // Importing again changes nothing and says so; no key is issued twice.
    const QJsonObject again = target.request("POST", "/definitions", AdminKey, exported).json();
    QVERIFY(again["queues"]["created"].toArray().isEmpty());
    QCOMPARE(again["queues"]["unchanged"].toArray().size(), 3);
    QVERIFY(again["users"]["created"].toArray().isEmpty());
    QVERIFY(again["users"]["unchanged"].toArray().contains("robot"));
    QCOMPARE(target.request("POST", "/messages/orders", robotKey, R"({"message":2})").status, 200);
}

void TestDefinitionsController::openApiDescribesTheDocument()
{
    RestFixture f;
    const QJsonObject openapi = f.request("GET", "/openapi.json").json();
    QVERIFY(openapi["components"]["schemas"]["Definitions"]["properties"].toObject().contains("queues"));
    QVERIFY(openapi["components"]["schemas"]["DefinitionsImport"]["properties"].toObject().contains("users"));
    const QJsonObject post = openapi["paths"]["/definitions"]["post"].toObject();
    QCOMPARE(post["requestBody"]["content"]["application/json"]["schema"]["$ref"].toString(),
             QString("#/components/schemas/Definitions"));
    QCOMPARE(
        openapi["paths"]["/definitions"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
            .toString(),
        QString("#/components/schemas/Definitions"));
}

QTEST_GUILESS_MAIN(TestDefinitionsController)
#include "tst_definitionscontroller.moc"
