// SPDX-License-Identifier: GPL-3.0-or-later
// Hostile and careless callers of the REST API: a user manager trying to make itself admin, a
// peeker enumerating message ids across queues, numbers no double can hold, delays that outlive
// the queue's TTL, and server errors that would show internal paths.
#include "restfixture.h"

#include <QDir>
#include <QJsonArray>
#include <QTest>

using namespace Broker;
using namespace Broker::Testing;

namespace {

// A user manager that may publish: it holds manage_users, list_queues and publish:*, no more.
QByteArray addUserManager(RestFixture &f)
{
    if (!f.policy.defineRole("user_manager", {"manage_users", "list_queues", "publish:*"}).ok())
        qFatal("cannot define the role");
    const HttpResponse added = f.request("POST", "/users", AdminKey, R"({"id":"manager","roles":["user_manager"]})");
    if (added.status != 200)
        qFatal("cannot add the user manager");
    return added.json().value("api_key").toString().toLatin1();
}

QByteArray publish(RestFixture &f, const QByteArray &queue)
{
    const HttpResponse r = f.request("POST", "/messages/" + queue, AdminKey, R"({"message":{"n":1}})");
    return r.json().value("message_id").toString().toLatin1();
}

} // namespace

class TestAccessRules : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void meNamesTheCallerAndWhatItMayDo_data();
    void meNamesTheCallerAndWhatItMayDo();
    void manageUsersGrantsOnlyWhatItHolds_data();
    void manageUsersGrantsOnlyWhatItHolds();
    void lastAdminStaysOnEveryPath_data();
    void lastAdminStaysOnEveryPath();
    void eventsShowOnlyPeekableQueues_data();
    void eventsShowOnlyPeekableQueues();
    void redriveDoesNotNameAHiddenQueue();
    void numbersOutOfRangeAreRefused_data();
    void numbersOutOfRangeAreRefused();
    void delayMustBeShorterThanTtl_data();
    void delayMustBeShorterThanTtl();
    void serverErrorsShowNoPaths();
    void pathsAreTakenOutOfText_data();
    void pathsAreTakenOutOfText();
};

void TestAccessRules::meNamesTheCallerAndWhatItMayDo_data()
{
    QTest::addColumn<QByteArray>("key");
    QTest::addColumn<QString>("id");
    QTest::addColumn<QStringList>("permissions");
    QTest::addRow("admin") << AdminKey << "admin_user" << QStringList{"*"};
    QTest::addRow("publisher") << PublisherKey << "publisher_user" << QStringList{"list_queues", "publish:*"};
    QTest::addRow("consumer") << ConsumerKey << "consumer_user" << QStringList{"list_queues", "consume:*", "peek:*"};
}

void TestAccessRules::meNamesTheCallerAndWhatItMayDo()
{
    QFETCH(QByteArray, key);
    QFETCH(QString, id);
    QFETCH(QStringList, permissions);
    RestFixture f;
    const HttpResponse me = f.request("GET", "/me", key);
    QCOMPARE(me.status, 200);
    QCOMPARE(me.json().value("id").toString(), id);
    QStringList granted;
    for (const QJsonValue &permission : me.json().value("permissions").toArray())
        granted.append(permission.toString());
    granted.sort();
    permissions.sort();
    QCOMPARE(granted, permissions);
    QCOMPARE(f.request("GET", "/me").status, 401);
}

