// SPDX-License-Identifier: GPL-3.0-or-later
// The small text helpers of the UI: JSON checking and indentation, curl lines, number formats.
#include "ui/copyas.h"
#include "ui/curlcommand.h"
#include "ui/format.h"
#include "ui/jsontext.h"

#include <QProcess>
#include <QStandardPaths>
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
    void snippetsCarryTheRequest_data();
    void snippetsCarryTheRequest();
    void pythonSnippetSendsTheExactBody();
    void cppRawStringsNeverEndEarly();
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

void TestUiText::snippetsCarryTheRequest_data()
{
    QTest::addColumn<int>("language");
    QTest::addColumn<QString>("method");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QStringList>("expected"); // lines or fragments the snippet must contain
    QTest::addRow("curl-get") << int(SnippetLanguage::Curl) << "GET" << QByteArray()
                              << QStringList{"curl -sS 'http://h:1/queues/a%20b' -H \"X-API-Key: $API_KEY\""};
    QTest::addRow("python-get") << int(SnippetLanguage::Python) << "GET" << QByteArray()
                                << QStringList{"import requests", "    'GET',", "    'http://h:1/queues/a%20b',",
                                               "    headers={\"X-API-Key\": os.environ[\"API_KEY\"]},",
                                               "print(response.status_code, response.text)"};
    QTest::addRow("python-post") << int(SnippetLanguage::Python) << "POST" << QByteArray(R"({"message":"it's"})")
                                 << QStringList{"body = '{\"message\":\"it\\'s\"}'", "\"Content-Type\": \"application/json\"",
                                                "    data=body.encode(\"utf-8\"),"};
    QTest::addRow("cpp-get") << int(SnippetLanguage::Cpp) << "GET" << QByteArray()
                             << QStringList{"#include <QNetworkAccessManager>",
                                            "    QNetworkRequest request(QUrl(QStringLiteral(\"http://h:1/queues/a%20b\")));",
                                            "    request.setRawHeader(\"X-API-Key\", qgetenv(\"API_KEY\"));",
                                            "    const QByteArray body;", "network.sendCustomRequest(request, \"GET\", body);"};
    QTest::addRow("cpp-delete-body") << int(SnippetLanguage::Cpp) << "DELETE" << QByteArray(R"({"x":")json"})")
                                     << QStringList{"    const QByteArray body(R\"json1({\"x\":\")json\"})json1\"); // UTF-8, as sent",
                                                    "QNetworkRequest::ContentTypeHeader", "\"DELETE\""};
}

void TestUiText::snippetsCarryTheRequest()
{
    QFETCH(int, language);
    QFETCH(QString, method);
    QFETCH(QByteArray, body);
    QFETCH(QStringList, expected);
    const QString text = snippet(SnippetLanguage(language), {method, "http://h:1/queues/a%20b", body});
    for (const QString &line : expected)
        QVERIFY2(text.contains(line), qPrintable(line + "\n--- in ---\n" + text));
    QVERIFY(!text.contains("X-API-Key: k")); // a placeholder, never a key
}

void TestUiText::pythonSnippetSendsTheExactBody()
{
    const QString python = QStandardPaths::findExecutable("python3");
    if (python.isEmpty())
        QSKIP("python3 is not installed: the snippet's syntax cannot be checked here");
    const QByteArray body = "{\"text\":\"it's \\\"quoted\\\" \\\\ ünï\",\"n\":1}";
    const QString code = pythonRequestsSnippet({"POST", "http://h/messages/q", body});
    // Parse the snippet (not run: that would need requests and a broker) and read its body back.
    QProcess process;
    process.start(python, {"-c", "import ast, sys\n"
                                 "tree = ast.parse(sys.stdin.read())\n"
                                 "body = [n.value.value for n in tree.body if isinstance(n, ast.Assign) and n.targets[0].id == 'body']\n"
                                 "sys.stdout.buffer.write(body[0].encode('utf-8'))\n"});
    QVERIFY(process.waitForStarted(10000));
    process.write(code.toUtf8());
    process.closeWriteChannel();
    QVERIFY(process.waitForFinished(10000));
    QCOMPARE(process.readAllStandardError(), QByteArray());
    QCOMPARE(process.readAllStandardOutput(), body);
}

void TestUiText::cppRawStringsNeverEndEarly()
{
    QCOMPARE(cppRawString("{}"), "R\"json({})json\"");
    QCOMPARE(cppRawString(")json\" )json1\""), "R\"json2()json\" )json1\")json2\"");
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
