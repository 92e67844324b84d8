// SPDX-License-Identifier: GPL-3.0-or-later
// Each rule of the test-side JSON Schema validator accepts what it should and refuses what it
// should: the REST contract tests are only as strict as this validator.

#include "jsonschemavalidator.h"

#include <QJsonDocument>
#include <QTest>

using namespace Broker::Testing;

namespace {

QJsonValue json(const char *text)
{
    return QJsonDocument::fromJson(QByteArray("[") + text + "]").array().at(0);
}


void addRuleRows()
{
    const auto row = [](const char *name, const char *schema, const char *value, bool valid) {
        QTest::addRow("%s", name) << QByteArray(schema) << QByteArray(value) << valid;
    };
    row("type-string-accepts", R"({"type":"string"})", R"("a")", true);
    row("type-string-refuses-number", R"({"type":"string"})", "1", false);
    row("type-integer-accepts-whole", R"({"type":"integer"})", "3", true);
    row("type-integer-refuses-fraction", R"({"type":"integer"})", "3.5", false);
    row("type-number-accepts-fraction", R"({"type":"number"})", "3.5", true);
    row("type-boolean-refuses-string", R"({"type":"boolean"})", R"("true")", false);
    row("type-object-refuses-array", R"({"type":"object"})", "[]", false);
    row("type-array-refuses-object", R"({"type":"array"})", "{}", false);
    row("type-list-accepts-either", R"({"type":["string","null"]})", "null", true);
    row("type-list-refuses-other", R"({"type":["string","null"]})", "1", false);
    row("nullable-accepts-null", R"({"type":"string","nullable":true})", "null", true);
    row("not-nullable-refuses-null", R"({"type":"string"})", "null", false);
    row("enum-accepts-member", R"({"type":"string","enum":["a","b"]})", R"("b")", true);
    row("enum-refuses-other", R"({"type":"string","enum":["a","b"]})", R"("c")", false);
    row("enum-of-true-refuses-false", R"({"type":"boolean","enum":[true]})", "false", false);
    row("required-accepts-present", R"({"type":"object","required":["a"]})", R"({"a":1})", true);
    row("required-refuses-missing", R"({"type":"object","required":["a"]})", R"({"b":1})", false);
    row("properties-check-their-values", R"({"type":"object","properties":{"a":{"type":"integer"}}})", R"({"a":"x"})", false);
    row("properties-accept-valid-values", R"({"type":"object","properties":{"a":{"type":"integer"}}})", R"({"a":2})", true);
    row("additional-false-refuses-unknown", R"({"type":"object","properties":{"a":{}},"additionalProperties":false})",
        R"({"a":1,"b":2})", false);
    row("additional-false-accepts-known", R"({"type":"object","properties":{"a":{}},"additionalProperties":false})",
        R"({"a":1})", true);
    row("additional-schema-checks-values", R"({"type":"object","additionalProperties":{"type":"string"}})",
        R"({"x":1})", false);
    row("additional-schema-accepts-values", R"({"type":"object","additionalProperties":{"type":"string"}})",
        R"({"x":"y"})", true);
    row("min-properties-refuses-fewer", R"({"type":"object","minProperties":1})", "{}", false);
    row("items-check-each", R"({"type":"array","items":{"type":"integer"}})", "[1,2,\"3\"]", false);
    row("items-accept-all-valid", R"({"type":"array","items":{"type":"integer"}})", "[1,2,3]", true);
    row("min-items-refuses-fewer", R"({"type":"array","minItems":1})", "[]", false);
    row("max-items-refuses-more", R"({"type":"array","maxItems":1})", "[1,2]", false);
    row("minimum-refuses-below", R"({"type":"integer","minimum":1})", "0", false);
    row("minimum-accepts-equal", R"({"type":"integer","minimum":1})", "1", true);
    row("maximum-refuses-above", R"({"type":"number","maximum":20})", "20.5", false);
    row("maximum-accepts-equal", R"({"type":"number","maximum":20})", "20", true);
    row("min-length-refuses-shorter", R"({"type":"string","minLength":1})", R"("")", false);
    row("max-length-refuses-longer", R"({"type":"string","maxLength":2})", R"("abc")", false);
    row("pattern-accepts-match", R"({"type":"string","pattern":"^[a-z]+$"})", R"("abc")", true);
    row("pattern-refuses-mismatch", R"({"type":"string","pattern":"^[a-z]+$"})", R"("a-c")", false);
    row("date-time-accepts-iso", R"({"type":"string","format":"date-time"})", R"("2026-12-01T20:11:22Z")", true);
    row("date-time-accepts-offset", R"({"type":"string","format":"date-time"})", R"("2026-12-01T20:11:22.5+01:00")", true);
    row("date-time-refuses-text", R"({"type":"string","format":"date-time"})", R"("yesterday")", false);
    row("ref-resolves-and-checks", R"({"$ref":"#/definitions/Name"})", "7", false);
    row("ref-resolves-and-accepts", R"({"$ref":"#/definitions/Name"})", R"("x")", true);
    row("ref-unresolved-refuses", R"({"$ref":"#/definitions/Missing"})", R"("x")", false);
    row("one-of-accepts-exactly-one", R"({"oneOf":[{"type":"string"},{"type":"boolean"}]})", "true", true);
    row("one-of-refuses-none", R"({"oneOf":[{"type":"string"},{"type":"boolean"}]})", "1", false);
    row("one-of-refuses-two", R"({"oneOf":[{"type":"number"},{"type":"integer"}]})", "1", false);
    row("any-of-accepts-two", R"({"anyOf":[{"type":"number"},{"type":"integer"}]})", "1", true);
    row("any-of-refuses-none", R"({"anyOf":[{"type":"string"},{"type":"boolean"}]})", "{}", false);
    row("all-of-accepts-all", R"({"allOf":[{"required":["a"]},{"required":["b"]}]})", R"({"a":1,"b":2})", true);
    row("all-of-refuses-one-missing", R"({"allOf":[{"required":["a"]},{"required":["b"]}]})", R"({"a":1})", false);
    row("empty-schema-accepts-anything", "{}", R"({"any":[1,"x",null]})", true);
    row("annotations-mean-nothing", R"({"description":"x","example":5,"default":5,"type":"string"})", R"("s")", true);
    row("nested-fault-is-found", R"({"type":"object","properties":{"a":{"type":"array","items":{"$ref":"#/definitions/Name"}}}})",
        R"({"a":["x",3]})", false);
}

const char *const Definitions = R"({"definitions":{"Name":{"type":"string"}}})";
const char *const NestedSchema =
    R"({"type":"object","properties":{"queues":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"}}}}}})";