void TestAccessRules::manageUsersGrantsOnlyWhatItHolds_data()
{
    QTest::addColumn<bool>("asAdmin"); // false: as the user manager
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<int>("status");

    QTest::addRow("manager-patches-itself-to-admin") << false << QByteArray("PATCH") << QByteArray("/users/manager")
                                                     << QByteArray(R"({"roles":["admin"]})") << 403;
    QTest::addRow("manager-adds-itself-a-role") << false << QByteArray("PATCH") << QByteArray("/users/manager")
                                                << QByteArray(R"({"roles":["user_manager","consumer"]})") << 403;
    QTest::addRow("manager-creates-an-admin") << false << QByteArray("POST") << QByteArray("/users")
                                              << QByteArray(R"({"id":"mallory","roles":["admin"]})") << 403;
    QTest::addRow("manager-creates-a-consumer-it-is-not") << false << QByteArray("POST") << QByteArray("/users")
                                                          << QByteArray(R"({"id":"c2","roles":["consumer"]})") << 403;
    QTest::addRow("manager-creates-a-publisher") << false << QByteArray("POST") << QByteArray("/users")
                                                 << QByteArray(R"({"id":"p2","roles":["publisher"]})") << 200;
    QTest::addRow("manager-creates-its-equal") << false << QByteArray("POST") << QByteArray("/users")
                                               << QByteArray(R"({"id":"m2","roles":["user_manager"]})") << 200;
    QTest::addRow("manager-rotates-the-admin-key") << false << QByteArray("POST") << QByteArray("/users/admin_user/rotate")
                                                   << QByteArray() << 403;
    QTest::addRow("manager-deletes-the-admin") << false << QByteArray("DELETE") << QByteArray("/users/admin_user")
                                               << QByteArray() << 403;
    QTest::addRow("manager-disables-the-admin") << false << QByteArray("PATCH") << QByteArray("/users/admin_user")
                                                << QByteArray(R"({"disabled":true})") << 403;
    QTest::addRow("manager-disables-a-consumer-it-is-not") << false << QByteArray("PATCH")
                                                           << QByteArray("/users/consumer_user")
                                                           << QByteArray(R"({"disabled":true})") << 403;
    QTest::addRow("manager-rotates-a-publisher") << false << QByteArray("POST") << QByteArray("/users/publisher_user/rotate")
                                                 << QByteArray() << 200;
    QTest::addRow("manager-promotes-a-publisher-to-its-equal")
        << false << QByteArray("PATCH") << QByteArray("/users/publisher_user")
        << QByteArray(R"({"roles":["user_manager"]})") << 200;
    QTest::addRow("manager-demotes-itself") << false << QByteArray("PATCH") << QByteArray("/users/manager")
                                            << QByteArray(R"({"roles":["publisher"]})") << 200;
    QTest::addRow("manager-deletes-a-missing-user") << false << QByteArray("DELETE") << QByteArray("/users/nobody")
                                                    << QByteArray() << 404;
    QTest::addRow("admin-creates-an-admin") << true << QByteArray("POST") << QByteArray("/users")
                                            << QByteArray(R"({"id":"a2","roles":["admin"]})") << 200;
    QTest::addRow("admin-rotates-the-manager") << true << QByteArray("POST") << QByteArray("/users/manager/rotate")
                                               << QByteArray() << 200;
    QTest::addRow("admin-makes-the-manager-admin") << true << QByteArray("PATCH") << QByteArray("/users/manager")
                                                   << QByteArray(R"({"roles":["admin"]})") << 200;
    QTest::addRow("admin-disables-a-consumer") << true << QByteArray("PATCH") << QByteArray("/users/consumer_user")
                                               << QByteArray(R"({"disabled":true})") << 200;
}

void TestAccessRules::manageUsersGrantsOnlyWhatItHolds()
{
    QFETCH(bool, asAdmin);
    QFETCH(QByteArray, method);
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, body);
    QFETCH(int, status);

    RestFixture f;
    const QByteArray managerKey = addUserManager(f);
    const QList<User> before = f.users.users();
    const HttpResponse r = f.request(method, path, asAdmin ? AdminKey : managerKey, body);
    QCOMPARE(r.status, status);
    if (status == 403) {
        QCOMPARE(r.error(), QString("Unauthorized"));
        // Nothing changed: same users, same roles, same keys.
        const QList<User> after = f.users.users();
        QCOMPARE(after.size(), before.size());
        for (qsizetype i = 0; i < after.size(); ++i) {
            QCOMPARE(after[i].roles, before[i].roles);
            QCOMPARE(after[i].keyHash, before[i].keyHash);
            QCOMPARE(after[i].disabled, before[i].disabled);
        }
    }
    QCOMPARE(f.request("GET", "/users", AdminKey).status, 200); // the admin keeps its key and its power
}

void TestAccessRules::lastAdminStaysOnEveryPath_data()
{
    QTest::addColumn<QByteArray>("method");
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QByteArray>("body");

    QTest::addRow("delete") << QByteArray("DELETE") << QByteArray("/users/admin_user") << QByteArray();
    QTest::addRow("disable") << QByteArray("PATCH") << QByteArray("/users/admin_user") << QByteArray(R"({"disabled":true})");
    QTest::addRow("demote") << QByteArray("PATCH") << QByteArray("/users/admin_user") << QByteArray(R"({"roles":["consumer"]})");
    QTest::addRow("demote-keeping-admin-but-disabling")
        << QByteArray("PATCH") << QByteArray("/users/admin_user") << QByteArray(R"({"roles":["admin"],"disabled":true})");
}

