// SPDX-License-Identifier: GPL-3.0-or-later
// How the events a Redis script reports reach the store's listener: decoding, who is named as
// the user, and where messages became deliverable.
#include "storage/knownqueues.h"
#include "storage/rediseventrelay.h"

#include "core/messageid.h"

#include "../support/redisreplies.h"

#include <QTest>

using namespace Broker;
using Redis::RedisReply;

namespace {

const auto text = Testing::textReply;

// A script's event list: five strings per event (lib.lua's event()).
RedisReply eventList(const QList<QByteArrayList> &events, const QByteArrayList &tail = {})
{
    RedisReply list;
    list.type = RedisReply::Type::Array;
    for (const QByteArrayList &e : events)
        for (const QByteArray &field : e)
            list.elements.append(text(field));
    for (const QByteArray &field : tail)
        list.elements.append(text(field));
    return list;
}

struct Recorder final : StoreListener
{
    void messageEvent(const MessageEvent &event) override { events.append(event); }
    void messagesAvailable(const QString &queue) override { available.append(queue); }
    void storeIncident(const StoreIncident &incident) override { incidents.append(incident.code); }
    QList<MessageEvent> events;
    QStringList available;
    QStringList incidents;
};

} // namespace

class TestRedisEventRelay : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void scriptEventsReachTheListener_data();
    void scriptEventsReachTheListener();
    void unknownKindsAndATruncatedTailAreLeftOut();
    void withoutAListenerIncidentsGoToTheLog();
};

void TestRedisEventRelay::scriptEventsReachTheListener_data()
{
    QTest::addColumn<QByteArray>("kind");
    QTest::addColumn<int>("expectedKind");
    QTest::addColumn<QString>("user");
    QTest::addColumn<QStringList>("available");
    QTest::addRow("acked-by-the-caller") << QByteArray("Acked") << int(MessageEventKind::Acked) << "bob" << QStringList{};
    QTest::addRow("nacked-by-the-caller") << QByteArray("Nacked") << int(MessageEventKind::Nacked) << "bob"
                                          << QStringList{};
    QTest::addRow("redriven-by-the-caller-and-deliverable")
        << QByteArray("Redriven") << int(MessageEventKind::Redriven) << "bob" << QStringList{"orders"};
    QTest::addRow("expired-by-the-broker") << QByteArray("Expired") << int(MessageEventKind::Expired) << ""
                                           << QStringList{};
    QTest::addRow("dead-lettered-deliverable-in-the-dlq")
        << QByteArray("DeadLettered") << int(MessageEventKind::DeadLettered) << "" << QStringList{"orders.dlq"};
}

void TestRedisEventRelay::scriptEventsReachTheListener()
{
    QFETCH(QByteArray, kind);
    QFETCH(int, expectedKind);
    QFETCH(QString, user);
    QFETCH(QStringList, available);
    ManualClock clock;
    Recorder recorder;
    RedisEventRelay relay(clock);
    relay.setListener(&recorder);
    KnownQueues known;
    QueueConfig config;
    config.deadLetterQueue = "orders.dlq";
    known.remember("orders", config, 0);
    const QByteArray id = MessageId::format(42).toLatin1();
    relay.relay(eventList({{kind, "orders", id, "3", "why"}}), "bob", known);
    QCOMPARE(recorder.events.size(), 1);
    const MessageEvent &event = recorder.events.first();
    QCOMPARE(int(event.kind), expectedKind);
    QCOMPARE(event.queue, QString("orders"));
    QCOMPARE(event.sequence, quint64(42));
    QCOMPARE(event.deliveryCount, 3);
    QCOMPARE(event.detail, QString("why"));
    QCOMPARE(event.user, user);
    QCOMPARE(event.timeMs, clock.nowMs());
    QCOMPARE(recorder.available, available);
}

void TestRedisEventRelay::unknownKindsAndATruncatedTailAreLeftOut()
{
    ManualClock clock;
    Recorder recorder;
    RedisEventRelay relay(clock);
    relay.setListener(&recorder);
    KnownQueues known;
    relay.relay(eventList({{"Teleported", "q", "", "0", ""}, {"Expired", "q", "", "1", ""}}, {"Acked", "q"}), "bob",
                known);
    QCOMPARE(recorder.events.size(), 1);
    QCOMPARE(recorder.events.first().kind, MessageEventKind::Expired);
}

void TestRedisEventRelay::withoutAListenerIncidentsGoToTheLog()
{
    ManualClock clock;
    RedisEventRelay relay(clock);
    QTest::ignoreMessage(QtWarningMsg, "spool blocked for a test");
    relay.report(StoreIncident::Level::Error, "spool_blocked", "spool blocked for a test");
    Recorder recorder;
    relay.setListener(&recorder);
    relay.report(StoreIncident::Level::Error, "spool_blocked", "spool blocked for a test");
    QCOMPARE(recorder.incidents, QStringList{"spool_blocked"});
}

QTEST_APPLESS_MAIN(TestRedisEventRelay)
#include "tst_rediseventrelay.moc"
