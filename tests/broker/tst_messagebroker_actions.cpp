// SPDX-License-Identifier: GPL-3.0-or-later
// MessageBroker's actions on chosen messages (delete, requeue, move, dead-letter) and the redrive
// with a selection, edited payloads and a dry run.
// Built twice, like every tst_messagebroker_*: on the memory store and on the Redis store
// (BROKER_TEST_STORE=redis).
#include "enginefixture.h"

#include <QTest>

using namespace Broker;
using namespace Broker::Testing;

class TestMessageBrokerActions : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void actionsFindMessagesInEveryState_data();
    void actionsFindMessagesInEveryState();
    void actionRefusals_data();
    void actionRefusals();
    void requeueEndsTheLease();
    void moveStartsAfresh();
    void actionsOnAStream();
    void redriveSelectedWithEdits();
    void dryRunMovesNothing();
    void limitCountsWhatMoves();
    void redriveRefusals_data();
    void redriveRefusals();
    void deadLetterQueueNotMadeYetHoldsNothing();
};

namespace {

using Kind = MessageAction::Kind;

struct Scene
{
    QString ready, delayed, leased, other;
};

// orders (dlq orders.dlq): one message ready, one delayed, one leased; plus one ready in "other".
Scene setUp(EngineFixture &f)
{
    Scene s;
    if (!f.create(QStringLiteral("orders"), jsonObject(R"({"dead_letter_queue":true,"max_deliveries":3})")))
        qFatal("create failed");
    if (!f.create(QStringLiteral("other"), jsonObject(R"({"max_size":2})")))
        qFatal("create failed");
    s.leased = f.publish(QStringLiteral("orders"), {"\"leased\""})->messageIds().first();
    if (!f.consume(QStringLiteral("orders"), 1, false))
        qFatal("consume failed");
    s.ready = f.publish(QStringLiteral("orders"), {R"({"z":1,"a":2})"})->messageIds().first();
    s.delayed = f.publish(QStringLiteral("orders"), {"\"later\""}, QStringLiteral("alice"), 60'000)->messageIds().first();
    s.other = f.publish(QStringLiteral("other"), {"\"x\""})->messageIds().first();
    return s;
}

Result<MessageActionResult> act(EngineFixture &f, Kind kind, const QList<QString> &ids, const QString &target = {},
                                const QString &queue = QStringLiteral("orders"))
{
    MessageAction action;
    action.kind = kind;
    action.ids = ids;
    action.target = target;
    action.user = QStringLiteral("admin");
    Captured<MessageActionResult> c;
    f.broker.messageAction(queue, action, c.sink());
    return c.take();
}

Result<RedriveResult> redrive(EngineFixture &f, const QString &queue, const QList<QString> &ids,
                              const QHash<QString, QByteArray> &edits, bool dryRun, qint64 limit = 0)
{
    RedriveRequest request;
    request.ids = ids;
    request.edits = edits;
    request.dryRun = dryRun;
    request.limit = limit;
    request.user = QStringLiteral("admin");
    Captured<RedriveResult> c;
    f.broker.redrive(queue, request, c.sink());
    return c.take();
}

QList<QString> idsIn(EngineFixture &f, const QString &queue, MessageState state)
{
    BrowseQuery query;
    query.state = state;
    const Result<BrowsePage> page = f.browse(queue, query);
    QList<QString> ids;
    if (!page)
        return {QStringLiteral("browse failed: ") + page.error().message};
    for (const Message &message : page.value().messages)
        ids.append(message.id);
    return ids;
}

// Two messages of orders dead-lettered into orders.dlq; their ids, in order.
QList<QString> deadLetterTwo(EngineFixture &f)
{
    QList<QString> ids;
    for (const QByteArray &payload : {QByteArray(R"({"v":1,"k":"a"})"), QByteArray(R"({"v":2,"k":"b"})")})
        ids.append(f.publish(QStringLiteral("orders"), {payload})->messageIds().first());
    if (!act(f, Kind::DeadLetter, ids))
        qFatal("dead-letter failed");
    return ids;
}

} // namespace

void TestMessageBrokerActions::actionsFindMessagesInEveryState_data()
{
    QTest::addColumn<int>("kind");
    QTest::addRow("delete") << int(Kind::Delete);
    QTest::addRow("move") << int(Kind::Move);
    QTest::addRow("dead_letter") << int(Kind::DeadLetter);
    QTest::addRow("requeue") << int(Kind::Requeue);
}

void TestMessageBrokerActions::actionsFindMessagesInEveryState()
{
    QFETCH(int, kind);
    EngineFixture f;
    const Scene s = setUp(f);
    QVERIFY(f.update(QStringLiteral("other"), jsonObject(R"({"max_size":10})")));
    const Result<MessageActionResult> result =
        act(f, Kind(kind), {s.ready, s.delayed, s.leased, s.other, QStringLiteral("msg-nope")},
            Kind(kind) == Kind::Move ? QStringLiteral("other") : QString());
    QVERIFY2(result, result ? "" : qPrintable(result.error().message));
    QCOMPARE(result->affected, 3);
    // Not in this queue: the other queue's message, and an id nobody has.
    QCOMPARE(result->missing, (QList<QString>{s.other, QStringLiteral("msg-nope")}));
    const Result<QueueInfo> info = f.info(QStringLiteral("orders"));
    switch (Kind(kind)) {
    case Kind::Delete:
        QCOMPARE(info->size(), 0);
        break;
    case Kind::Move:
        QCOMPARE(info->size(), 0);
        QCOMPARE(f.info(QStringLiteral("other"))->depth, 4);
        break;
    case Kind::DeadLetter: {
        QCOMPARE(info->size(), 0);
        QCOMPARE(info->counters.deadLettered, 3);
        BrowseQuery dead;
        dead.state = MessageState::Dead;
        const BrowsePage page = *f.browse(QStringLiteral("orders"), dead);
        QCOMPARE(page.total, 3);
        QCOMPARE(page.messages.first().deadLetterReason, QStringLiteral("manual"));
        break;
    }
    case Kind::Requeue:
        QCOMPARE(info->depth, 3);
        QCOMPARE(info->delayed, 0);
        QCOMPARE(info->inFlight, 0);
        break;
    }
}

void TestMessageBrokerActions::actionRefusals_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("queue");
    QTest::addColumn<QString>("target");
    QTest::addColumn<bool>("withIds");
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("error");