void TestAccessRules::lastAdminStaysOnEveryPath()
{
    QFETCH(QByteArray, method);
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, body);

    RestFixture f;
    const HttpResponse r = f.request(method, path, AdminKey, body);
    QCOMPARE(r.status, 409);
    QCOMPARE(r.error(), QString("Cannot remove the last admin"));
    const User *admin = f.users.find("admin_user");
    QVERIFY(admin);
    QVERIFY(!admin->disabled);
    QCOMPARE(admin->roles, QStringList{"admin"});
    // With a second admin the same change is allowed.
    QCOMPARE(f.request("POST", "/users", AdminKey, R"({"id":"second","roles":["admin"]})").status, 200);
    QCOMPARE(f.request(method, path, AdminKey, body).status, 200);
}

void TestAccessRules::eventsShowOnlyPeekableQueues_data()
{
    QTest::addColumn<QByteArray>("askedQueue"); // the queue in the path
    QTest::addColumn<bool>("secretMessage");    // the id of a message in "secret" (else in "orders")
    QTest::addColumn<bool>("asAdmin");
    QTest::addColumn<int>("status");

    QTest::addRow("peeker-sees-its-queue") << QByteArray("orders") << false << false << 200;
    QTest::addRow("peeker-enumerates-into-another-queue") << QByteArray("orders") << true << false << 404;
    QTest::addRow("peeker-asks-the-other-queue") << QByteArray("secret") << true << false << 403;
    QTest::addRow("admin-sees-the-other-queue") << QByteArray("secret") << true << true << 200;
    QTest::addRow("admin-through-any-path") << QByteArray("orders") << true << true << 200;
}

void TestAccessRules::eventsShowOnlyPeekableQueues()
{
    QFETCH(QByteArray, askedQueue);
    QFETCH(bool, secretMessage);
    QFETCH(bool, asAdmin);
    QFETCH(int, status);

    RestFixture f;
    QVERIFY(f.policy.defineRole("orders_peeker", {"peek:orders"}).ok());
    const HttpResponse added = f.request("POST", "/users", AdminKey, R"({"id":"peeker","roles":["orders_peeker"]})");
    QCOMPARE(added.status, 200);
    const QByteArray peekerKey = added.json().value("api_key").toString().toLatin1();
    for (const char *queue : {"orders", "secret"})
        QCOMPARE(f.request("POST", "/queues", AdminKey, QByteArray(R"({"name":")") + queue + "\"}").status, 200);
    const QByteArray ordersId = publish(f, "orders");
    const QByteArray secretId = publish(f, "secret");

    const QByteArray id = secretMessage ? secretId : ordersId;
    const HttpResponse r = f.request("GET", "/messages/" + askedQueue + '/' + id + "/events", asAdmin ? AdminKey : peekerKey);
    QCOMPARE(r.status, status);
    if (!asAdmin && status != 403) // (a 403 names the permission the caller asked for itself)
        QVERIFY2(!r.body.contains("secret"), r.body.constData()); // neither the queue nor its publisher leaks
    if (status != 200)
        return;
    const QJsonArray events = r.json().value("events").toArray();
    QVERIFY(!events.isEmpty());
    for (const QJsonValue &event : events)
        QCOMPARE(event.toObject().value("queue").toString(), secretMessage ? QString("secret") : QString("orders"));
}

