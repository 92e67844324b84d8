// SPDX-License-Identifier: GPL-3.0-or-later
// RemoteFeed against a broker's REST API on a free loopback port: who the key is, the broker's
// queues and message events as snapshots, a refused key, and a broker that goes away and comes
// back on the same port (the feed reconnects and resumes with Last-Event-ID, missing nothing).
#include "remoteendpoint.h"

#include "runtime/remotefeed.h"

#include <QSignalSpy>
#include <QTest>

using namespace Broker;
using namespace Broker::Testing;

namespace {

// Every message event the feed's snapshots carried, in order.
struct EventRecorder
{
    explicit EventRecorder(RemoteFeed &feed)
    {
        QObject::connect(&feed, &RemoteFeed::snapshotUpdated, &feed, [this](const BrokerSnapshot &snapshot) {
            events += snapshot.recentEvents;
            last = snapshot;
        });
    }
    QList<MessageEvent> events;
    BrokerSnapshot last;
};

void publishDirectly(RestFixture &f, const QString &queue, int count)
{
    for (int i = 0; i < count; ++i) {
        bool done = false;
        NewMessage message;
        message.data = "{\"n\":" + QByteArray::number(i) + '}';
        f.broker.publish(queue, {message}, QStringLiteral("test"),
                         [&](Result<PublishResult> result) {
                             QVERIFY(result.ok());
                             done = true;
                         });
        QTRY_VERIFY(done);
    }
}

} // namespace

class TestRemoteFeed : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void followsTheBrokerLive()
    {
        RestFixture f;
        QCOMPARE(f.request("POST", "/queues", AdminKey, R"({"name":"orders"})").status, 200);
        RemoteFeed feed(endpointOf(f, AdminKey));
        EventRecorder recorder(feed);
        feed.start();
        QTRY_COMPARE(feed.state(), RemoteFeed::State::Connected);
        QCOMPARE(feed.userId(), QStringLiteral("admin_user"));
        QVERIFY(feed.allows(QStringLiteral("manage_users")));
        QTRY_COMPARE(recorder.last.queues.size(), 1);
        QCOMPARE(recorder.last.queues.first().name, QStringLiteral("orders"));
        QCOMPARE(recorder.last.storage, f.broker.storageBackend());

        QCOMPARE(f.request("POST", "/messages/orders", AdminKey, R"({"message":{"n":1}})").status, 200);
        QTRY_COMPARE(recorder.events.size(), 1);
        QCOMPARE(recorder.events.first().kind, MessageEventKind::Published);
        QCOMPARE(recorder.events.first().queue, QStringLiteral("orders"));
        QCOMPARE(recorder.events.first().user, QStringLiteral("admin_user"));
        QTRY_COMPARE(recorder.last.queues.first().depth, 1);
        QTRY_COMPARE(recorder.last.messagesTotal, 1);
        QVERIFY(feed.lastHeardMs() > 0);
    }

    void aRefusedKeyStopsWithAuthFailed()
    {
        RestFixture f;
        RemoteFeed feed(endpointOf(f, "not-a-key-of-this-broker"));
        feed.start();
        QTRY_COMPARE(feed.state(), RemoteFeed::State::AuthFailed);
        QVERIFY2(feed.problem().contains(QStringLiteral("401")), qPrintable(feed.problem()));
        QTest::qWait(1200); // no retry with a refused key
        QCOMPARE(feed.state(), RemoteFeed::State::AuthFailed);
    }

    void aLimitedKeyKnowsWhatItMayDo()
    {
        RestFixture f;
        QVERIFY(f.policy.defineRole("orders_watcher", {"peek:orders*"}).ok());
        const Result<IssuedKey> watcher = f.users.addUser("watcher", "Watcher", {"orders_watcher"});
        QVERIFY(watcher.ok());
        QCOMPARE(f.request("POST", "/queues", AdminKey, R"({"name":"orders"})").status, 200);
        QCOMPARE(f.request("POST", "/queues", AdminKey, R"({"name":"payroll"})").status, 200);
        RemoteFeed feed(endpointOf(f, watcher->apiKey.toLatin1()));
        EventRecorder recorder(feed);
        feed.start();
        QTRY_COMPARE(feed.state(), RemoteFeed::State::Connected);
        QVERIFY(!feed.allows(QStringLiteral("manage_users")));
        QVERIFY(!feed.allows(QStringLiteral("list_queues")));
        QVERIFY(feed.allows(QStringLiteral("peek:orders.eu")));
        QCOMPARE(f.request("POST", "/messages/payroll", AdminKey, R"({"message":1})").status, 200);
        QCOMPARE(f.request("POST", "/messages/orders", AdminKey, R"({"message":2})").status, 200);
        QTRY_COMPARE(recorder.events.size(), 1);
        QCOMPARE(recorder.events.first().queue, QStringLiteral("orders"));
        QVERIFY(recorder.last.queues.isEmpty()); // no list_queues: no counters
    }

    // The broker goes away; the feed says it is reconnecting and keeps the last snapshot; the
    // broker comes back on the same port and the feed resumes after the last event it had: the
    // events made meanwhile all arrive, once each, and nothing is reported missed.
    void reconnectsAndResumesWithoutLoss()
    {
        RestFixture f;
        QCOMPARE(f.request("POST", "/queues", AdminKey, R"({"name":"orders"})").status, 200);
        RemoteFeed feed(endpointOf(f, AdminKey));
        EventRecorder recorder(feed);
        feed.start();
        QTRY_COMPARE(feed.state(), RemoteFeed::State::Connected);
        publishDirectly(f, QStringLiteral("orders"), 2);
        QTRY_COMPARE(recorder.events.size(), 2);

        const quint16 port = f.port;
        f.server.reset();
        QTRY_COMPARE(feed.state(), RemoteFeed::State::Reconnecting);
        QVERIFY(!feed.problem().isEmpty());
        QCOMPARE(feed.snapshot().queues.size(), 1); // the last one, stale, not emptied
        publishDirectly(f, QStringLiteral("orders"), 3);

        Rest::RestOptions options;
        if (RestFixture::tlsByDefault())
            options.tls = RestFixture::suiteTls();
        f.server = std::make_unique<Rest::RestServer>(Rest::RestContext{f.broker, f.users, f.policy, f.errors, f.clock, options});
        const Result<quint16> listening = f.server->listen(QHostAddress::LocalHost, port);
        QVERIFY2(listening.ok(), qPrintable(listening ? QString() : listening.error().message));
        QTRY_VERIFY_WITH_TIMEOUT(feed.state() == RemoteFeed::State::Connected, 20'000);
        QTRY_COMPARE(recorder.events.size(), 5);
        for (qsizetype i = 1; i < recorder.events.size(); ++i)
            QCOMPARE(recorder.events[i].number, recorder.events[i - 1].number + 1);
        QCOMPARE(feed.eventsMissed(), 0);
        QTRY_COMPARE(recorder.last.queues.first().depth, 5);
    }
};

QTEST_GUILESS_MAIN(TestRemoteFeed)
#include "tst_remotefeed.moc"
