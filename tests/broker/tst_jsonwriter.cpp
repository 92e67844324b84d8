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
    void readStringTakesOtherWritersEscapes_data();
    void readStringTakesOtherWritersEscapes();
    void readStringRefusesMalformed_data();
    void readStringRefusesMalformed();
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
    // And read back by the reader of stored messages, after text already there.
    const QByteArray literal = array.mid(3, array.size() - 4);
    const char *p = literal.constData();
    QByteArray read = "x";
    QVERIFY(JsonFields::readString(p, literal.constData() + literal.size(), read));
    QCOMPARE(p, literal.constData() + literal.size());
    QCOMPARE(read, "x" + text.toUtf8());
}

void TestJsonWriter::readStringTakesOtherWritersEscapes_data()
{
    QTest::addColumn<QByteArray>("literal");
    QTest::addColumn<QByteArray>("utf8");
    QTest::addRow("solidus") << QByteArray(R"("a\/b")") << QByteArray("a/b");
    QTest::addRow("bmp-escape") << QByteArray(R"("caf\u00e9")") << QByteArray("caf\xc3\xa9");
    QTest::addRow("uppercase-hex") << QByteArray(R"("\u20AC")") << QByteArray("\xe2\x82\xac");
    QTest::addRow("surrogate-pair") << QByteArray(R"("\ud83d\ude80!")") << QByteArray("\xf0\x9f\x9a\x80!");
    QTest::addRow("escaped-nul") << QByteArray(R"("a\u0000b")") << QByteArray("a\0b", 3);
    QTest::addRow("raw-utf8") << QByteArray("\"z\xc3\xbcrich\"") << QByteArray("z\xc3\xbcrich");
}

void TestJsonWriter::readStringTakesOtherWritersEscapes()
{
    QFETCH(QByteArray, literal);
    QFETCH(QByteArray, utf8);
    const QByteArray text = literal + ",rest";
    const char *p = text.constData();
    QByteArray read;
    QVERIFY(JsonFields::readString(p, text.constData() + text.size(), read));
    QCOMPARE(read, utf8);
    QCOMPARE(QByteArray(p), QByteArray(",rest"));
}

void TestJsonWriter::readStringRefusesMalformed_data()
{
    QTest::addColumn<QByteArray>("literal");
    QTest::addRow("no-opening-quote") << QByteArray("abc\"");
    QTest::addRow("unterminated") << QByteArray(R"("abc)");
    QTest::addRow("unterminated-after-escape") << QByteArray(R"("abc\)");
    QTest::addRow("raw-control") << QByteArray("\"a\nb\"");
    QTest::addRow("unknown-escape") << QByteArray(R"("a\qb")");
    QTest::addRow("short-unicode-escape") << QByteArray(R"("\u12")");
    QTest::addRow("bad-hex") << QByteArray(R"("\u12g4")");
    QTest::addRow("lone-high-surrogate") << QByteArray(R"("\ud83dx")");
    QTest::addRow("high-then-non-low") << QByteArray(R"("\ud83d\u0041")");
    QTest::addRow("lone-low-surrogate") << QByteArray(R"("\ude80")");
}

void TestJsonWriter::readStringRefusesMalformed()
{
    QFETCH(QByteArray, literal);
    const char *p = literal.constData();
    QByteArray read;
    QVERIFY(!JsonFields::readString(p, literal.constData() + literal.size(), read));
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
