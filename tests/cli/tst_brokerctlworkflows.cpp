// SPDX-License-Identifier: GPL-3.0-or-later
// brokerctl's admin workflows against a live brokerd: definitions and messages out and back in,
// payloads exactly as sent, output for pipes, saved profiles, user changes, errors and events,
// and the one-line hint after an unknown command.
#include "brokerctlfixture.h"

#include <QJsonArray>
#include <QTest>

using namespace BrokerCtlTesting;

class TestBrokerctlWorkflows : public QObject
{
    Q_OBJECT

private:
    BrokerdFixture m_broker;
    Run ctl(const QStringList &arguments, const QByteArray &input = {}, const QStringList &env = {})
    {
        return m_broker.ctl(arguments, input, env);
    }
    QString path(const char *name) const { return m_broker.dir.filePath(QString::fromLatin1(name)); }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_broker.start()); }
    void cleanupTestCase() { m_broker.stop(); }
    void payloadKeysKeepTheirOrder_data();
    void payloadKeysKeepTheirOrder();
    void definitionsOutAndBackIn();
    void messagesOutAndBackInPageByPage();
    void messageImportStopsAtTheFirstFailure();
    void everyStateOutAndDelaysKeptOnImport();
    void textOutputIsOneLinePerItem();
    void tablesShowIsoTimes();
    void savedProfiles();
    void userChanges();
    void errorsAndEvents();
    void unknownCommandGetsAOneLineHint_data();
    void unknownCommandGetsAOneLineHint();
};

void TestBrokerctlWorkflows::payloadKeysKeepTheirOrder_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addRow("consume-json") << QStringList{"consume", "wf.order", "--lease", "-o", "json"};
    QTest::addRow("consume-table") << QStringList{"consume", "wf.order", "--lease", "-o", "table"};
    QTest::addRow("browse-json") << QStringList{"queues", "browse", "wf.order", "-o", "json"};
    QTest::addRow("browse-table") << QStringList{"queues", "browse", "wf.order", "-o", "table"};
    QTest::addRow("browse-text") << QStringList{"queues", "browse", "wf.order", "-o", "text"};
    QTest::addRow("export") << QStringList{"export", "messages", "wf.order"};
}

void TestBrokerctlWorkflows::payloadKeysKeepTheirOrder()
{
    QFETCH(QStringList, arguments);
    // Keys out of alphabetical order, nested too: Qt's JSON classes would sort them.
    const QByteArray payload = R"({"zeta":1,"alpha":{"y":true,"b":[3,2]},"mid":"x"})";
    ctl({"queues", "delete", "wf.order"});
    QCOMPARE(ctl({"queues", "create", "wf.order"}).exitCode, 0);
    QCOMPARE(ctl({"publish", "wf.order", QString::fromLatin1(payload)}).exitCode, 0);
    QCOMPARE(ctl({"publish", "wf.order", "--lines"}, payload + "\n").exitCode, 0);
    const Run r = ctl(arguments);
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains(payload), r.out.constData());
}