    QTest::addRow("no-ids") << int(Kind::Delete) << "orders" << "" << false << int(ErrorCode::InvalidArgument)
                            << "ids is required: the messages to act on";
    QTest::addRow("move-no-target") << int(Kind::Move) << "orders" << "" << true << int(ErrorCode::InvalidArgument)
                                    << "target is required: the queue to move to";
    QTest::addRow("move-to-itself") << int(Kind::Move) << "orders" << "orders" << true
                                    << int(ErrorCode::InvalidArgument)
                                    << "Invalid target: the messages are in that queue already";
    QTest::addRow("move-bad-target") << int(Kind::Move) << "orders" << "a b" << true << int(ErrorCode::InvalidArgument)
                                     << "Invalid queue name";
    QTest::addRow("move-missing-target") << int(Kind::Move) << "orders" << "nope" << true
                                         << int(ErrorCode::NotFound) << "Target queue not found";
    QTest::addRow("move-target-full") << int(Kind::Move) << "orders" << "other" << true << int(ErrorCode::QueueFull)
                                      << "Queue size limit reached";
    QTest::addRow("dead-letter-without-dlq") << int(Kind::DeadLetter) << "other" << "" << true
                                             << int(ErrorCode::Conflict) << "Queue has no dead-letter queue";
    QTest::addRow("missing-queue") << int(Kind::Delete) << "nope" << "" << true << int(ErrorCode::QueueNotFound)
                                   << "Queue not found";
}

