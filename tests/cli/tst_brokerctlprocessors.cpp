// SPDX-License-Identifier: GPL-3.0-or-later
// brokerctl processors against a broker in this process whose processors are real C++ callables
// (one that accepts, one that declines): brokerd has none of its own until the config names some,
// and the engine's own statuses are what must come out of the table, the text and the JSON.
#include "brokerctlfixture.h"
#include "../rest/restfixture.h"

#include <QJsonArray>

using namespace BrokerCtlTesting;

class TestBrokerctlProcessors : public QObject
{
    Q_OBJECT

private:
    std::unique_ptr<Broker::Testing::RestFixture> m_broker;
    BrokerdFixture m_ctl; // not started: only its way of running brokerctl
    int m_accepting = 0;
    int m_declining = 0;

    Run ctl(const QStringList &arguments, const QByteArray &input = {}) const
    {
        return m_ctl.ctl(arguments, input,
                         {QStringLiteral("API_KEY=") + QString::fromLatin1(Broker::Testing::AdminKey)});
    }

private Q_SLOTS:
    void initTestCase();
    void output_data();
    void output();
    void usageAndErrors_data();
    void usageAndErrors();
    void shellKnowsTheCommand();
};

void TestBrokerctlProcessors::initTestCase()
{
    using namespace Broker;
    m_broker = std::make_unique<Testing::RestFixture>();
    m_ctl.url = QStringLiteral("http://127.0.0.1:%1").arg(m_broker->port);
    const QByteArray key = Testing::AdminKey;
    QCOMPARE(m_broker->request("POST", "/queues", key, R"({"name":"orders"})").status, 200);
    QCOMPARE(m_broker->request("POST", "/queues", key, R"({"name":"audit","options":{"max_deliveries":1}})").status,
             200);
    m_accepting = m_broker->broker.registerProcessor(QStringLiteral("orders"), [](const Message &) { return true; });
    m_declining = m_broker->broker.registerProcessor(QStringLiteral("audit"), [](const Message &) { return false; });
    QCOMPARE(m_broker->request("POST", "/messages/orders", key, R"({"message":1})").status, 200);
    QCOMPARE(m_broker->request("POST", "/messages/audit", key, R"({"message":2})").status, 200);
    QTRY_VERIFY(m_broker->broker.processorStatuses().value(0).successes == 1
                && m_broker->broker.processorStatuses().value(1).failures == 1);
}

void TestBrokerctlProcessors::output_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QList<QByteArray>>("lines"); // each must be a line of the output, trimmed

    QTest::addRow("text-one-line-each") << QStringList{"processors", "-o", "text"}
                                        << QList<QByteArray>{"1\torders\tcallable\t-\trunning\t0/16\t1\t0\t-\t-",
                                                             "2\taudit\tcallable\t-\tfailing\t0/16\t0\t1\t*\tdeclined"};
    QTest::addRow("list-is-the-default-action")
        << QStringList{"processors", "list", "-o", "text", "--queue", "audit"}
        << QList<QByteArray>{"2\taudit\tcallable\t-\tfailing\t0/16\t0\t1\t*\tdeclined"};
    QTest::addRow("table-has-headers")
        << QStringList{"processors", "-o", "table", "--queue", "orders"}
        << QList<QByteArray>{
               "ID  QUEUE   KIND      TARGET  STATE    IN FLIGHT  SUCCESSES  FAILURES  LAST ERROR AT  LAST ERROR",
               "1   orders  callable  -       running  0/16       1          0         -              -"};
}

void TestBrokerctlProcessors::output()
{
    QFETCH(QStringList, arguments);
    QFETCH(QList<QByteArray>, lines);

    const Run r = ctl(arguments);
    QCOMPARE(r.exitCode, 0);
    QList<QByteArray> shown;
    for (const QByteArray &line : r.out.split('\n')) {
        if (!line.trimmed().isEmpty())
            shown.append(line.trimmed());
    }
    QCOMPARE(shown.size(), lines.size());
    for (qsizetype i = 0; i < lines.size(); ++i) {
        // "*" stands for a time, which the test cannot know: it must be ISO 8601 UTC.
        const qsizetype star = lines[i].indexOf('*');
        if (star < 0) {
            QCOMPARE(shown[i], lines[i]);
            continue;
        }
        QVERIFY2(shown[i].startsWith(lines[i].left(star)), shown[i].constData());
        QVERIFY2(shown[i].endsWith(lines[i].mid(star + 1)), shown[i].constData());
        const QByteArray time = shown[i].mid(star, shown[i].size() - lines[i].size() + 1);
        QVERIFY2(QDateTime::fromString(QString::fromLatin1(time), Qt::ISODateWithMs).isValid(), time.constData());
    }
}

void TestBrokerctlProcessors::usageAndErrors_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QByteArray>("stderrHas");
    QTest::addColumn<int>("jsonCount"); // -1: no JSON expected

    QTest::addRow("json-is-the-broker-answer") << QStringList{"processors", "-o", "json"} << 0 << QByteArray() << 2;
    QTest::addRow("json-filtered") << QStringList{"processors", "-o", "json", "--queue", "orders"} << 0 << QByteArray()
                                   << 1;
    QTest::addRow("queue-without-processors")
        << QStringList{"processors", "-o", "json", "--queue", "nothing.here"} << 0 << QByteArray() << 0;
    QTest::addRow("invalid-queue-name-is-the-brokers-400")
        << QStringList{"processors", "--queue", "bad name"} << 3 << QByteArray("Invalid queue name") << -1;
    QTest::addRow("unknown-action") << QStringList{"processors", "restart"} << 2
                                    << QByteArray("usage: brokerctl processors [list] [--queue Q]") << -1;
}

void TestBrokerctlProcessors::usageAndErrors()
{
    QFETCH(QStringList, arguments);
    QFETCH(int, exitCode);
    QFETCH(QByteArray, stderrHas);
    QFETCH(int, jsonCount);

    const Run r = ctl(arguments);
    QCOMPARE(r.exitCode, exitCode);
    QVERIFY2(r.err.contains(stderrHas), r.err.constData());
    if (jsonCount < 0)
        return;
    QCOMPARE(r.json().value("count").toInt(), jsonCount);
    QCOMPARE(r.json().value("processors").toArray().size(), jsonCount);
}

void TestBrokerctlProcessors::shellKnowsTheCommand()
{
    const Run help = ctl({"help"});
    QVERIFY(help.out.contains("processors [list] [--queue Q]"));
    const Run shell = ctl({"shell", "-o", "text"}, "processors --queue audit\nexit\n");
    QCOMPARE(shell.exitCode, 0);
    QVERIFY2(shell.out.contains("2\taudit\tcallable"), shell.out.constData());
    QVERIFY(ctl({"processers"}).err.contains("did you mean 'processors'?"));
}

QTEST_GUILESS_MAIN(TestBrokerctlProcessors)
#include "tst_brokerctlprocessors.moc"