void TestAccessRules::redriveDoesNotNameAHiddenQueue()
{
    RestFixture f;
    QVERIFY(f.policy.defineRole("orders_peeker", {"peek:orders"}).ok());
    const QByteArray peekerKey =
        f.request("POST", "/users", AdminKey, R"({"id":"peeker","roles":["orders_peeker"]})").json().value("api_key").toString().toLatin1();
    QCOMPARE(f.request("POST", "/queues", AdminKey,
                       R"({"name":"orders","options":{"max_deliveries":1,"dead_letter_queue":"orders.hidden"}})").status,
             200);
    const QByteArray id = publish(f, "orders");
    const HttpResponse leased = f.request("GET", "/messages/orders?acknowledge=false", AdminKey);
    QCOMPARE(leased.status, 200);
    QCOMPARE(f.request("POST", "/messages/orders/" + id + "/nack", AdminKey, "{}").json().value("dead_lettered").toBool(), true);
    QCOMPARE(f.request("POST", "/queues/orders.hidden/redrive", AdminKey).json().value("moved").toInt(), 1);

    const HttpResponse admin = f.request("GET", "/messages/orders/" + id + "/events", AdminKey);
    QVERIFY2(admin.body.contains("orders.hidden"), admin.body.constData()); // the admin sees where it came from
    const HttpResponse peeker = f.request("GET", "/messages/orders/" + id + "/events", peekerKey);
    QCOMPARE(peeker.status, 200);
    QVERIFY2(!peeker.body.contains("orders.hidden"), peeker.body.constData());
    QStringList kinds;
    for (const QJsonValue &event : peeker.json().value("events").toArray())
        kinds << event.toObject().value("event").toString();
    QVERIFY2(kinds.contains("redriven"), qPrintable(kinds.join(',')));
    // The queue's own history follows the same rule.
    const HttpResponse queueEvents = f.request("GET", "/queues/orders/events", peekerKey);
    QCOMPARE(queueEvents.status, 200);
    QVERIFY2(queueEvents.body.contains("redriven") && !queueEvents.body.contains("orders.hidden"),
             queueEvents.body.constData());
    QVERIFY(f.request("GET", "/queues/orders/events", AdminKey).body.contains("orders.hidden"));
}

void TestAccessRules::numbersOutOfRangeAreRefused_data()
{
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("error");

    QTest::addRow("delay-overflows") << QByteArray("/messages/orders") << QByteArray(R"({"message":1,"delay":1e400})")
                                     << 400 << "Invalid delay: number out of range";
    QTest::addRow("priority-overflows-negative") << QByteArray("/messages/orders")
                                                 << QByteArray(R"({"message":1,"priority":-1e400})") << 400
                                                 << "Invalid priority: number out of range";
    QTest::addRow("delay-underflows") << QByteArray("/messages/orders") << QByteArray(R"({"message":1,"delay":1e-400})")
                                      << 400 << "Invalid delay: number out of range";
    QTest::addRow("delay-large-but-a-double") << QByteArray("/messages/orders")
                                              << QByteArray(R"({"message":1,"delay":1e308})") << 400
                                              << "Invalid delay: expected a number from 0 to 86400";
    QTest::addRow("header-overflows") << QByteArray("/messages/orders")
                                      << QByteArray(R"({"message":1,"headers":{"n":[1,2e999]}})") << 400
                                      << "Invalid headers.n[1]: number out of range";
    QTest::addRow("batch-delay-overflows") << QByteArray("/messages/orders/batch")
                                           << QByteArray(R"({"messages":[1],"delay":9e9999})") << 400
                                           << "Invalid delay: number out of range";
    QTest::addRow("payload-keeps-its-numbers") << QByteArray("/messages/orders")
                                               << QByteArray(R"({"message":{"big":1e400}})") << 200 << "";
    QTest::addRow("queue-option-overflows") << QByteArray("/queues")
                                            << QByteArray(R"({"name":"q2","options":{"ttl":1e400}})") << 400
                                            << "Invalid options.ttl: number out of range";
    QTest::addRow("queue-option-underflows") << QByteArray("/queues")
                                             << QByteArray(R"({"name":"q2","options":{"max_size":-1E-999}})") << 400
                                             << "Invalid options.max_size: number out of range";
    QTest::addRow("redrive-limit-overflows") << QByteArray("/queues/orders/redrive") << QByteArray(R"({"limit":-1e400})")
                                             << 400 << "Invalid limit: number out of range";
    QTest::addRow("zero-is-fine") << QByteArray("/messages/orders") << QByteArray(R"({"message":1,"delay":0e-999})")
                                  << 200 << "";
}

void TestAccessRules::numbersOutOfRangeAreRefused()
{
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, body);
    QFETCH(int, status);
    QFETCH(QString, error);

    RestFixture f;
    QCOMPARE(f.request("POST", "/queues", AdminKey, R"({"name":"orders"})").status, 200);
    const HttpResponse r = f.request("POST", path, AdminKey, body);
    QCOMPARE(r.status, status);
    QCOMPARE(r.error(), error);
    if (status == 200 && path == "/messages/orders" && body.contains("big")) {
        const HttpResponse consumed = f.request("GET", "/messages/orders", AdminKey);
        QVERIFY2(consumed.body.contains("1e400"), consumed.body.constData()); // the text as published
    }
}