void TestMessageBrokerActions::actionRefusals()
{
    QFETCH(int, kind);
    QFETCH(QString, queue);
    QFETCH(QString, target);
    QFETCH(bool, withIds);
    QFETCH(int, code);
    QFETCH(QString, error);

    EngineFixture f;
    const Scene s = setUp(f);
    const Result<MessageActionResult> result =
        act(f, Kind(kind), withIds ? QList<QString>{s.ready, s.delayed} : QList<QString>{}, target, queue);
    QVERIFY(!result);
    QCOMPARE(int(result.error().code), code);
    QCOMPARE(result.error().message, error);
    // Nothing happened.
    QCOMPARE(f.info(QStringLiteral("orders"))->size(), 3);
    QCOMPARE(f.info(QStringLiteral("other"))->size(), 1);
}

void TestMessageBrokerActions::requeueEndsTheLease()
{
    EngineFixture f;
    QVERIFY(f.create(QStringLiteral("q")));
    QVERIFY(f.publish(QStringLiteral("q"), numbers(1, 2)));
    const Message leased = f.consume(QStringLiteral("q"), 1, false)->first();
    QCOMPARE(act(f, Kind::Requeue, {leased.id}, {}, QStringLiteral("q"))->affected, 1);
    // The old receipt proves nothing any more; the message is next in line again, its deliveries kept.
    QVERIFY(!f.ack(QStringLiteral("q"), leased.id, leased.receipt));
    const Message again = f.consume(QStringLiteral("q"), 1, false)->first();
    QCOMPARE(again.id, leased.id);
    QCOMPARE(again.deliveryCount, 2);
}

void TestMessageBrokerActions::moveStartsAfresh()
{
    EngineFixture f;
    const Scene s = setUp(f);
    QVERIFY(f.update(QStringLiteral("other"), jsonObject(R"({"max_size":10})")));
    QCOMPARE(act(f, Kind::Move, {s.leased, s.ready}, QStringLiteral("other"))->affected, 2);
    QCOMPARE(idsIn(f, QStringLiteral("other"), MessageState::Ready), (QList<QString>{s.other, s.leased, s.ready}));
    const QList<Message> moved = *f.consume(QStringLiteral("other"), 3);
    QCOMPARE(moved.at(1).deliveryCount, 1); // counted afresh in its new queue
    QCOMPARE(moved.at(2).data, QByteArray(R"({"z":1,"a":2})")); // bytes as published
}

void TestMessageBrokerActions::actionsOnAStream()
{
    EngineFixture f;
    QVERIFY(f.create(QStringLiteral("s"), jsonObject(R"({"type":"stream","dead_letter_queue":true})")));
    QVERIFY(f.create(QStringLiteral("plain")));
    const QList<QString> ids = f.publish(QStringLiteral("s"), numbers(1, 4))->messageIds();
    const QList<Message> leased = *f.consume(QStringLiteral("s"), 2, false, 0, QStringLiteral("g"), QStringLiteral("c"));
    QCOMPARE(act(f, Kind::Requeue, {ids[0]}, {}, QStringLiteral("s"))->affected, 1);
    QCOMPARE(idsIn(f, QStringLiteral("s"), MessageState::InFlight), QList<QString>{ids[1]});
    QCOMPARE(act(f, Kind::Delete, {ids[1]}, {}, QStringLiteral("s"))->affected, 1);
    QCOMPARE(act(f, Kind::Move, {ids[2]}, QStringLiteral("plain"), QStringLiteral("s"))->affected, 1);
    QCOMPARE(act(f, Kind::DeadLetter, {ids[3]}, {}, QStringLiteral("s"))->affected, 1);
    QCOMPARE(idsIn(f, QStringLiteral("s"), MessageState::Ready), QList<QString>{ids[0]});
    QCOMPARE(idsIn(f, QStringLiteral("plain"), MessageState::Ready), QList<QString>{ids[2]});
    QCOMPARE(idsIn(f, QStringLiteral("s.dlq"), MessageState::Ready), QList<QString>{ids[3]});
}

