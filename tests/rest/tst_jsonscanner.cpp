// SPDX-License-Identifier: GPL-3.0-or-later
#include "rest/jsonscanner.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QTest>

using namespace Broker::Rest;

class TestJsonScanner : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void followsRfc8259_data();
    void followsRfc8259();
    void membersAndElements();
    void nesting();
    void randomMutationsNeverCrashAndStayStrict();
    void numbersOutOfRangeAreFound_data();
    void numbersOutOfRangeAreFound();
};

void TestJsonScanner::followsRfc8259_data()
{
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<bool>("valid");
    QTest::addRow("empty-object") << QByteArray("{}") << true;
    QTest::addRow("spaces") << QByteArray(" \n{ \"a\" : [ 1 , 2.5e-3 , -0 , true , null , \"x\" ] }\t") << true;
    QTest::addRow("escapes") << QByteArray(R"({"a":"q\"\\\/\b\f\n\r\t\u00e9"})") << true;
    QTest::addRow("utf8") << QByteArray("{\"a\":\"z\xc3\xbcrich \xe2\x98\x83 \xf0\x9f\x98\x80\"}") << true;
    QTest::addRow("deep-ok") << QByteArray("{\"a\":" + QByteArray(60, '[') + QByteArray(60, ']') + "}") << true;
    QTest::addRow("trailing-comma") << QByteArray(R"({"a":1,})") << false;
    QTest::addRow("single-quotes") << QByteArray("{'a':1}") << false;
    QTest::addRow("leading-zero") << QByteArray(R"({"a":01})") << false;
    QTest::addRow("bare-dot") << QByteArray(R"({"a":1.})") << false;
    QTest::addRow("plus") << QByteArray(R"({"a":+1})") << false;
    QTest::addRow("nan") << QByteArray(R"({"a":NaN})") << false;
    QTest::addRow("control-char") << QByteArray("{\"a\":\"x\x01\"}") << false;
    QTest::addRow("bad-escape") << QByteArray(R"({"a":"\x"})") << false;
    QTest::addRow("short-unicode-escape") << QByteArray(R"({"a":"\u12"})") << false;
    QTest::addRow("invalid-utf8") << QByteArray("{\"a\":\"\xff\xfe\"}") << false;
    QTest::addRow("overlong-utf8") << QByteArray("{\"a\":\"\xc0\xaf\"}") << false;
    QTest::addRow("surrogate-utf8") << QByteArray("{\"a\":\"\xed\xa0\x80\"}") << false;
    QTest::addRow("truncated-utf8") << QByteArray("{\"a\":\"\xe2\x98\"}") << false;
    QTest::addRow("unterminated") << QByteArray(R"({"a":"x)") << false;
    QTest::addRow("two-values") << QByteArray("{} {}") << false;
    QTest::addRow("missing-colon") << QByteArray(R"({"a" 1})") << false;
    QTest::addRow("bad-literal") << QByteArray(R"({"a":tru})") << false;
}

void TestJsonScanner::followsRfc8259()
{
    QFETCH(QByteArray, body);
    QFETCH(bool, valid);
    const auto members = JsonScanner::objectMembers(body, 64);
    QCOMPARE(members.ok(), valid);
    if (!valid) {
        QCOMPARE(members.error().message, QString("Invalid JSON"));
        return;
    }
    // Each member's compact text reads back as the value Qt parses. (Qt accepts more than RFC 8259,
    // e.g. "1." and control characters in strings; the scanner does not.)
    QJsonParseError error;
    const QJsonDocument reference = QJsonDocument::fromJson(body, &error);
    QCOMPARE(error.error, QJsonParseError::NoError);
    for (const JsonScanner::Member &member : *members) {
        const QByteArray compact = JsonScanner::compact(body, member.value);
        QVERIFY(!compact.contains(' ') || compact.contains('"'));
        const QJsonValue parsed = QJsonDocument::fromJson("[" + compact + "]").array().at(0);
        QCOMPARE(parsed, reference.object().value(member.key));
    }
}

void TestJsonScanner::membersAndElements()
{
    const QByteArray body = R"({ "messages" : [ 1, "two" , {"three": [3]} , null ], "k\u00e9y": true })";
    const auto members = JsonScanner::objectMembers(body, 64);
    QVERIFY(members.ok());
    QCOMPARE(members->size(), 2);
    QCOMPARE(members->at(0).key, QString("messages"));
    QCOMPARE(members->at(1).key, QString::fromUtf8("k\u00e9y"));
    const QList<JsonSpan> elements = members->at(0).elements;
    QCOMPARE(elements.size(), 4);
    QCOMPARE(JsonScanner::compact(body, elements[1]), QByteArray(R"("two")"));
    QCOMPARE(JsonScanner::compact(body, elements[2]), QByteArray(R"({"three":[3]})"));
    QCOMPARE(JsonScanner::compact(body, elements[3]), QByteArray("null"));
    const QByteArray spaced = R"({"a" : " keep \"  spaces\\ " , "b" : [ 1 ,	2 ] })";
    const auto spacedMembers = JsonScanner::objectMembers(spaced, 64);
    QVERIFY(spacedMembers.ok());
    QCOMPARE(JsonScanner::compact(spaced, spacedMembers->at(0).value), QByteArray(R"(" keep \"  spaces\\ ")"));
    QCOMPARE(JsonScanner::compact(spaced, spacedMembers->at(1).value), QByteArray("[1,2]"));
    const QByteArray empty = R"({"messages":[ ]})";
    QVERIFY(JsonScanner::objectMembers(empty, 64)->at(0).elements.isEmpty());
    // Elements without whitespace are copied as they are; a string's own spaces are no whitespace.
    const QByteArray tight = R"({"messages":[{"a":" x "},[1,2]], "b": 1})";
    const auto tightMembers = JsonScanner::objectMembers(tight, 64);
    QVERIFY(tightMembers.ok());
    QCOMPARE(tightMembers->at(0).elements.size(), 2);
    QVERIFY(!tightMembers->at(0).elements[0].spaced);
    QVERIFY(!tightMembers->at(0).value.spaced);
    QVERIFY(!tightMembers->at(1).value.spaced); // the space before a value is not in it
    QCOMPARE(JsonScanner::compact(tight, tightMembers->at(0).elements[0]), QByteArray(R"({"a":" x "})"));
    QCOMPARE(JsonScanner::compact(tight, tightMembers->at(1).value), QByteArray("1"));
    QVERIFY(members->at(0).elements[2].spaced);
}

