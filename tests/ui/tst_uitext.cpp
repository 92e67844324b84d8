// SPDX-License-Identifier: GPL-3.0-or-later
// The small text helpers of the UI: JSON checking and indentation, curl lines, number formats.
#include "ui/curlcommand.h"
#include "ui/format.h"
#include "ui/jsontext.h"

#include <QTest>

using namespace Broker::Ui;

class TestUiText : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void compactJson_data();
    void compactJson();
    void prettyJsonKeepsWhatIsNotJson();
    void curlLinesQuoteForTheShell();
    void formats();
};

void TestUiText::compactJson_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QByteArray>("compact"); // empty: refused
    QTest::addColumn<QString>("error");
    QTest::addRow("object") << "{ \"a\" : [1, 2] }" << QByteArray(R"({"a":[1,2]})") << "";
    QTest::addRow("scalar-string") << "\"hi\"" << QByteArray("\"hi\"") << "";
    QTest::addRow("number") << "  42 " << QByteArray("42") << "";
    QTest::addRow("keeps-key-order") << "{\"z\": 1, \"a\": {\"y\": 2, \"b\": 3}}" << QByteArray(R"({"z":1,"a":{"y":2,"b":3}})") << "";
    QTest::addRow("keeps-strings-and-numbers-as-written") << "[ \"a , b\" , \"q\\\" }\", 1.50, 1e3 ]"
                                                        << QByteArray(R"(["a , b","q\" }",1.50,1e3])") << "";
    QTest::addRow("null-refused") << "null" << QByteArray() << "A message cannot be null";
    QTest::addRow("empty") << "  " << QByteArray() << "The message is empty";
    QTest::addRow("two-values") << "1 2" << QByteArray() << "Near line 1, column 4: missing value separator";
    QTest::addRow("second-line") << "{\n  \"a\": }" << QByteArray() << "Near line 2, column 9: object is missing after a comma";
}

void TestUiText::compactJson()
{
    QFETCH(QString, text);
    QFETCH(QByteArray, compact);
    QFETCH(QString, error);
    QString problem;
    const std::optional<QByteArray> result = Broker::Ui::compactJson(text, &problem);
    QCOMPARE(result.value_or(QByteArray()), compact);
    QCOMPARE(problem, error);
}

void TestUiText::prettyJsonKeepsWhatIsNotJson()
{
    QCOMPARE(prettyJson(R"({"a":1})"), "{\n    \"a\": 1\n}");
    QCOMPARE(prettyJson("7"), "7");
    // Keys stay in the order they were sent; empty containers stay on their line.
    QCOMPARE(prettyJson(R"({"z":[1,{}],"a":{"y":"x, y: {"},"e":[]})"),
             "{\n    \"z\": [\n        1,\n        {}\n    ],\n    \"a\": {\n        \"y\": \"x, y: {\"\n    },\n    \"e\": []\n}");
    QCOMPARE(compactJsonText("{ \"b\" : 1 ,\n \"a\" : \" s \" }"), R"({"b":1,"a":" s "})");
    QCOMPARE(prettyJson("not json"), "not json");
}

void TestUiText::curlLinesQuoteForTheShell()
{
    QCOMPARE(curlCommand("GET", "http://127.0.0.1:8080/queues"),
             "curl -sS 'http://127.0.0.1:8080/queues' -H \"X-API-Key: $API_KEY\"");
    QCOMPARE(curlCommand("POST", "http://h/messages/q", "{\"message\":\"it's\"}"),
             "curl -sS -X POST 'http://h/messages/q' -H \"X-API-Key: $API_KEY\" -H 'Content-Type: application/json' "
             "-d '{\"message\":\"it'\\''s\"}'");
}

void TestUiText::formats()
{
    QCOMPARE(formatCount(1234567), "1,234,567");
    QCOMPARE(formatRate(0.01), "0");
    QCOMPARE(formatRate(3.54), "3.5/s");
    QCOMPARE(formatRate(12400), "12.4k/s");
    QCOMPARE(formatDuration(45), "45 s");
    QCOMPARE(formatDuration(185), "3 min 5 s");
    QCOMPARE(formatDuration(7800), "2 h 10 min");
    QCOMPARE(formatMillis(850), "850 ms");
    QCOMPARE(formatMillis(1234), "1.2 s");
    QCOMPARE(formatTimestamp(0), "—");
}

QTEST_APPLESS_MAIN(TestUiText)
#include "tst_uitext.moc"