void TestMessageBrokerActions::redriveSelectedWithEdits()
{
    EngineFixture f;
    setUp(f);
    const QList<QString> dead = deadLetterTwo(f);
    // The second goes back edited (keys in the editor's order); the first stays dead.
    const QByteArray edited = R"({"v":20,"k":"b","fixed":true})";
    const Result<RedriveResult> result = redrive(f, QStringLiteral("orders"), {dead[1], QStringLiteral("msg-gone")},
                                                 {{dead[1], edited}}, false);
    QVERIFY2(result, result ? "" : qPrintable(result.error().message));
    QCOMPARE(result->moved, 1);
    QCOMPARE(result->messages.size(), 1);
    QCOMPARE(result->messages.first().id, dead[1]);
    QCOMPARE(result->messages.first().origin, QStringLiteral("orders"));
    QCOMPARE(result->messages.first().before, QByteArray(R"({"v":2,"k":"b"})"));
    QCOMPARE(result->messages.first().after, edited);
    QCOMPARE(result->missing, QList<QString>{QStringLiteral("msg-gone")});
    BrowseQuery deadState;
    deadState.state = MessageState::Dead;
    QCOMPARE(f.browse(QStringLiteral("orders"), deadState)->total, 1);
    BrowseQuery back;
    back.id = dead[1];
    QCOMPARE(f.browse(QStringLiteral("orders"), back)->messages.first().data, edited);
    QCOMPARE(f.info(QStringLiteral("orders"))->counters.redriven, 1);

    // Edits alone choose their messages: the unedited one does not come along.
    const Result<RedriveResult> only = redrive(f, QStringLiteral("orders.dlq"), {}, {{dead[0], QByteArray("7")}}, false);
    QCOMPARE(only->moved, 1);
    back.id = dead[0];
    QCOMPARE(f.browse(QStringLiteral("orders"), back)->messages.first().data, QByteArray("7"));
}

void TestMessageBrokerActions::dryRunMovesNothing()
{
    EngineFixture f;
    setUp(f);
    const QList<QString> dead = deadLetterTwo(f);
    const QByteArray edited = R"({"k":"a","v":10})";
    const Result<RedriveResult> preview = redrive(f, QStringLiteral("orders"), {}, {}, true);
    QVERIFY2(preview, preview ? "" : qPrintable(preview.error().message));
    QCOMPARE(preview->moved, 2);
    QCOMPARE(preview->messages.size(), 2);
    const Result<RedriveResult> diff = redrive(f, QStringLiteral("orders"), {dead[0]}, {{dead[0], edited}}, true);
    QCOMPARE(diff->moved, 1);
    QCOMPARE(diff->messages.first().before, QByteArray(R"({"v":1,"k":"a"})"));
    QCOMPARE(diff->messages.first().after, edited);
    QCOMPARE(redrive(f, QStringLiteral("orders"), {}, {}, true, 1)->moved, 1); // the limit holds too
    // Nothing moved: both still dead, orders untouched.
    BrowseQuery deadState;
    deadState.state = MessageState::Dead;
    QCOMPARE(f.browse(QStringLiteral("orders"), deadState)->total, 2);
    QCOMPARE(f.info(QStringLiteral("orders"))->counters.redriven, 0);
    // A message whose origin is gone would stay: the dry run says so by leaving it out.
    QVERIFY(f.remove(QStringLiteral("orders")));
    QCOMPARE(redrive(f, QStringLiteral("orders.dlq"), {}, {}, true)->moved, 0);
}

