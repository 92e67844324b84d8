// SPDX-License-Identifier: GPL-3.0-or-later
// QueryParameters reads a query string as QUrlQuery does with QUrl::FullyDecoded (what the REST
// layer used before): every query below is read both ways and must give the same answers.
#include "rest/queryparameters.h"

#include <QTest>
#include <QUrl>
#include <QUrlQuery>

using namespace Broker::Rest;

class TestQueryParameters : public QObject
{
    Q_OBJECT

private slots:
    void readsAsQUrlQuery_data();
    void readsAsQUrlQuery();
    void copiesKeepTheirValues();
    void namesMatchAsQStringDoes_data();
    void namesMatchAsQStringDoes();
};

void TestQueryParameters::readsAsQUrlQuery_data()
{
    QTest::addColumn<QByteArray>("query");
    QTest::newRow("empty") << QByteArray();
    QTest::newRow("one") << QByteArray("acknowledge=true");
    QTest::newRow("several") << QByteArray("count=10&wait=2.5&acknowledge=false&visibility_timeout=30");
    QTest::newRow("no value") << QByteArray("count&wait=");
    QTest::newRow("repeated") << QByteArray("queues=a,b&queues=c&count=1&count=2");
    QTest::newRow("empty items") << QByteArray("&&count=3&&&wait=1&");
    QTest::newRow("plus stays") << QByteArray("group=a+b&consumer=c%2Bd");
    QTest::newRow("encoded value") << QByteArray("consumer=%C3%A9t%C3%A9%201&group=%2F%3F%26");
    QTest::newRow("encoded name") << QByteArray("coun%74=4&%61pi_key=x");
    QTest::newRow("equals in value") << QByteArray("q=a=b&count==1");
    QTest::newRow("bad escape") << QByteArray("group=%zz&consumer=%4");
    QTest::newRow("only equals") << QByteArray("=&=x&count=1");
    QTest::newRow("only ampersands") << QByteArray("&");
    QTest::newRow("trailing ampersands") << QByteArray("count=1&&");
}

void TestQueryParameters::readsAsQUrlQuery()
{
    QFETCH(QByteArray, query);
    QUrl url(QStringLiteral("http://h/p"));
    url.setQuery(QString::fromLatin1(query), QUrl::TolerantMode);
    const QUrlQuery expected(url);
    const QueryParameters ours(url.query(QUrl::FullyEncoded).toLatin1());
    QCOMPARE(ours.items(), expected.queryItems(QUrl::FullyDecoded));
    QCOMPARE(ours.isEmpty(), expected.isEmpty());
    for (const char *name : {"count", "wait", "acknowledge", "visibility_timeout", "queues", "group", "consumer",
                             "api_key", "q", "", "missing"}) {
        const QString n = QString::fromLatin1(name);
        QCOMPARE(ours.contains(name), expected.hasQueryItem(n));
        QCOMPARE(ours.value(name), expected.queryItemValue(n, QUrl::FullyDecoded));
        QCOMPARE(ours.values(name), expected.allQueryItemValues(n, QUrl::FullyDecoded));
    }
}

void TestQueryParameters::copiesKeepTheirValues()
{
    QueryParameters copy;
    {
        const QueryParameters original(QByteArray("group=%C3%A9&count=2"));
        copy = original;
    }
    QCOMPARE(copy.value("group"), QStringLiteral("é"));
    QCOMPARE(copy.value("count"), QStringLiteral("2"));
}

void TestQueryParameters::namesMatchAsQStringDoes_data()
{
    QTest::addColumn<QByteArray>("query");
    QTest::addColumn<bool>("found");
    QTest::newRow("plain") << QByteArray("api_key=1") << true;
    QTest::newRow("upper case") << QByteArray("API-KEY=1") << true;
    QTest::newRow("spaces around") << QByteArray("count=1&%20Key%20=2") << true;
    QTest::newRow("kelvin sign") << QByteArray("%E2%84%AAey=1") << true; // folds to "key"
    QTest::newRow("no value") << QByteArray("x-api-key") << true;
    QTest::newRow("longer") << QByteArray("apikey2=1") << false;
    QTest::newRow("others") << QByteArray("count=1&wait=2") << false;
    QTest::newRow("accented") << QByteArray("k%C3%A9y=1") << false;
    QTest::newRow("empty") << QByteArray() << false;
    QTest::newRow("empty item") << QByteArray("&") << false;
}

void TestQueryParameters::namesMatchAsQStringDoes()
{
    QFETCH(QByteArray, query);
    QFETCH(bool, found);
    const QStringList keys{QStringLiteral("api_key"), QStringLiteral("apikey"), QStringLiteral("api-key"),
                           QStringLiteral("key"), QStringLiteral("x-api-key")};
    const QueryParameters ours(query);
    bool asText = false;
    for (const auto &[name, value] : ours.items())
        asText = asText || keys.contains(name.trimmed(), Qt::CaseInsensitive);
    QCOMPARE(asText, found);
    QCOMPARE(ours.hasNameAmong(keys), found);
}

QTEST_APPLESS_MAIN(TestQueryParameters)
#include "tst_queryparameters.moc"
