// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/validation.h"

#include <QTest>

using namespace Broker;

class TestValidation : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void queueNames_data();
    void queueNames();
    void jsonDepth_data();
    void jsonDepth();
    void messageSize();
};

void TestValidation::queueNames_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("error"); // empty: valid
    QTest::addRow("simple") << "orders" << "";
    QTest::addRow("all-allowed") << "A0_b.c-D" << "";
    QTest::addRow("one-char") << "x" << "";
    QTest::addRow("128-chars") << QString(128, u'a') << "";
    QTest::addRow("empty") << "" << "Queue name is required";
    QTest::addRow("129-chars") << QString(129, u'a') << "Invalid queue name";
    QTest::addRow("leading-underscore") << "_x" << "Invalid queue name";
    QTest::addRow("leading-dash") << "-x" << "Invalid queue name";
    QTest::addRow("space") << "a b" << "Invalid queue name";
    QTest::addRow("slash") << "a/b" << "Invalid queue name";
    QTest::addRow("colon") << "a:b" << "Invalid queue name";
    QTest::addRow("brace") << "{a}" << "Invalid queue name";
    QTest::addRow("non-ascii-letter") << QString::fromUtf8("caf\u00e9") << "Invalid queue name";
    QTest::addRow("nul") << QString(QChar(0)) + "a" << "Invalid queue name";
}

void TestValidation::queueNames()
{
    QFETCH(QString, name);
    QFETCH(QString, error);
    const Result<void> result = Validation::queueName(name);
    QCOMPARE(result.ok(), error.isEmpty());
    if (!result.ok())
        QCOMPARE(result.error().message, error);
}

void TestValidation::jsonDepth_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<int>("depth");
    QTest::addRow("scalar") << QByteArray("42") << 0;
    QTest::addRow("object") << QByteArray(R"({"a":1})") << 1;
    QTest::addRow("nested") << QByteArray(R"({"a":[{"b":[1]}]})") << 4;
    QTest::addRow("brackets-in-string") << QByteArray(R"({"a":"[[[[{{{{"})") << 1;
    QTest::addRow("escaped-quote") << QByteArray(R"({"a":"\"[[["})") << 1;
    QTest::addRow("siblings") << QByteArray("[[1],[2],[3]]") << 2;
    QTest::addRow("deep") << QByteArray(10000, '[') + QByteArray(10000, ']') << 10000;
}

void TestValidation::jsonDepth()
{
    QFETCH(QByteArray, json);
    QFETCH(int, depth);
    QCOMPARE(Validation::jsonDepth(json), depth);
    QCOMPARE(Validation::jsonDepthWithin(json, depth).ok(), true);
    if (depth > 0) {
        const Result<void> tooDeep = Validation::jsonDepthWithin(json, depth - 1);
        QVERIFY(!tooDeep.ok());
        QCOMPARE(tooDeep.error().message, QStringLiteral("JSON nested too deeply (at most %1 levels)").arg(depth - 1));
    }
}

void TestValidation::messageSize()
{
    QVERIFY(Validation::messageSize(100, 100).ok());
    const Result<void> big = Validation::messageSize(101, 100);
    QCOMPARE(big.error().code, ErrorCode::PayloadTooLarge);
    QCOMPARE(big.error().message, "Message too large (at most 100 bytes)");
}

QTEST_APPLESS_MAIN(TestValidation)
#include "tst_validation.moc"