// A message whose origin queue is gone stays where it is, in its place, and does not count
// towards the limit: the limit is how many move. The dry run answers the same.
void TestMessageBrokerActions::limitCountsWhatMoves()
{
    EngineFixture f;
    const QJsonObject options = jsonObject(R"({"max_deliveries":1,"dead_letter_queue":"dead"})");
    for (const QString &queue : {QStringLiteral("a"), QStringLiteral("b")})
        QVERIFY(f.create(queue, options));
    // In "dead", front to back: b1, a1, b2, a2, a3.
    QList<QString> order;
    for (const auto &[queue, payload] : QList<std::pair<QString, QByteArray>>{
             {QStringLiteral("b"), "\"b1\""}, {QStringLiteral("a"), "\"a1\""}, {QStringLiteral("b"), "\"b2\""},
             {QStringLiteral("a"), "\"a2\""}, {QStringLiteral("a"), "\"a3\""}}) {
        QVERIFY(f.publish(queue, {payload}));
        const Message m = f.consume(queue, 1, false)->first();
        QVERIFY(f.nack(queue, m.id, m.receipt)->deadLettered);
        order.append(m.id);
    }
    QVERIFY(f.remove(QStringLiteral("b")));

    const Result<RedriveResult> preview = redrive(f, QStringLiteral("dead"), {}, {}, true, 2);
    QVERIFY2(preview, preview ? "" : qPrintable(preview.error().message));
    QCOMPARE(preview->moved, 2);
    QCOMPARE(preview->messages.size(), 2);
    QCOMPARE(preview->messages[0].id, order[1]);
    QCOMPARE(preview->messages[1].id, order[3]);

    const Result<RedriveResult> result = redrive(f, QStringLiteral("dead"), {}, {}, false, 2);
    QVERIFY2(result, result ? "" : qPrintable(result.error().message));
    QCOMPARE(result->moved, 2);
    QCOMPARE(payloadsOf(*f.consume(QStringLiteral("a"), 10)), (QList<QByteArray>{"\"a1\"", "\"a2\""}));
    // b's stay in their places, a3 behind them as before.
    QCOMPARE(idsIn(f, QStringLiteral("dead"), MessageState::Ready), (QList<QString>{order[0], order[2], order[4]}));
}

void TestMessageBrokerActions::redriveRefusals_data()
{
    QTest::addColumn<QByteArray>("edit");
    QTest::addColumn<bool>("editOutsideIds");
    QTest::addColumn<QString>("error");
    QTest::addRow("edit-is-null") << QByteArray("null") << false << "Invalid edit of %1: Message is required";
    QTest::addRow("edit-not-selected") << QByteArray("1") << true << "Invalid edits: message %1 is not among the ids";
}

void TestMessageBrokerActions::redriveRefusals()
{
    QFETCH(QByteArray, edit);
    QFETCH(bool, editOutsideIds);
    QFETCH(QString, error);
    EngineFixture f;
    setUp(f);
    const QList<QString> dead = deadLetterTwo(f);
    const Result<RedriveResult> result =
        redrive(f, QStringLiteral("orders"), editOutsideIds ? QList<QString>{dead[1]} : QList<QString>{}, {{dead[0], edit}}, false);
    QVERIFY(!result);
    QCOMPARE(result.error().code, ErrorCode::InvalidArgument);
    QCOMPARE(result.error().message, error.arg(dead[0]));
}

// A dead-letter queue is made by the first message it gets (on a cluster, "fresh.dlq" is in
// another slot than "fresh"): until then the dead state is empty and a redrive moves nothing.
void TestMessageBrokerActions::deadLetterQueueNotMadeYetHoldsNothing()
{
    EngineFixture f;
    QVERIFY(f.create(QStringLiteral("fresh"), jsonObject(R"({"dead_letter_queue":true})")));
    QVERIFY(f.publish(QStringLiteral("fresh"), {"1"}));
    QCOMPARE(idsIn(f, QStringLiteral("fresh"), MessageState::Dead), QList<QString>{});
    const Result<RedriveResult> result = redrive(f, QStringLiteral("fresh"), {}, {}, false);
    QVERIFY2(result, result ? "" : qPrintable(result.error().message));
    QCOMPARE(result->moved, 0);
    QCOMPARE(idsIn(f, QStringLiteral("fresh"), MessageState::Ready).size(), 1);
}

QTEST_GUILESS_MAIN(TestMessageBrokerActions)
#include "tst_messagebroker_actions.moc"
