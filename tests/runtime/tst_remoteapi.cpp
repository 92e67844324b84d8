// SPDX-License-Identifier: GPL-3.0-or-later
// RemoteApi against a broker's REST API on a free loopback port: every command's result compared
// with what the broker then holds, the broker's refusals as the engine's error codes, a rate
// limit, and a certificate the endpoint does not trust. The transport's own failures are in
// tst_remoteapi_transport.cpp.
#include "remoteapitest.h"
#include "remoteendpoint.h"

#include "runtime/remoteapi.h"

#include "core/messageid.h"

#include <QJsonArray>
#include <QTest>

#include <functional>
#include <memory>

using namespace Broker;
using namespace Broker::Testing;

namespace {

void publishDirectly(RestFixture &f, const QString &queue, const QList<QByteArray> &payloads, const QJsonObject &headers = {})
{
    QList<NewMessage> messages;
    for (const QByteArray &payload : payloads) {
        NewMessage message;
        message.data = payload;
        message.headers = headers;
        messages.append(message);
    }
    bool done = false;
    f.broker.publish(queue, messages, QStringLiteral("test"), [&](Result<PublishResult> result) {
        QVERIFY(result.ok());
        done = true;
    });
    QTRY_VERIFY(done);
}

BrowsePage browseDirectly(RestFixture &f, const QString &queue, const BrowseQuery &query)
{
    std::optional<Result<BrowsePage>> page;
    f.broker.browse(queue, query, [&](Result<BrowsePage> result) { page = std::move(result); });
    QElapsedTimer timer;
    timer.start();
    while (!page && timer.elapsed() < 5000)
        QTest::qWait(2);
    if (!page || !page->ok())
        QTest::qFail("the broker did not browse", __FILE__, __LINE__);
    return page && page->ok() ? page->value() : BrowsePage{};
}

using Operation = std::function<std::optional<Error>(RemoteApi &, RestFixture &)>;

QJsonObject queueJson(RestFixture &f, const QString &name)
{
    const HttpResponse response = f.request("GET", "/queues/" + name.toUtf8(), AdminKey);
    if (response.status != 200)
        QTest::qFail(qPrintable(QStringLiteral("GET /queues/%1 answered %2").arg(name).arg(response.status)), __FILE__, __LINE__);
    return response.json();
}

void compareMessages(const Message &remote, const Message &local)
{
    QCOMPARE(remote.id, local.id);
    QCOMPARE(remote.data, local.data);
    QCOMPARE(remote.headers, local.headers);
    QCOMPARE(remote.publisher, local.publisher);
    QCOMPARE(remote.priority, local.priority);
    QCOMPARE(remote.deliveryCount, local.deliveryCount);
    QVERIFY(qAbs(remote.timestamp - local.timestamp) < 0.001);
    QVERIFY(qAbs(remote.dueMs - local.dueMs) <= 1);
    QVERIFY(qAbs(remote.leaseDeadlineMs - local.leaseDeadlineMs) <= 1);
    QCOMPARE(remote.group, local.group);
    QCOMPARE(remote.originQueue, local.originQueue);
    QCOMPARE(remote.deadLetterReason, local.deadLetterReason);
}

} // namespace

Q_DECLARE_METATYPE(Operation)
Q_DECLARE_METATYPE(Broker::ErrorCode)
Q_DECLARE_METATYPE(Broker::QueueConfig)
Q_DECLARE_METATYPE(Broker::BrowseQuery)

