// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/validation.h"

#include <QTest>

#include <functional>

using namespace Broker;

// One rule applied to engine options.
using Rule = std::function<Result<void>(const EngineOptions &)>;
Q_DECLARE_METATYPE(Rule)

class TestValidation : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void queueNames_data();
    void queueNames();
    void jsonDepth_data();
    void jsonDepth();
    void messageSize();
    void rules_data();
    void rules();
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

// Every rule with its one text, on the default engine options.
void TestValidation::rules_data()
{
    QTest::addColumn<Rule>("rule");
    QTest::addColumn<QString>("error"); // empty: allowed
    const auto row = [](const char *name, Rule rule, const char *error) { QTest::addRow("%s", name) << rule << QString(error); };
    row("group-and-consumer", [](auto &) { return Validation::consumerNames(u"g", u"c-1"); }, "");
    row("no-group", [](auto &) { return Validation::consumerNames({}, {}); }, "");
    row("bad-consumer", [](auto &) { return Validation::consumerNames(u"g", u"a b"); },
        "Invalid consumer group or consumer name");
    row("message", [](auto &) { return Validation::messagePresent("{}"); }, "");
    row("null-message", [](auto &) { return Validation::messagePresent("null"); }, "Message is required");
    row("empty-message", [](auto &) { return Validation::messagePresent(""); }, "Message is required");
    row("batch-at-limit", [](auto &o) { return Validation::batchSize(o.maxBatch, o.maxBatch); }, "");
    row("batch-over-limit", [](auto &o) { return Validation::batchSize(o.maxBatch + 1, o.maxBatch); },
        "Too many messages in one batch (at most 1000)");
    row("no-messages", [](auto &o) { return Validation::newMessages({}, o); }, "Message is required");
    row("message-id", [](auto &) { return Validation::messageId(u"msg-1"); }, "");
    row("no-message-id", [](auto &) { return Validation::messageId({}); }, "Message id is required");
    row("delay-max", [](auto &o) { return Validation::delayMs(o.maxDelayMs, o); }, "");
    row("delay-negative", [](auto &o) { return Validation::delayMs(-1, o); }, "Invalid delay: expected 0 to 86400 seconds");
    row("delay-before-ttl", [](auto &) { return Validation::delayWithinTtl(9'999, 10); }, "");
    row("delay-reaches-ttl", [](auto &) { return Validation::delayWithinTtl(10'000, 10); },
        "Invalid delay: must be shorter than the queue's ttl (10 seconds)");
    row("wait-max", [](auto &o) { return Validation::waitMs(o.maxWaitMs, o); }, "");
    row("wait-too-long", [](auto &o) { return Validation::waitMs(o.maxWaitMs + 1, o); },
        "Invalid wait: expected 0 to 20 seconds");
    row("count-zero", [](auto &o) { return Validation::count(0, o); }, "Invalid count: expected 1 to 1000");
    row("lease-default", [](auto &) { return Validation::visibilityTimeoutMs(0, true); }, "");
    row("lease-zero-extend", [](auto &) { return Validation::visibilityTimeoutMs(0, false); },
        "Invalid visibility_timeout: expected 1 to 43200 seconds");
    row("lease-too-long", [](auto &) { return Validation::visibilityTimeoutMs(43'200'001, true); },
        "Invalid visibility_timeout: expected 1 to 43200 seconds");
    row("browse-offset", [](auto &o) { return Validation::browsePage(-1, 1, o); }, "Invalid offset: expected 0 or more");
    row("browse-limit", [](auto &o) { return Validation::browsePage(0, 0, o); }, "Invalid limit: expected 1 to 1000");
    row("redrive-all", [](auto &) { return Validation::redriveLimit(0); }, "");
    row("redrive-negative", [](auto &) { return Validation::redriveLimit(-1); },
        "Invalid limit: expected 0 (all) or more");
}

void TestValidation::rules()
{
    QFETCH(Rule, rule);
    QFETCH(QString, error);
    const Result<void> result = rule(EngineOptions{});
    QCOMPARE(result.ok(), error.isEmpty());
    if (!result.ok())
        QCOMPARE(result.error().message, error);
}

QTEST_APPLESS_MAIN(TestValidation)
#include "tst_validation.moc"
