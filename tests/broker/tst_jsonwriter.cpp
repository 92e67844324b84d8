// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/jsonfields.h"
#include "core/jsonwriter.h"
#include "core/messageid.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace Broker;

class TestJsonWriter : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void stringsReadBackUnchanged_data();
    void stringsReadBackUnchanged();
    void structure();
};

void TestJsonWriter::stringsReadBackUnchanged_data()
{
    QTest::addColumn<QString>("text");
    QTest::addRow("plain") << "hello";
    QTest::addRow("quotes-and-backslash") << R"(say "hi" \ bye)";
    QTest::addRow("controls") << QString::fromUtf8("a\nb\rc\td\be\ff\x01g\x1f");
    QTest::addRow("unicode") << QString::fromUtf8("zürich ☃ \xF0\x9F\x98\x80");
    QTest::addRow("slash") << "a/b</script>";
    QTest::addRow("empty") << "";
    // Runs of plain bytes are skipped 16 and 8 at a time: escapes on either side of a block's edge.
    const QString sixteen = QStringLiteral("0123456789abcdef");
    QTest::addRow("quote-at-15") << sixteen.left(15) + "\"" + sixteen;
    QTest::addRow("quote-at-16") << sixteen + "\"" + sixteen;
    QTest::addRow("backslash-at-17") << sixteen + "x\\" + sixteen;
    QTest::addRow("control-at-31") << sixteen + sixteen.left(15) + QChar(0x02) + "tail";
    QTest::addRow("long-plain") << sixteen.repeated(20) + "x";
    QTest::addRow("unicode-after-a-block") << sixteen + QString::fromUtf8("ä") + sixteen + QString::fromUtf8("€") + "z";
    QTest::addRow("delete-is-plain") << sixteen + QChar(0x7f) + sixteen;
    QString controls;
    for (char16_t c = 0; c < 0x20; ++c)
        controls += sixteen.left(c % 17) + QChar(c);
    QTest::addRow("every-control-in-a-long-text") << controls;
    QTest::addRow("json-message") << QStringLiteral(R"({"order":12345,"note":"%1","tags":["a","b\\c"]})").arg(sixteen.repeated(10));
}

void TestJsonWriter::stringsReadBackUnchanged()
{
    QFETCH(QString, text);
    JsonWriter out;
    out.beginObject().key("s").value(text).endObject();
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(out.text(), &error);
    QCOMPARE(error.error, QJsonParseError::NoError);
    QCOMPARE(document.object().value("s").toString(), text);
    // The escaper JsonWriter uses, on its own, after text already there.
    QByteArray array = "[1,";
    JsonFields::appendString(array, text.toUtf8());
    array += ']';
    const QJsonDocument alone = QJsonDocument::fromJson(array, &error);
    QCOMPARE(error.error, QJsonParseError::NoError);
    QCOMPARE(alone.array().at(1).toString(), text);
}

void TestJsonWriter::structure()
{
    JsonWriter out;
    out.beginObject()
        .key("n").value(qint64(-42))
        .key("d").value(1795978046.623)
        .key("b").value(false)
        .key("z").null()
        .key("a").beginArray().value(1).raw(R"({"x":[1,2]})").beginObject().endObject().endArray()
        .key("r").raw("\"raw\"")
        .endObject();
    QCOMPARE(out.text(), QByteArray(R"({"n":-42,"d":1795978046.623,"b":false,"z":null,"a":[1,{"x":[1,2]},{}],"r":"raw"})"));
    QVERIFY(QJsonDocument::fromJson(out.text()).isObject());

    // A string that needs escaping after others: what was copied optimistically is taken back
    // with its comma, and the comma comes once.
    JsonWriter list;
    list.beginArray().value(QStringView(u"a")).value(QStringView(u"b\"c")).value(QStringView(u"d\u00e9")).value(QStringView(u"e")).endArray();
    QCOMPARE(list.text(), QByteArray("[\"a\",\"b\\\"c\",\"d\xc3\xa9\",\"e\"]"));

    // Message ids are written as MessageId::format spells them, every digit in place.
    JsonWriter ids;
    ids.beginArray().messageId(0x0123456789abcdefULL).messageId(0).messageId(~0ULL).endArray();
    QCOMPARE(ids.text(), QByteArray(R"(["msg-0123456789abcdef","msg-0000000000000000","msg-ffffffffffffffff"])"));
    QCOMPARE(MessageId::format(0x0123456789abcdefULL), QStringLiteral("msg-0123456789abcdef"));
    QCOMPARE(MessageId::parse(MessageId::format(0xfedcba9876543210ULL)), std::optional<quint64>(0xfedcba9876543210ULL));
}

QTEST_APPLESS_MAIN(TestJsonWriter)
#include "tst_jsonwriter.moc"