const char *const NestedValue = R"({"queues":[{"name":1}]})";

} // namespace

class TstJsonSchemaValidator : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void rules_data()
    {
        QTest::addColumn<QByteArray>("schema");
        QTest::addColumn<QByteArray>("value");
        QTest::addColumn<bool>("valid");
        addRuleRows();
    }

    void rules()
    {
        QFETCH(QByteArray, schema);
        QFETCH(QByteArray, value);
        QFETCH(bool, valid);
        const JsonSchemaValidator validator(QJsonDocument::fromJson(Definitions).object());
        const QJsonObject parsedSchema = QJsonDocument::fromJson(schema).object();
        QVERIFY2(!parsedSchema.isEmpty() || schema == "{}", "the schema of the row is not JSON");
        const QStringList faults = validator.validate(json(value.constData()), parsedSchema);
        QVERIFY2(faults.isEmpty() == valid, qPrintable(faults.isEmpty() ? QStringLiteral("accepted") : faults.join(u"; ")));
    }

    // A fault names where it is, so that a failing contract test says which field drifted.
    void faultsNameTheirPlace()
    {
        const JsonSchemaValidator validator;
        const QStringList faults = validator.validate(
            json(NestedValue),
            QJsonDocument::fromJson(NestedSchema).object());
        QCOMPARE(faults.size(), 1);
        QVERIFY2(faults.first().startsWith(u"$.queues[0].name:"), qPrintable(faults.first()));
    }
};

QTEST_GUILESS_MAIN(TstJsonSchemaValidator)
#include "tst_jsonschemavalidator.moc"
