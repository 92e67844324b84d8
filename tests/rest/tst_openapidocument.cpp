// SPDX-License-Identifier: GPL-3.0-or-later
// The OpenAPI document is generated from the route table: every route must carry its contract
// (an operation id, a tag, a success answer, schemas that exist), so that a route added without
// one fails here rather than silently publishing an untyped operation.

#include "restfixture.h"

#include "rest/openapi.h"

#include <QJsonArray>
#include <QTest>

using namespace Broker;
using namespace Broker::Testing;

namespace {

QStringList refsIn(const QJsonValue &value)
{
    QStringList refs;
    if (value.isObject()) {
        const QJsonObject object = value.toObject();
        for (auto it = object.begin(); it != object.end(); ++it) {
            if (it.key() == u"$ref")
                refs << it.value().toString();
            else
                refs += refsIn(it.value());
        }
    } else if (value.isArray()) {
        for (const QJsonValue &item : value.toArray())
            refs += refsIn(item);
    }
    return refs;
}

} // namespace

class TestOpenApiDocument : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everyRouteIsDocumented_data()
    {
        QTest::addColumn<int>("index");
        RestFixture f;
        const auto &routes = f.server->router().routes();
        for (std::size_t i = 0; i < routes.size(); ++i)
            QTest::addRow("%s %s", qPrintable(Rest::Router::methodName(routes[i].method)), qPrintable(routes[i].pattern))
                << int(i);
    }

    void everyRouteIsDocumented()
    {
        QFETCH(int, index);
        RestFixture f;
        const Rest::Route &route = f.server->router().routes().at(std::size_t(index));
        const QJsonObject document = f.contract().document();
        const QJsonObject schemas = document["components"]["schemas"].toObject();
        QStringList tags;
        for (const QJsonValue &tag : document["tags"].toArray())
            tags << tag["name"].toString();

        QVERIFY2(!route.contract.operationId.isEmpty(), "no operationId");
        QVERIFY2(tags.contains(route.contract.tag), qPrintable(QStringLiteral("tag '%1' is not declared").arg(route.contract.tag)));
        QVERIFY2(!route.summary.isEmpty(), "no summary");
        bool success = false;
        for (const Rest::ApiResponse &response : route.contract.responses) {
            success = success || (response.status >= 200 && response.status < 300);
            if (response.status >= 200 && response.status < 300 && response.status != 204)
                QVERIFY2(!response.schema.isEmpty(), qPrintable(QStringLiteral("%1 has no body schema").arg(response.status)));
            if (!response.schema.isEmpty())
                QVERIFY2(schemas.contains(response.schema), qPrintable(QStringLiteral("no schema '%1'").arg(response.schema)));
        }
        QVERIFY2(success, "no success answer documented");
        if (!route.contract.requestBody.isEmpty())
            QVERIFY2(schemas.contains(route.contract.requestBody), qPrintable(route.contract.requestBody));

        const QJsonObject operation =
            document["paths"][route.pattern][Rest::Router::methodName(route.method).toLower()].toObject();
        QCOMPARE(operation["operationId"].toString(), route.contract.operationId);
        const QJsonObject responses = operation["responses"].toObject();
        for (const char *always : {"400", "401", "429"})
            QVERIFY2(responses.contains(QLatin1StringView(always)), always);
        // Open routes say so: no key, or a key (checked when sent).
        QCOMPARE(operation.contains("security"), !route.authenticated);
    }

    void operationIdsAreUnique()
    {
        RestFixture f;
        QSet<QString> seen;
        for (const Rest::Route &route : f.server->router().routes()) {
            QVERIFY2(!seen.contains(route.contract.operationId), qPrintable(route.contract.operationId));
            seen.insert(route.contract.operationId);
        }
    }

    void everyReferenceResolves()
    {
        RestFixture f;
        const JsonSchemaValidator resolver(f.contract().document());
        const QStringList refs = refsIn(f.contract().document());
        QVERIFY(refs.size() > 50);
        for (const QString &ref : refs)
            QVERIFY2(!resolver.resolve(ref).isEmpty(), qPrintable(ref));
    }

    // The examples tools show are valid instances of their schemas.
    void examplesMatchTheirSchemas_data()
    {
        QTest::addColumn<QString>("schema");
        RestFixture f;
        const QJsonObject schemas = f.contract().document()["components"]["schemas"].toObject();
        int examples = 0;
        for (auto it = schemas.begin(); it != schemas.end(); ++it) {
            if (it.value().toObject().contains("example")) {
                QTest::addRow("%s", qPrintable(it.key())) << it.key();
                ++examples;
            }
        }
        QVERIFY(examples >= 10);
    }

    void examplesMatchTheirSchemas()
    {
        QFETCH(QString, schema);
        RestFixture f;
        const QJsonObject document = f.contract().document();
        const QJsonObject definition = document["components"]["schemas"][schema].toObject();
        const QStringList faults = JsonSchemaValidator(document).validate(definition["example"], definition);
        QVERIFY2(faults.isEmpty(), qPrintable(faults.join(u"; ")));
    }

    // Bounds the configuration sets are the configured ones, not the defaults.
    void boundsFollowTheConfiguration()
    {
        EngineOptions engine;
        engine.maxBatch = 50;
        engine.maxConsumeCount = 7;
        RestFixture f({}, engine);
        const QJsonObject document = f.contract().document();
        QCOMPARE(document["components"]["schemas"]["BatchPublishRequest"]["properties"]["messages"]["maxItems"].toInt(), 50);
        bool sawCount = false;
        for (const QJsonValue &parameter : document["paths"]["/messages/{queue}"]["get"]["parameters"].toArray()) {
            if (parameter["name"] == "count") {
                QCOMPARE(parameter["schema"]["maximum"].toInt(), 7);
                sawCount = true;
            }
        }
        QVERIFY(sawCount);
    }

    // The checker the contract tests run on every answer refuses what drifted from the document.
    void contractCheckerRefusesDrift_data()
    {
        QTest::addColumn<QByteArray>("method");
        QTest::addColumn<QByteArray>("target");
        QTest::addColumn<int>("status");
        QTest::addColumn<QByteArray>("contentType");
        QTest::addColumn<QByteArray>("body");
        QTest::addColumn<bool>("valid");
        const QByteArray json = "application/json";
        const QByteArray problem = "application/problem+json";
        const QByteArray notFound = R"({"error":"Queue not found","title":"Queue not found","status":404,"detail":"x","request_id":"r"})";
        QTest::addRow("list-as-documented") << QByteArray("GET") << QByteArray("/queues?x=1") << 200 << json
                                            << QByteArray(R"({"queues":[],"count":0})") << true;
        QTest::addRow("undocumented-field") << QByteArray("GET") << QByteArray("/queues") << 200 << json
                                            << QByteArray(R"({"queues":[],"count":0,"extra":1})") << false;
        QTest::addRow("missing-field") << QByteArray("GET") << QByteArray("/queues") << 200 << json
                                       << QByteArray(R"({"queues":[]})") << false;
        QTest::addRow("undocumented-status") << QByteArray("GET") << QByteArray("/queues") << 418 << problem << notFound
                                             << false;
        QTest::addRow("wrong-media-type") << QByteArray("GET") << QByteArray("/queues/orders") << 404 << json << notFound
                                          << false;
        QTest::addRow("problem-as-documented") << QByteArray("GET") << QByteArray("/queues/orders") << 404 << problem
                                               << notFound << true;
        QTest::addRow("problem-without-gcore-error")
            << QByteArray("GET") << QByteArray("/queues/orders") << 404 << problem
            << QByteArray(R"({"title":"Queue not found","status":404,"detail":"x","request_id":"r"})") << false;
        QTest::addRow("literal-segment-wins") << QByteArray("POST") << QByteArray("/messages/q/batch") << 200 << json
                                              << QByteArray(R"({"success":true,"message_ids":["a"],"queue_size":1})") << true;
        QTest::addRow("no-content-204") << QByteArray("GET") << QByteArray("/messages/q") << 204 << QByteArray() << QByteArray()
                                        << true;
        QTest::addRow("body-where-none") << QByteArray("GET") << QByteArray("/messages/q") << 204 << json << QByteArray("{}")
                                         << false;
        QTest::addRow("unknown-path-404") << QByteArray("GET") << QByteArray("/nothing") << 404 << problem << notFound << true;
        QTest::addRow("unknown-path-200") << QByteArray("GET") << QByteArray("/nothing") << 200 << json << QByteArray("{}")
                                          << false;
        QTest::addRow("known-path-405") << QByteArray("PUT") << QByteArray("/queues") << 405 << problem << notFound << true;
        QTest::addRow("head-has-no-body") << QByteArray("HEAD") << QByteArray("/health/live") << 200 << json << QByteArray()
                                          << true;
    }

    void contractCheckerRefusesDrift()
    {
        QFETCH(QByteArray, method);
        QFETCH(QByteArray, target);
        QFETCH(int, status);
        QFETCH(QByteArray, contentType);
        QFETCH(QByteArray, body);
        QFETCH(bool, valid);
        RestFixture f;
        const QStringList faults = f.contract().check(method, target, status, contentType, body);
        QVERIFY2(faults.isEmpty() == valid, qPrintable(faults.isEmpty() ? QStringLiteral("accepted") : faults.join(u"; ")));
    }

    // request() checks what it receives.
    void fixtureChecksEveryAnswer()
    {
        RestFixture f;
        QCOMPARE(f.request("GET", "/queues", AdminKey).status, 200);
        QCOMPARE(f.request("GET", "/queues/none", AdminKey).status, 404);
        QCOMPARE(f.checkedAnswers, 2);
    }

    void documentSaysWhereAndUnderWhichLicense()
    {
        RestFixture f;
        const QJsonObject document = f.request("GET", "/openapi.json").json();
        QCOMPARE(document["servers"][0]["url"].toString(), QString("/"));
        QCOMPARE(document["info"]["license"]["name"].toString(), QString("GPL-3.0-or-later"));
        QVERIFY(document["info"]["license"]["url"].toString().startsWith("https://"));
        QVERIFY(!document["info"]["contact"]["url"].toString().isEmpty());
        QCOMPARE(document["components"]["securitySchemes"]["ApiKey"]["name"].toString(), QString("X-API-Key"));
        QCOMPARE(document["paths"]["/health"]["get"]["security"].toArray().size(), 2);
        QVERIFY(!document["paths"]["/queues"]["get"].toObject().contains("security")); // the document's default: a key
    }
};

QTEST_GUILESS_MAIN(TestOpenApiDocument)
#include "tst_openapidocument.moc"