void TestBrokerctlWorkflows::definitionsOutAndBackIn()
{
    QCOMPARE(ctl({"queues", "create", "wf.defs", "--max-size", "77", "--dlq", "true"}).exitCode, 0);
    QCOMPARE(ctl({"users", "add", "wf.robot", "--roles", "publisher"}).exitCode, 0);
    Run r = ctl({"export", "definitions", path("defs.json")});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.err.contains("exported"), r.err.constData());
    QFile file(path("defs.json"));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray exported = file.readAll();
    QVERIFY(!exported.contains(AdminKey));
    QCOMPARE(ctl({"export", "definitions"}).out.trimmed(), exported.trimmed()); // stdout: the same document

    QCOMPARE(ctl({"queues", "delete", "wf.defs"}).exitCode, 0);
    QCOMPARE(ctl({"users", "delete", "wf.robot"}).exitCode, 0);
    r = ctl({"import", "definitions", path("defs.json"), "-o", "json"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.json().value("queues")["created"].toArray().contains("wf.defs"));
    const QJsonObject robot = r.json().value("users")["created"].toArray().at(0).toObject();
    QCOMPARE(robot.value("id").toString(), QString("wf.robot"));
    const QString key = robot.value("api_key").toString();
    QVERIFY(key.startsWith("bd_"));
    QCOMPARE(ctl({"publish", "wf.defs", "1"}, {}, {"API_KEY=" + key}).exitCode, 0); // the new key works
    QCOMPARE(ctl({"queues", "info", "wf.defs"}).json().value("config").toObject().value("max_size").toInt(), 77);

    r = ctl({"import", "definitions", path("defs.json"), "-o", "table"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("queues.created:") && r.out.contains("[]"), r.out.constData());
    QVERIFY(!r.err.contains("shown once"));

    QFile bad(path("bad-defs.json"));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write(R"({"queues":[{"name":"wf.never"},{"name":"bad name"}]})");
    bad.close();
    r = ctl({"import", "definitions", bad.fileName()});
    QCOMPARE(r.exitCode, 3);
    QVERIFY2(r.err.contains("400 Invalid definitions: queues[1]: invalid queue name"), r.err.constData());
    QCOMPARE(ctl({"queues", "info", "wf.never"}).exitCode, 3);
}

void TestBrokerctlWorkflows::messagesOutAndBackInPageByPage()
{
    QByteArray lines;
    for (int i = 0; i < 1200; ++i)
        lines += "{\"z\":" + QByteArray::number(i) + ",\"a\":\"" + QByteArray(i % 7, 'x') + "\"}\n";
    QCOMPARE(ctl({"queues", "create", "wf.export", "--max-size", "5000"}).exitCode, 0);
    QCOMPARE(ctl({"publish", "wf.export", "--lines"}, lines).exitCode, 0);
    Run r = ctl({"export", "messages", "wf.export", path("messages.jsonl"), "--batch", "500"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.err.contains("export: 500 messages (1200 ready)") && r.err.contains("export: 1200 messages (1200 ready)"),
             r.err.constData());
    QFile file(path("messages.jsonl"));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QList<QByteArray> exported = file.readAll().trimmed().split('\n');
    QCOMPARE(exported.size(), 1200);
    QVERIFY2(exported[0].contains(R"("data":{"z":0,"a":""})"), exported[0].constData());
    QVERIFY2(exported[1199].contains(R"("data":{"z":1199,"a":"xx"})"), exported[1199].constData());

    QCOMPARE(ctl({"queues", "create", "wf.import", "--max-size", "5000"}).exitCode, 0);
    r = ctl({"import", "messages", "wf.import", file.fileName(), "--batch", "300"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.err.contains("import: 300 messages") && r.err.contains("import: 1200 messages"), r.err.constData());
    QCOMPARE(r.json().value("imported").toInt(), 1200);
    r = ctl({"queues", "browse", "wf.import", "--offset", "1199", "--limit", "1", "-o", "json"});
    QCOMPARE(r.json().value("total").toInt(), 1200);
    QVERIFY2(r.out.contains(R"("data":{"z":1199,"a":"xx"})"), r.out.constData()); // in order, as sent
}

void TestBrokerctlWorkflows::messageImportStopsAtTheFirstFailure()
{
    QFile file(path("twelve.jsonl"));
    QVERIFY(file.open(QIODevice::WriteOnly));
    for (int i = 0; i < 12; ++i)
        file.write("{\"data\":{\"n\":" + QByteArray::number(i) + "},\"priority\":0}\n");
    file.close();
    QCOMPARE(ctl({"queues", "create", "wf.small", "--max-size", "5"}).exitCode, 0);
    Run r = ctl({"import", "messages", "wf.small", file.fileName(), "--batch", "2"});
    QCOMPARE(r.exitCode, 3);
    QVERIFY2(r.err.contains("import stopped after 4 messages: 429"), r.err.constData());
    QCOMPARE(ctl({"queues", "info", "wf.small"}).json().value("message_count").toInt(), 4);

    QVERIFY(file.open(QIODevice::Append));
    file.write("not json\n");
    file.close();
    QCOMPARE(ctl({"queues", "purge", "wf.small"}).exitCode, 0);
    r = ctl({"import", "messages", "wf.small", file.fileName(), "--batch", "100"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("line 13: not an exported message"), r.err.constData());
}

// --state all takes the queue's ready, delayed and leased messages, in that order; an import
// publishes them all ready, but a delayed one with the rest of its delay.
void TestBrokerctlWorkflows::everyStateOutAndDelaysKeptOnImport()
{
    QCOMPARE(ctl({"queues", "create", "wf.states"}).exitCode, 0);
    QCOMPARE(ctl({"publish", "wf.states", R"("r1")"}).exitCode, 0);
    QCOMPARE(ctl({"publish", "wf.states", R"("r2")"}).exitCode, 0);
    QCOMPARE(ctl({"publish", "wf.states", R"("d1")", "--delay", "600"}).exitCode, 0);
    QCOMPARE(ctl({"consume", "wf.states", "--lease"}).exitCode, 0); // r1 is in flight
    Run r = ctl({"export", "messages", "wf.states", path("states.jsonl"), "--state", "all"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.err.contains("export: 3 messages (1 in_flight)"), r.err.constData());
    QFile file(path("states.jsonl"));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QList<QByteArray> exported = file.readAll().trimmed().split('\n');
    QCOMPARE(exported.size(), 3);
    const QList<QByteArray> expected{R"("r2")", R"("d1")", R"("r1")"};
    const QList<QByteArray> states{"ready", "delayed", "in_flight"};
    for (int i = 0; i < 3; ++i) {
        QVERIFY2(exported[i].contains("\"data\":" + expected[i]), exported[i].constData());
        QVERIFY2(exported[i].contains("\"state\":\"" + states[i] + '"'), exported[i].constData());
    }

    QCOMPARE(ctl({"queues", "create", "wf.states.copy"}).exitCode, 0);
    QCOMPARE(ctl({"import", "messages", "wf.states.copy", file.fileName()}).exitCode, 0);
    const QJsonObject info = ctl({"queues", "info", "wf.states.copy"}).json();
    QCOMPARE(info.value("message_count").toInt(), 2); // ready now: r2, and r1 no longer leased
    QCOMPARE(info.value("delayed").toInt(), 1);
    r = ctl({"queues", "browse", "wf.states.copy", "--state", "delayed", "-o", "json"});
    const QJsonObject delayed = r.json().value("messages").toArray().first().toObject();
    const double dueIn = delayed.value("visible_at").toDouble() - double(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
    QVERIFY2(dueIn > 590 && dueIn <= 601, qPrintable(QString::number(dueIn)));

    r = ctl({"export", "messages", "wf.states", "--state", "later"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("unknown state 'later' (expected: ready, delayed, in_flight, dead, all)"), r.err.constData());
}

void TestBrokerctlWorkflows::textOutputIsOneLinePerItem()
{
    QCOMPARE(ctl({"queues", "create", "wf.text.a"}).exitCode, 0);
    QCOMPARE(ctl({"queues", "create", "wf.text.b"}).exitCode, 0);
    const Run r = ctl({"queues", "list", "-o", "text"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(!r.out.contains("NAME"));
    QStringList names;
    for (const QByteArray &line : r.out.trimmed().split('\n'))
        names << QString::fromUtf8(line.split('\t').value(0));
    QVERIFY(names.contains("wf.text.a"));
    QVERIFY(names.contains("wf.text.b"));
    QCOMPARE(r.out.count('\n'), ctl({"queues", "list", "-o", "json"}).json().value("count").toInt());
    QVERIFY(ctl({"health", "-o", "text"}).out.contains("status\thealthy\n"));
}

void TestBrokerctlWorkflows::tablesShowIsoTimes()
{
    const QRegularExpression iso("\\b20\\d\\d-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d{3})?Z\\b");
    QVERIFY(iso.match(QString::fromUtf8(ctl({"users", "list", "-o", "table"}).out)).hasMatch());
    QVERIFY(iso.match(QString::fromUtf8(ctl({"queues", "list", "-o", "table"}).out)).hasMatch());
    QVERIFY(iso.match(QString::fromUtf8(ctl({"queues", "info", "wf.text.a", "-o", "table"}).out)).hasMatch());
}

void TestBrokerctlWorkflows::savedProfiles()
{
    // API_URL and API_KEY point nowhere: the profile decides.
    const QStringList wrong{"API_URL=http://127.0.0.1:1", "API_KEY=wrong", "RETRY_ATTEMPTS=0"};
    QDir().mkpath(path("config/brokerctl"));
    QFile key(path("config/brokerctl/local.key"));
    QVERIFY(key.open(QIODevice::WriteOnly));
    key.write(AdminKey + "\n");
    key.close();
    Run r = ctl({"profiles", "add", "local", "--url", m_broker.url, "--key-file", "local.key"}, {}, wrong);
    QCOMPARE(r.exitCode, 0);
    QVERIFY(QFile(path("config/brokerctl/config")).permissions()
            == (QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ReadUser | QFileDevice::WriteUser));
    QCOMPARE(ctl({"profiles", "add", "viacommand", "--url", m_broker.url, "--key-command", "cat " + key.fileName()},
                 {}, wrong)
                 .exitCode,
             0);
    r = ctl({"--profile", "local", "queues", "list", "-o", "json"}, {}, wrong);
    QCOMPARE(r.exitCode, 0);
    r = ctl({"--profile", "viacommand", "users", "list", "-o", "json"}, {}, wrong);
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(ctl({"health"}, {}, wrong + QStringList{"BROKERCTL_PROFILE=local"}).exitCode, 0);
    r = ctl({"profiles", "list", "-o", "json"}, {}, wrong);
    QCOMPARE(r.json().value("profiles").toArray().size(), 2);
    QVERIFY(!r.out.contains(AdminKey)); // the config names where the key is, never the key
    QFile config(path("config/brokerctl/config"));
    QVERIFY(config.open(QIODevice::ReadOnly));
    QVERIFY(!config.readAll().contains(AdminKey + "\n"));
    r = ctl({"--profile", "nosuch", "health"}, {}, wrong);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("no profile 'nosuch'"), r.err.constData());
}

void TestBrokerctlWorkflows::userChanges()
{
    QCOMPARE(ctl({"users", "add", "wf.user", "--roles", "publisher"}).exitCode, 0);
    QVERIFY(ctl({"users", "disable", "wf.user"}).json().value("disabled").toBool());
    QVERIFY(!ctl({"users", "enable", "wf.user"}).json().value("disabled").toBool());
    QCOMPARE(ctl({"users", "roles", "wf.user", "consumer,publisher"}).json().value("roles").toArray(),
             QJsonArray({"consumer", "publisher"}));
    const Run r = ctl({"users", "disable", "admin"});
    QCOMPARE(r.exitCode, 3);
    QVERIFY2(r.err.contains("409 Cannot remove the last admin"), r.err.constData());
}

void TestBrokerctlWorkflows::errorsAndEvents()
{
    Run r = ctl({"errors", "-o", "json"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.json().value("errors").isArray());
    QVERIFY(ctl({"errors", "-o", "table"}).out.startsWith("LAST SEEN"));
    QCOMPARE(ctl({"queues", "create", "wf.events"}).exitCode, 0);
    const QString id = ctl({"publish", "wf.events", "1"}).json().value("message_id").toString();
    QCOMPARE(ctl({"consume", "wf.events"}).exitCode, 0);
    r = ctl({"events", "wf.events", "-o", "json"});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.json().value("events").toArray().at(0).toObject().value("event").toString(), QString("published"));
    r = ctl({"events", "wf.events", id, "-o", "table"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("published") && r.out.contains(id.toLatin1()), r.out.constData());
}

void TestBrokerctlWorkflows::unknownCommandGetsAOneLineHint_data()
{
    QTest::addColumn<QString>("command");
    QTest::addColumn<QByteArray>("hint");
    QTest::addRow("typo")
        << "queus"
        << QByteArray("unknown command 'queus' (did you mean 'queues'?); 'brokerctl help' lists the commands");
    QTest::addRow("prefix") << "expo" << QByteArray("(did you mean 'export'?)");
    QTest::addRow("nothing-close") << "frobnicate"
                                   << QByteArray("unknown command 'frobnicate'; 'brokerctl help' lists the commands");
}

void TestBrokerctlWorkflows::unknownCommandGetsAOneLineHint()
{
    QFETCH(QString, command);
    QFETCH(QByteArray, hint);
    const Run r = ctl({command});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(hint), r.err.constData());
    QCOMPARE(r.err.count('\n'), 1);
    QVERIFY(ctl({"help"}).out.contains("export messages QUEUE [FILE]"));
}

QTEST_GUILESS_MAIN(TestBrokerctlWorkflows)
#include "tst_brokerctlworkflows.moc"