void TestAccessRules::delayMustBeShorterThanTtl_data()
{
    QTest::addColumn<QByteArray>("path");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<int>("status");
    QTest::addColumn<int>("queued"); // messages the queue holds afterwards

    QTest::addRow("shorter") << QByteArray("/messages/short") << QByteArray(R"({"message":1,"delay":9.5})") << 200 << 1;
    QTest::addRow("equal-never-due-before-expiry")
        << QByteArray("/messages/short") << QByteArray(R"({"message":1,"delay":10})") << 400 << 0;
    QTest::addRow("longer") << QByteArray("/messages/short") << QByteArray(R"({"message":1,"delay":3600})") << 400 << 0;
    QTest::addRow("batch-all-or-nothing") << QByteArray("/messages/short/batch")
                                          << QByteArray(R"({"messages":[1,2],"delay":11})") << 400 << 0;
    QTest::addRow("no-delay") << QByteArray("/messages/short") << QByteArray(R"({"message":1})") << 200 << 1;
    QTest::addRow("missing-queue-still-404") << QByteArray("/messages/nope") << QByteArray(R"({"message":1,"delay":5})")
                                             << 404 << 0;
}

void TestAccessRules::delayMustBeShorterThanTtl()
{
    QFETCH(QByteArray, path);
    QFETCH(QByteArray, body);
    QFETCH(int, status);
    QFETCH(int, queued);

    RestFixture f;
    QCOMPARE(f.request("POST", "/queues", AdminKey, R"({"name":"short","options":{"ttl":10}})").status, 200);
    const HttpResponse r = f.request("POST", path, AdminKey, body);
    QCOMPARE(r.status, status);
    if (status == 400)
        QCOMPARE(r.error(), QString("Invalid delay: must be shorter than the queue's ttl (10 seconds)"));
    const QJsonObject detail = f.request("GET", "/queues/short", AdminKey).json();
    QCOMPARE(detail.value("message_count").toInt() + detail.value("delayed").toInt(), queued);
}

void TestAccessRules::serverErrorsShowNoPaths()
{
    RestFixture f;
    // Where the users file was there is now a folder: writing it fails, even as root.
    const QString path = f.users.path();
    QVERIFY(QFile::remove(path));
    QVERIFY(QDir().mkdir(path));
    const HttpResponse r = f.request("POST", "/users", AdminKey, R"({"id":"bob","roles":["consumer"]})");
    QCOMPARE(r.status, 500);
    QCOMPARE(r.error(), QString("Cannot write the users file"));
    QVERIFY2(!r.body.contains(f.dir.path().toUtf8()), r.body.constData());
    QVERIFY2(!r.body.contains("users.yaml"), r.body.constData());
    QVERIFY(!f.users.find("bob"));
}

void TestAccessRules::pathsAreTakenOutOfText_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("expected");

    QTest::addRow("absolute") << "/var/lib/brokerdesk/journal.log: No space left on device"
                              << "[path]: No space left on device";
    QTest::addRow("quoted") << "cannot open '/etc/brokerdesk/users.yaml'" << "cannot open '[path]'";
    QTest::addRow("home") << "~/brokerdesk/spool failed" << "[path] failed";
    QTest::addRow("windows") << "C:\\data\\journal failed" << "[path] failed";
    QTest::addRow("sentence-end") << "cannot write /tmp/x." << "cannot write [path].";
    QTest::addRow("words-with-slashes-stay") << "I/O error on read/write" << "I/O error on read/write";
    QTest::addRow("address-stays") << "connect to 127.0.0.1:6379 refused" << "connect to 127.0.0.1:6379 refused";
    QTest::addRow("nothing") << "Journal write failed" << "Journal write failed";
}

void TestAccessRules::pathsAreTakenOutOfText()
{
    QFETCH(QString, text);
    QFETCH(QString, expected);
    QCOMPARE(Rest::withoutPaths(text), expected);
}

QTEST_GUILESS_MAIN(TestAccessRules)
#include "tst_accessrules.moc"
