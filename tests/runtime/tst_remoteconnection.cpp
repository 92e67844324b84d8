// SPDX-License-Identifier: GPL-3.0-or-later
// RemoteConnection against a REST server in the test: online with the key's permissions, the
// snapshots with what the stream does not carry (processors from GET /processors, the uptime from
// GET /health), the users and errors directory, and a key that may see none of those.
#include "remoteendpoint.h"

#include "runtime/remoteconnection.h"

#include <QTest>

using namespace Broker;
using namespace Broker::Testing;

class TestRemoteConnection : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void snapshotsCarryProcessorsUptimeAndTheDirectory()
    {
        RestFixture f;
        QCOMPARE(f.request("POST", "/queues", AdminKey, R"({"name":"handled"})").status, 200);
        f.broker.registerProcessor(QStringLiteral("handled"), [](const Message &) { return true; });
        f.errors.record(Severity::Warning, QStringLiteral("storage"), QStringLiteral("slow"), QStringLiteral("it was slow"));
        RemoteConnection connection(QStringLiteral("test"), endpointOf(f, AdminKey));
        BrokerSnapshot last;
        HostDirectory directory;
        connect(&connection, &BrokerConnection::snapshotUpdated, this, [&](const BrokerSnapshot &s) { last = s; });
        connect(&connection, &BrokerConnection::directoryUpdated, this, [&](const HostDirectory &d) { directory = d; });
        connection.start();
        QTRY_COMPARE(connection.link(), BrokerConnection::Link::Online);
        QVERIFY(connection.allows(QStringLiteral("manage_users")));
        QVERIFY(!connection.isEmbedded());
        QVERIFY(connection.linkText().startsWith(QStringLiteral("connected as admin_user")));
        QTRY_COMPARE(directory.users.size(), f.users.users().size());
        QVERIFY(!directory.errors.isEmpty());
        QVERIFY(directory.errorTotals[size_t(Severity::Warning)] >= 1);
        // The processors arrive with a snapshot once read; an idle broker's snapshot comes each second.
        QTRY_VERIFY_WITH_TIMEOUT(!last.processors.isEmpty(), 8000);
        QCOMPARE(last.processors.first().queue, QStringLiteral("handled"));
        QCOMPARE(last.queues.size(), 1);
        QVERIFY(connection.description().ok);
        QCOMPARE(connection.description().storage, f.broker.storageBackend());
        QVERIFY(connection.description().roles.contains(QStringLiteral("consumer")));
    }

    void aConsumersKeyReadsNeitherUsersNorProcessors()
    {
        RestFixture f;
        QCOMPARE(f.request("POST", "/queues", AdminKey, R"({"name":"handled"})").status, 200);
        f.broker.registerProcessor(QStringLiteral("handled"), [](const Message &) { return true; });
        RemoteConnection connection(QStringLiteral("test"), endpointOf(f, ConsumerKey));
        int directories = 0;
        BrokerSnapshot last;
        connect(&connection, &BrokerConnection::directoryUpdated, this, [&] { ++directories; });
        connect(&connection, &BrokerConnection::snapshotUpdated, this, [&](const BrokerSnapshot &s) { last = s; });
        connection.start();
        QTRY_COMPARE(connection.link(), BrokerConnection::Link::Online);
        QVERIFY(!connection.allows(QStringLiteral("manage_users")));
        QTRY_COMPARE(last.queues.size(), 1);
        QTest::qWait(1500);
        QCOMPARE(directories, 0);          // nothing asked that would be refused
        QVERIFY(last.processors.isEmpty()); // view_metrics it has not
        QVERIFY(connection.description().roles.isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestRemoteConnection)
#include "tst_remoteconnection.moc"