void TestJsonScanner::nesting()
{
    const QByteArray deep = "{\"m\":" + QByteArray(64, '[') + QByteArray(64, ']') + "}";
    const auto tooDeep = JsonScanner::objectMembers(deep, 64);
    QVERIFY(!tooDeep.ok());
    QCOMPARE(tooDeep.error().message, QString("JSON nested too deeply (at most 64 levels)"));
    QVERIFY(JsonScanner::objectMembers(deep, 65).ok());
    QCOMPARE(JsonScanner::objectMembers("[1]", 64).error().message, QString("Request body must be a JSON object"));
    QCOMPARE(JsonScanner::objectMembers("[1", 64).error().message, QString("Invalid JSON"));
}

void TestJsonScanner::randomMutationsNeverCrashAndStayStrict()
{
    // Property: whatever the scanner accepts, Qt's parser accepts too, with the same values.
    const QByteArray seed = R"({"message":{"id":12,"tags":["a","b\u00e9"],"n":-1.5e3,"ok":true,"x":null},"priority":2})";
    QRandomGenerator random(20261129);
    const QByteArray alphabet = "{}[]\",:\\ 0123456789.eE+-abtrufnl\x01\xc3\xa9\xff";
    int accepted = 0;
    for (int round = 0; round < 20000; ++round) {
        QByteArray text = seed;
        const int edits = 1 + int(random.bounded(3));
        for (int e = 0; e < edits; ++e) {
            const qsizetype at = qsizetype(random.bounded(int(text.size())));
            const char c = alphabet[qsizetype(random.bounded(int(alphabet.size())))];
            switch (random.bounded(3)) {
            case 0: text[at] = c; break;
            case 1: text.insert(at, c); break;
            default: text.remove(at, 1); break;
            }
        }
        const auto members = JsonScanner::objectMembers(text, 64);
        if (!members.ok())
            continue;
        ++accepted;
        QJsonParseError error;
        const QJsonDocument reference = QJsonDocument::fromJson(text, &error);
        QVERIFY2(error.error == QJsonParseError::NoError, text.constData());
        for (const JsonScanner::Member &member : *members) {
            const QJsonValue parsed = QJsonDocument::fromJson("[" + JsonScanner::compact(text, member.value) + "]").array().at(0);
            QVERIFY2(parsed == reference.object().value(member.key), text.constData());
        }
    }
    QVERIFY(accepted > 100); // the property was exercised, not vacuously true
}

void TestJsonScanner::numbersOutOfRangeAreFound_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<bool>("found");
    QTest::addColumn<QString>("path");

    QTest::addRow("top-level") << QByteArray("1e400") << true << "";
    QTest::addRow("member") << QByteArray(R"({"delay":1e400})") << true << "delay";
    QTest::addRow("negative") << QByteArray(R"({"priority":-1E+400})") << true << "priority";
    QTest::addRow("nested") << QByteArray(R"({"a":[1,{"b":-1e999}]})") << true << "a[1].b";
    QTest::addRow("first-one-wins") << QByteArray(R"({"x":[2e400],"y":3e400})") << true << "x[0]";
    QTest::addRow("underflow") << QByteArray(R"({"t":1e-400})") << true << "t";
    QTest::addRow("many-digits-still-fit") << QByteArray(R"({"n":123456789012345678901234567890})") << false << "";
    QTest::addRow("largest-double") << QByteArray(R"({"n":1.7976931348623157e308})") << false << "";
    QTest::addRow("smallest-denormal") << QByteArray(R"({"n":5e-324})") << false << "";
    QTest::addRow("zero-with-huge-exponent") << QByteArray(R"({"n":0e-999})") << false << "";
    QTest::addRow("in-a-string") << QByteArray(R"({"s":"1e400"})") << false << "";
    QTest::addRow("escaped-key") << QByteArray(R"({"d\u0065lay":1e400})") << true << "delay";
}

void TestJsonScanner::numbersOutOfRangeAreFound()
{
    QFETCH(QByteArray, text);
    QFETCH(bool, found);
    QFETCH(QString, path);

    const std::optional<QString> where = JsonScanner::numberOutOfRange(text, 64);
    QCOMPARE(where.has_value(), found);
    if (found)
        QCOMPARE(*where, path);
    // The same from a span: the value of the first member of an object around it.
    const QByteArray wrapped = "{\"v\":" + text + "}";
    const Broker::Result<QList<JsonScanner::Member>> members = JsonScanner::objectMembers(wrapped, 64);
    QVERIFY(members.ok());
    const std::optional<QString> inSpan = JsonScanner::numberOutOfRange(wrapped, members->first().value);
    QCOMPARE(inSpan.has_value(), found);
    if (found)
        QCOMPARE(*inSpan, path);
}

QTEST_APPLESS_MAIN(TestJsonScanner)
#include "tst_jsonscanner.moc"