class TestRemoteApi : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase()
    {
        if (RestFixture::tlsByDefault() && !TlsCertificates::available())
            QSKIP("openssl is not installed: the TLS run cannot make certificates");
    }

    void createsQueues_data()
    {
        QTest::addColumn<QueueConfig>("config");
        QueueConfig defaults;
        QTest::addRow("defaults") << defaults;
        QueueConfig every;
        every.maxSize = 77;
        every.ttlSeconds = 600;
        every.visibilityTimeoutSeconds = 45;
        every.maxDeliveries = 3;
        every.deadLetterQueue = QStringLiteral("orders.failed");
        QTest::addRow("every-option") << every;
        QueueConfig priority;
        priority.type = QStringLiteral("priority");
        QTest::addRow("priority-type") << priority;
    }
    void createsQueues()
    {
        QFETCH(QueueConfig, config);
        RestFixture f;
        RemoteApi api(endpointOf(f, AdminKey));
        const QueueInfo created = valueOf(api.createQueue(QStringLiteral("orders"), config));
        QCOMPARE(created.name, QStringLiteral("orders"));
        QCOMPARE(created.config, config);
        QVERIFY(created.created > 0);
        QCOMPARE(created.depth, 0);

        const QJsonObject held = queueJson(f, QStringLiteral("orders"));
        const QJsonObject heldConfig = held.value("config").toObject();
        QCOMPARE(heldConfig.value("type").toString(), config.type);
        QCOMPARE(heldConfig.value("max_size").toInteger(), config.maxSize);
        QCOMPARE(heldConfig.value("ttl").toInteger(), config.ttlSeconds);
        QCOMPARE(heldConfig.value("visibility_timeout").toInteger(), config.visibilityTimeoutSeconds);
        QCOMPARE(heldConfig.value("max_deliveries").toInteger(), config.maxDeliveries);
        QCOMPARE(heldConfig.value("dead_letter_queue").toString(), config.deadLetterQueue);
        QCOMPARE(qint64(created.created), qint64(held.value("created").toDouble()));
        QCOMPARE(api.inFlight(), 0);
        QCOMPARE(api.waiting(), 0);
    }

    void updatesDeletesAndPurgesQueues()
    {
        RestFixture f;
        RemoteApi api(endpointOf(f, AdminKey));
        QueueConfig config;
        config.deadLetterQueue = QStringLiteral("orders.dlq");
        valueOf(api.createQueue(QStringLiteral("orders"), config));

        QueueConfigChange change;
        change.maxSize = 500;
        change.ttlSeconds = 120;
        change.visibilityTimeoutSeconds = 9;
        change.maxDeliveries = 7;
        change.deadLetterQueue = QString(); // removes it
        const QueueInfo updated = valueOf(api.updateQueue(QStringLiteral("orders"), change));
        const QJsonObject held = queueJson(f, QStringLiteral("orders"));
        const QJsonObject heldConfig = held.value("config").toObject();
        QCOMPARE(updated.config.maxSize, 500);
        QCOMPARE(heldConfig.value("max_size").toInteger(), 500);
        QCOMPARE(updated.config.ttlSeconds, 120);
        QCOMPARE(heldConfig.value("ttl").toInteger(), 120);
        QCOMPARE(updated.config.visibilityTimeoutSeconds, 9);
        QCOMPARE(heldConfig.value("visibility_timeout").toInteger(), 9);
        QCOMPARE(updated.config.maxDeliveries, 7);
        QCOMPARE(heldConfig.value("max_deliveries").toInteger(), 7);
        QVERIFY(updated.config.deadLetterQueue.isEmpty());
        QVERIFY(heldConfig.value("dead_letter_queue").isNull());
        QCOMPARE(updated.name, held.value("name").toString());

        publishDirectly(f, QStringLiteral("orders"), {"1", "2", "3"});
        QCOMPARE(valueOf(api.purgeQueue(QStringLiteral("orders"))), 3);
        QCOMPARE(queueJson(f, QStringLiteral("orders")).value("message_count").toInteger(), 0);

        publishDirectly(f, QStringLiteral("orders"), {"4"});
        const qint64 deleted = valueOf(api.deleteQueue(QStringLiteral("orders")));
        QVERIFY(deleted >= 1);
        QCOMPARE(f.request("GET", "/queues/orders", AdminKey).status, 404);
    }

    void publishesOneMessageWithItsOptions()
    {
        RestFixture f;
        RemoteApi api(endpointOf(f, AdminKey));
        valueOf(api.createQueue(QStringLiteral("orders"), QueueConfig{}));
        NewMessage message;
        // Key order and an integer beyond a double's precision must survive the round trip.
        message.data = R"({"z":1,"a":12345678901234567891,"s":"x"})";
        message.headers = QJsonObject{{"trace", "abc"}, {"n", 2}};
        message.priority = 5;
        message.delayMs = 60'500;
        const PublishResult published = valueOf(api.publish(QStringLiteral("orders"), {message}));
        QCOMPARE(published.messageSequences.size(), 1);
        QCOMPARE(published.queueSize, 1);

        BrowseQuery delayed;
        delayed.state = MessageState::Delayed;
        const BrowsePage held = browseDirectly(f, QStringLiteral("orders"), delayed);
        QCOMPARE(held.messages.size(), 1);
        QCOMPARE(held.messages.first().id, published.messageId(0));
        QCOMPARE(held.messages.first().data, message.data);
        QCOMPARE(held.messages.first().headers, message.headers);
        QCOMPARE(held.messages.first().priority, 5);
        QCOMPARE(held.messages.first().publisher, QStringLiteral("admin_user"));
        const qint64 delay = held.messages.first().dueMs - qint64(held.messages.first().timestamp * 1000);
        QVERIFY2(qAbs(delay - 60'500) <= 5, qPrintable(QString::number(delay)));

        // And browsing it remotely gives what the broker holds, field by field.
        const BrowsePage remote = valueOf(api.browse(QStringLiteral("orders"), delayed));
        QCOMPARE(remote.messages.size(), 1);
        compareMessages(remote.messages.first(), held.messages.first());
        QCOMPARE(remote.messages.first().queue, QStringLiteral("orders"));
        QCOMPARE(remote.total, held.total);
        QCOMPARE(remote.nextOffset, held.nextOffset);
    }

    void publishesABatchAllOrNone()
    {
        RestFixture f;
        RemoteApi api(endpointOf(f, AdminKey));
        QueueConfig small;
        small.maxSize = 4;
        valueOf(api.createQueue(QStringLiteral("orders"), small));
        QList<NewMessage> batch;
        for (const QByteArray &payload : {QByteArray("1"), QByteArray(R"({"b":2,"a":1})"), QByteArray("\"three\"")}) {
            NewMessage message;
            message.data = payload;
            message.headers = QJsonObject{{"batch", true}};
            message.key = QStringLiteral("k1");
            batch.append(message);
        }
        const PublishResult published = valueOf(api.publish(QStringLiteral("orders"), batch));
        QCOMPARE(published.messageSequences.size(), 3);
        QCOMPARE(published.queueSize, 3);
        const BrowsePage held = browseDirectly(f, QStringLiteral("orders"), BrowseQuery{});
        QCOMPARE(held.messages.size(), 3);
        for (int i = 0; i < 3; ++i) {
            QCOMPARE(held.messages[i].id, published.messageId(i));
            QCOMPARE(held.messages[i].data, batch[i].data);
            QCOMPARE(held.messages[i].headers, batch[i].headers);
        }

        // Two more would pass max_size 4: none of them is published.
        const std::optional<Error> full = errorOf(api.publish(QStringLiteral("orders"), batch.mid(0, 2)));
        QVERIFY(full);
        QCOMPARE(full->code, ErrorCode::QueueFull);
        QCOMPARE(full->message, QStringLiteral("Queue size limit reached"));
        QCOMPARE(browseDirectly(f, QStringLiteral("orders"), BrowseQuery{}).total, 3);

        // Messages that differ in their options cannot be one batch of the API: refused unsent.
        QList<NewMessage> mixed = batch.mid(0, 2);
        mixed[1].priority = 9;
        const QFuture<Result<PublishResult>> refused = api.publish(QStringLiteral("orders"), mixed);
        QVERIFY(refused.isFinished());
        QCOMPARE(api.inFlight(), 0);
        QCOMPARE(errorOf(refused)->code, ErrorCode::InvalidArgument);
        QCOMPARE(errorOf(api.publish(QStringLiteral("orders"), {}))->code, ErrorCode::InvalidArgument);
        QCOMPARE(browseDirectly(f, QStringLiteral("orders"), BrowseQuery{}).total, 3);
    }

    void browsesWithEveryFilter_data()
    {
        QTest::addColumn<BrowseQuery>("query");
        QTest::addColumn<int>("expected");
        BrowseQuery all;
        all.limit = 100;
        QTest::addRow("all") << all << 6;
        BrowseQuery page;
        page.offset = 2;
        page.limit = 3;
        QTest::addRow("a-page") << page << 3;
        BrowseQuery text;
        text.text = QStringLiteral("a+b&c=d %");
        QTest::addRow("text-with-query-characters") << text << 1;
        BrowseQuery headerValue;
        headerValue.headerKey = QStringLiteral("region");
        headerValue.headerValue = QStringLiteral("eu west");
        QTest::addRow("header-key-and-value") << headerValue << 3;
        BrowseQuery headerKey;
        headerKey.headerKey = QStringLiteral("region");
        QTest::addRow("header-key") << headerKey << 6;
        BrowseQuery none;
        none.text = QStringLiteral("matches nothing");
        QTest::addRow("no-match") << none << 0;
    }
    void browsesWithEveryFilter()
    {
        QFETCH(BrowseQuery, query);
        QFETCH(int, expected);
        RestFixture f;
        RemoteApi api(endpointOf(f, AdminKey));
        valueOf(api.createQueue(QStringLiteral("orders"), QueueConfig{}));
        publishDirectly(f, QStringLiteral("orders"), {R"({"t":"a+b&c=d %"})", R"({"t":"plain"})", "3"},
                        QJsonObject{{"region", "eu west"}});
        publishDirectly(f, QStringLiteral("orders"), {"4", "5", "6"}, QJsonObject{{"region", "us"}});

        const BrowsePage remote = valueOf(api.browse(QStringLiteral("orders"), query));
        const BrowsePage held = browseDirectly(f, QStringLiteral("orders"), query);
        QCOMPARE(remote.messages.size(), expected);
        QCOMPARE(remote.messages.size(), held.messages.size());
        for (qsizetype i = 0; i < held.messages.size(); ++i)
            compareMessages(remote.messages[i], held.messages[i]);
        QCOMPARE(remote.total, held.total);
        QCOMPARE(remote.nextOffset, held.nextOffset);
        QCOMPARE(remote.scanned, held.scanned);
        QCOMPARE(remote.truncated, held.truncated);
    }

    void browsesById()
    {
        RestFixture f;
        RemoteApi api(endpointOf(f, AdminKey));
        valueOf(api.createQueue(QStringLiteral("orders"), QueueConfig{}));
        publishDirectly(f, QStringLiteral("orders"), {"1", "2", "3"});
        const BrowsePage all = valueOf(api.browse(QStringLiteral("orders"), 0, 10));
        QCOMPARE(all.messages.size(), 3);
        BrowseQuery byId;
        byId.id = all.messages[1].id;
        const BrowsePage one = valueOf(api.browse(QStringLiteral("orders"), byId));
        QCOMPARE(one.messages.size(), 1);
        QCOMPARE(one.messages.first().id, byId.id);
        QCOMPARE(one.messages.first().data, QByteArray("2"));
    }

    void actsOnMessagesAndRedrives()
    {
        RestFixture f;
        RemoteApi api(endpointOf(f, AdminKey));
        QueueConfig config;
        config.deadLetterQueue = QStringLiteral("orders.dlq");
        valueOf(api.createQueue(QStringLiteral("orders"), config));
        valueOf(api.createQueue(QStringLiteral("archive"), QueueConfig{}));
        publishDirectly(f, QStringLiteral("orders"), {R"({"n":1})", R"({"n":2})", R"({"n":3})", R"({"n":4})"});
        const QList<Message> messages = browseDirectly(f, QStringLiteral("orders"), BrowseQuery{}).messages;
        QCOMPARE(messages.size(), 4);
        const QString unknown = MessageId::format(1);

        MessageAction remove;
        remove.kind = MessageAction::Kind::Delete;
        remove.ids = {messages[0].id, unknown};
        const MessageActionResult removed = valueOf(api.messageAction(QStringLiteral("orders"), remove));
        QCOMPARE(removed.affected, 1);
        QCOMPARE(removed.missing, QList<QString>{unknown});

        MessageAction move;
        move.kind = MessageAction::Kind::Move;
        move.ids = {messages[1].id};
        move.target = QStringLiteral("archive");
        QCOMPARE(valueOf(api.messageAction(QStringLiteral("orders"), move)).affected, 1);
        QCOMPARE(queueJson(f, QStringLiteral("archive")).value("message_count").toInteger(), 1);

        MessageAction deadLetter;
        deadLetter.kind = MessageAction::Kind::DeadLetter;
        deadLetter.ids = {messages[2].id, messages[3].id};
        QCOMPARE(valueOf(api.messageAction(QStringLiteral("orders"), deadLetter)).affected, 2);
        QCOMPARE(queueJson(f, QStringLiteral("orders.dlq")).value("message_count").toInteger(), 2);

        // Browsing the dead state shows them with their origin, as the broker holds them.
        BrowseQuery dead;
        dead.state = MessageState::Dead;
        const BrowsePage remoteDead = valueOf(api.browse(QStringLiteral("orders"), dead));
        const BrowsePage heldDead = browseDirectly(f, QStringLiteral("orders"), dead);
        QCOMPARE(remoteDead.messages.size(), 2);
        for (qsizetype i = 0; i < heldDead.messages.size(); ++i)
            compareMessages(remoteDead.messages[i], heldDead.messages[i]);
        QCOMPARE(remoteDead.messages.first().originQueue, QStringLiteral("orders"));
        QCOMPARE(remoteDead.messages.first().deadLetterReason, QStringLiteral("manual"));

        // A dry run with an edit: what would change, nothing moved.
        RedriveRequest dry;
        dry.ids = {messages[2].id};
        dry.edits.insert(messages[2].id, R"({"z":0,"n":30})");
        dry.dryRun = true;
        const RedriveResult preview = valueOf(api.redrive(QStringLiteral("orders.dlq"), dry));
        QCOMPARE(preview.moved, 1);
        QCOMPARE(preview.messages.size(), 1);
        QCOMPARE(preview.messages.first().id, messages[2].id);
        QCOMPARE(preview.messages.first().origin, QStringLiteral("orders"));
        QCOMPARE(preview.messages.first().before, QByteArray(R"({"n":3})"));
        QCOMPARE(preview.messages.first().after, QByteArray(R"({"z":0,"n":30})"));
        QCOMPARE(queueJson(f, QStringLiteral("orders.dlq")).value("message_count").toInteger(), 2);

        // The edit for real, then the rest by limit.
        RedriveRequest edited = dry;
        edited.dryRun = false;
        QCOMPARE(valueOf(api.redrive(QStringLiteral("orders.dlq"), edited)).moved, 1);
        BrowseQuery byId;
        byId.id = messages[2].id;
        QCOMPARE(browseDirectly(f, QStringLiteral("orders"), byId).messages.value(0).data, QByteArray(R"({"z":0,"n":30})"));
        QCOMPARE(valueOf(api.redrive(QStringLiteral("orders.dlq"), 0)), 1);
        QCOMPARE(queueJson(f, QStringLiteral("orders.dlq")).value("message_count").toInteger(), 0);
        QCOMPARE(queueJson(f, QStringLiteral("orders")).value("message_count").toInteger(), 2);
    }

    void readsAMessagesLifecycle()
    {
        RestFixture f;
        RemoteApi api(endpointOf(f, AdminKey));
        valueOf(api.createQueue(QStringLiteral("orders"), QueueConfig{}));
        NewMessage message;
        message.data = "1";
        const PublishResult published = valueOf(api.publish(QStringLiteral("orders"), {message}));
        MessageAction remove;
        remove.kind = MessageAction::Kind::Delete;
        remove.ids = {published.messageId(0)};
        valueOf(api.messageAction(QStringLiteral("orders"), remove));

        const QList<MessageEvent> events = valueOf(api.lifecycle(QStringLiteral("orders"), published.messageId(0)));
        const QList<MessageEvent> held = f.broker.lifecycle(published.messageId(0));
        QCOMPARE(events.size(), 2);
        QCOMPARE(events.size(), held.size());
        for (qsizetype i = 0; i < held.size(); ++i) {
            QCOMPARE(events[i].kind, held[i].kind);
            QCOMPARE(events[i].number, held[i].number);
            QCOMPARE(events[i].sequence, held[i].sequence);
            QCOMPARE(events[i].queue, held[i].queue);
            QCOMPARE(events[i].user, held[i].user);
            QCOMPARE(events[i].detail, held[i].detail);
            QCOMPARE(events[i].deliveryCount, held[i].deliveryCount);
            QVERIFY(qAbs(events[i].timeMs - held[i].timeMs) <= 1);
        }
        QCOMPARE(events.first().kind, MessageEventKind::Published);
        QCOMPARE(events.last().kind, MessageEventKind::Deleted);
        QCOMPARE(events.first().user, QStringLiteral("admin_user"));
    }

    void administersUsers()
    {
        RestFixture f;
        RemoteApi api(endpointOf(f, AdminKey));
        const IssuedKey added = valueOf(api.addUser(QStringLiteral("ops@example"), QStringLiteral("Ops"), {QStringLiteral("publisher")}));
        QCOMPARE(added.userId, QStringLiteral("ops@example"));
        QVERIFY(!added.apiKey.isEmpty());
        QCOMPARE(f.request("GET", "/me", added.apiKey.toLatin1()).json().value("id").toString(), QStringLiteral("ops@example"));
        QCOMPARE(f.users.find(QStringLiteral("ops@example"))->name, QStringLiteral("Ops"));

        const IssuedKey rotated = valueOf(api.rotateKey(QStringLiteral("ops@example")));
        QVERIFY(rotated.apiKey != added.apiKey);
        QCOMPARE(f.request("GET", "/me", added.apiKey.toLatin1()).status, 401);
        QCOMPARE(f.request("GET", "/me", rotated.apiKey.toLatin1()).status, 200);

        QVERIFY(await(api.setRoles(QStringLiteral("ops@example"), {QStringLiteral("consumer"), QStringLiteral("publisher")})).ok());
        QCOMPARE(f.users.find(QStringLiteral("ops@example"))->roles, (QStringList{"consumer", "publisher"}));
        QVERIFY(await(api.setDisabled(QStringLiteral("ops@example"), true)).ok());
        QVERIFY(f.users.find(QStringLiteral("ops@example"))->disabled);

        const QList<User> remote = valueOf(api.users());
        const QList<User> held = f.users.users();
        QCOMPARE(remote.size(), held.size());
        for (qsizetype i = 0; i < held.size(); ++i) {
            QCOMPARE(remote[i].id, held[i].id);
            QCOMPARE(remote[i].name, held[i].name);
            QCOMPARE(remote[i].roles, held[i].roles);
            QCOMPARE(remote[i].keyPrefix, held[i].keyPrefix);
            QCOMPARE(remote[i].disabled, held[i].disabled);
            QVERIFY(qAbs(remote[i].createdMs - held[i].createdMs) <= 1);
            QVERIFY(remote[i].keyHash.isEmpty());
        }

        QVERIFY(await(api.removeUser(QStringLiteral("ops@example"))).ok());
        QVERIFY(!f.users.find(QStringLiteral("ops@example")));
    }

    void exportsAndImportsDefinitions()
    {
        RestFixture f;
        RemoteApi api(endpointOf(f, AdminKey));
        valueOf(api.createQueue(QStringLiteral("orders"), QueueConfig{}));
        const QJsonObject exported = valueOf(api.exportDefinitions());
        QCOMPARE(exported, f.request("GET", "/definitions", AdminKey).json());

        QJsonObject document = exported;
        QJsonArray queues = document.value("queues").toArray();
        QJsonObject invoices = queues.first().toObject();
        invoices.insert("name", "invoices");
        queues.append(invoices);
        document.insert("queues", queues);
        QJsonArray users = document.value("users").toArray();
        users.append(QJsonObject{{"id", "newcomer"}, {"name", "New"}, {"roles", QJsonArray{"consumer"}}});
        document.insert("users", users);

        const DefinitionsImport summary = valueOf(api.importDefinitions(document));
        QCOMPARE(summary.queuesCreated, QStringList{"invoices"});
        QCOMPARE(summary.queuesUnchanged, QStringList{"orders"});
        QCOMPARE(summary.usersCreated.size(), 1);
        QCOMPARE(summary.usersCreated.first().id, QStringLiteral("newcomer"));
        QVERIFY(!summary.usersCreated.first().apiKey.isEmpty());
        QVERIFY(summary.usersUnchanged.contains(QStringLiteral("admin_user")));
        QVERIFY(summary.success());
        QCOMPARE(queueJson(f, QStringLiteral("invoices")).value("name").toString(), QStringLiteral("invoices"));
        QVERIFY(f.users.find(QStringLiteral("newcomer")));

        const std::optional<Error> bad = errorOf(api.importDefinitions(QJsonObject{{"queues", "not a list"}}));
        QVERIFY(bad);
        QCOMPARE(bad->code, ErrorCode::InvalidArgument);
    }

    void readsErrors()
    {
        RestFixture f;
        f.errors.record(Severity::Warning, QStringLiteral("storage"), QStringLiteral("slow"), QStringLiteral("it was slow"));
        f.errors.record(Severity::Critical, QStringLiteral("engine"), QStringLiteral("broken"), QStringLiteral("it broke"));
        RemoteApi api(endpointOf(f, AdminKey));
        const QList<ErrorRecord> remote = valueOf(api.errors(10));
        const QList<ErrorRecord> held = f.errors.recent(10);
        QCOMPARE(remote.size(), held.size());
        QVERIFY(remote.size() >= 2);
        for (qsizetype i = 0; i < held.size(); ++i) {
            QCOMPARE(remote[i].id, held[i].id);
            QCOMPARE(remote[i].severity, held[i].severity);
            QCOMPARE(remote[i].component, held[i].component);
            QCOMPARE(remote[i].code, held[i].code);
            QCOMPARE(remote[i].message, held[i].message);
            QCOMPARE(remote[i].count, held[i].count);
            QVERIFY(qAbs(remote[i].firstMs - held[i].firstMs) <= 1);
            QVERIFY(qAbs(remote[i].lastMs - held[i].lastMs) <= 1);
        }
        QCOMPARE(valueOf(api.errors(1)).size(), 1);
    }

    void readsProcessorsAndUptime()
    {
        RestFixture f;
        QCOMPARE(f.request("POST", "/queues", AdminKey, R"({"name":"handled"})").status, 200);
        f.broker.registerProcessor(QStringLiteral("handled"), [](const Message &) { return true; });
        QCOMPARE(f.request("POST", "/messages/handled", AdminKey, R"({"message":{"n":1}})").status, 200);
        QTRY_VERIFY(!f.broker.processorStatuses().isEmpty() && f.broker.processorStatuses().first().successes == 1);
        RemoteApi api(endpointOf(f, AdminKey));
        const ProcessorStatusList remote = valueOf(api.processors());
        const ProcessorStatusList held = f.broker.processorStatuses();
        QCOMPARE(remote.size(), held.size());
        QCOMPARE(remote.first().id, held.first().id);
        QCOMPARE(remote.first().queue, QStringLiteral("handled"));
        QCOMPARE(remote.first().kind, held.first().kind);
        QCOMPARE(remote.first().successes, qint64(1));
        QCOMPARE(remote.first().running, true);
        QVERIFY(qAbs(remote.first().lastSuccessAtMs - held.first().lastSuccessAtMs) <= 1);
        // A key without view_metrics may not see them.
        RemoteApi consumer(endpointOf(f, ConsumerKey));
        const std::optional<Error> refused = errorOf(consumer.processors());
        QVERIFY(refused);
        QCOMPARE(refused->code, ErrorCode::PermissionDenied);
        QVERIFY(valueOf(api.uptimeSeconds()) >= 0);
    }

    // The broker's refusals arrive as the codes the engine gives, with the broker's own text.
    void mapsTheBrokersRefusals_data()
    {
        QTest::addColumn<QByteArray>("key");
        QTest::addColumn<Operation>("operation");
        QTest::addColumn<ErrorCode>("code");
        QTest::addColumn<QString>("message");
        const QString orders = QStringLiteral("orders");
        QTest::addRow("queue-exists") << AdminKey
                                      << Operation([=](RemoteApi &api, RestFixture &) { return errorOf(api.createQueue(orders, {})); })
                                      << ErrorCode::QueueExists << "Queue already exists";
        QTest::addRow("unknown-queue")
            << AdminKey << Operation([](RemoteApi &api, RestFixture &) { return errorOf(api.purgeQueue(QStringLiteral("nope"))); })
            << ErrorCode::QueueNotFound << "Queue not found";
        QTest::addRow("unknown-queue-browse")
            << AdminKey << Operation([](RemoteApi &api, RestFixture &) { return errorOf(api.browse(QStringLiteral("nope"), 0, 10)); })
            << ErrorCode::QueueNotFound << "Queue not found";
        QTest::addRow("invalid-name")
            << AdminKey << Operation([](RemoteApi &api, RestFixture &) { return errorOf(api.createQueue(QStringLiteral("bad name!"), {})); })
            << ErrorCode::InvalidArgument << "Invalid queue name";
        QTest::addRow("no-permission")
            << PublisherKey << Operation([](RemoteApi &api, RestFixture &) { return errorOf(api.createQueue(QStringLiteral("x"), {})); })
            << ErrorCode::PermissionDenied << "Unauthorized";
        QTest::addRow("no-permission-users")
            << ConsumerKey << Operation([](RemoteApi &api, RestFixture &) { return errorOf(api.users()); })
            << ErrorCode::PermissionDenied << "Unauthorized";
        QTest::addRow("bad-key") << QByteArray("not-a-key-of-this-broker")
                                 << Operation([=](RemoteApi &api, RestFixture &) { return errorOf(api.deleteQueue(orders)); })
                                 << ErrorCode::Unauthenticated << "Unauthorized - Invalid API key";
        QTest::addRow("unknown-message")
            << AdminKey << Operation([=](RemoteApi &api, RestFixture &) { return errorOf(api.lifecycle(orders, MessageId::format(7))); })
            << ErrorCode::MessageNotFound << "Message not found";
        QTest::addRow("unknown-user")
            << AdminKey << Operation([](RemoteApi &api, RestFixture &) { return errorOf(api.rotateKey(QStringLiteral("ghost"))); })
            << ErrorCode::NotFound << "User not found";
        QTest::addRow("user-exists")
            << AdminKey
            << Operation([](RemoteApi &api, RestFixture &) {
                   return errorOf(api.addUser(QStringLiteral("admin_user"), {}, {QStringLiteral("admin")}));
               })
            << ErrorCode::Conflict << "User already exists";
        QTest::addRow("no-dead-letter-queue")
            << AdminKey
            << Operation([=](RemoteApi &api, RestFixture &f) {
                   publishDirectly(f, orders, {"1"});
                   MessageAction action;
                   action.kind = MessageAction::Kind::DeadLetter;
                   action.ids = {browseDirectly(f, orders, {}).messages.value(0).id};
                   return errorOf(api.messageAction(orders, action));
               })
            << ErrorCode::Conflict << "Queue has no dead-letter queue";
        QTest::addRow("move-target-missing")
            << AdminKey
            << Operation([=](RemoteApi &api, RestFixture &f) {
                   publishDirectly(f, orders, {"1"});
                   MessageAction action;
                   action.kind = MessageAction::Kind::Move;
                   action.target = QStringLiteral("nowhere");
                   action.ids = {browseDirectly(f, orders, {}).messages.value(0).id};
                   return errorOf(api.messageAction(orders, action));
               })
            << ErrorCode::NotFound << "Target queue not found";
        QTest::addRow("message-too-large")
            << AdminKey
            << Operation([=](RemoteApi &api, RestFixture &) {
                   NewMessage message;
                   message.data = '"' + QByteArray(300 * 1024, 'x') + '"';
                   return errorOf(api.publish(orders, {message}));
               })
            << ErrorCode::PayloadTooLarge << QString();
    }
    void mapsTheBrokersRefusals()
    {
        QFETCH(QByteArray, key);
        QFETCH(Operation, operation);
        QFETCH(ErrorCode, code);
        QFETCH(QString, message);
        RestFixture f;
        QCOMPARE(f.request("POST", "/queues", AdminKey, R"({"name":"orders"})").status, 200);
        RemoteApi api(endpointOf(f, key));
        const std::optional<Error> error = operation(api, f);
        QVERIFY(error);
        QCOMPARE(errorCodeName(error->code), errorCodeName(code));
        if (!message.isEmpty())
            QVERIFY2(error->message.startsWith(message), qPrintable(error->message));
        QVERIFY(!error->message.contains(QString::fromLatin1(key)));
        QVERIFY(!error->detail.contains(QString::fromLatin1(key)));
    }

    void aRateLimitIsRateLimited()
    {
        Rest::RestOptions options;
        options.rateLimitEnabled = true;
        options.requestsPerMinute = 1;
        options.burst = 1;
        RestFixture f(options);
        RemoteApi api(endpointOf(f, AdminKey));
        std::optional<Error> error;
        for (int i = 0; i < 5 && !error; ++i)
            error = errorOf(api.users());
        QVERIFY(error);
        QCOMPARE(error->code, ErrorCode::RateLimited);
        QCOMPARE(error->message, QStringLiteral("Rate limit exceeded"));
    }

    void anUntrustedCertificateIsUnavailable()
    {
        if (!RestFixture::tlsByDefault())
            QSKIP("the TLS run (BROKER_TEST_TLS=1) checks certificates");
        RestFixture f;
        RemoteEndpoint endpoint = endpointOf(f, AdminKey);
        endpoint.caCertificates.clear(); // the system's CAs do not know the test's
        RemoteApi api(endpoint);
        const std::optional<Error> error = errorOf(api.users());
        QVERIFY(error);
        QCOMPARE(error->code, ErrorCode::Unavailable);
        QVERIFY2(error->message.startsWith(QStringLiteral("broker at %1 not reachable: TLS handshake failed: ").arg(endpoint.url.toString())),
                 qPrintable(error->message));
        qInfo("%s", qPrintable(error->message));
    }

};

QTEST_GUILESS_MAIN(TestRemoteApi)
#include "tst_remoteapi.moc"
