// SPDX-License-Identifier: GPL-3.0-or-later
#include "security/accesspolicy.h"

#include <QTest>

using namespace Broker;

class TestAccessPolicy : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void permissionMatrix_data();
    void permissionMatrix();
    void customRoles();
    void glob_data();
    void glob();
    void globCovers_data();
    void globCovers();
    void rolesCoverRoles_data();
    void rolesCoverRoles();
};

void TestAccessPolicy::permissionMatrix_data()
{
    QTest::addColumn<QString>("role");
    QTest::addColumn<QString>("permission");
    QTest::addColumn<bool>("allowed");

    const QStringList permissions{"create_queue", "delete_queue", "purge_queue:orders", "list_queues",
                                  "publish:orders", "consume:orders", "peek:orders", "manage_users",
                                  "view_metrics", "view_errors"};
    const QHash<QString, QStringList> granted{
        {"admin", permissions},
        {"publisher", {"list_queues", "publish:orders"}},
        {"consumer", {"list_queues", "consume:orders", "peek:orders"}},
        {"nobody", {}},
    };
    for (const char *role : {"admin", "publisher", "consumer", "nobody"}) {
        for (const QString &permission : permissions)
            QTest::addRow("%s-%s", role, qPrintable(permission))
                << QString::fromLatin1(role) << permission << granted.value(QString::fromLatin1(role)).contains(permission);
    }
}

void TestAccessPolicy::permissionMatrix()
{
    QFETCH(QString, role);
    QFETCH(QString, permission);
    QFETCH(bool, allowed);
    const AccessPolicy policy;
    QCOMPARE(policy.allows({role}, permission), allowed);
}

void TestAccessPolicy::customRoles()
{
    AccessPolicy policy;
    QVERIFY(policy.defineRole("orders_worker", {"consume:orders.*", "publish:orders.results"}).ok());
    QVERIFY(policy.allows({"orders_worker"}, AccessPolicy::consume("orders.eu")));
    QVERIFY(!policy.allows({"orders_worker"}, AccessPolicy::consume("billing")));
    QVERIFY(policy.allows({"orders_worker"}, AccessPolicy::publish("orders.results")));
    QVERIFY(!policy.allows({"orders_worker"}, AccessPolicy::publish("orders.results2")));
    // Several roles add up.
    QVERIFY(policy.allows({"orders_worker", "publisher"}, AccessPolicy::publish("anything")));
    QCOMPARE(policy.defineRole("admin", {"list_queues"}).error().message, "The admin role cannot be redefined");
    QVERIFY(!policy.defineRole("bad role", {"x"}).ok());
    QVERIFY(!policy.defineRole("ok", {"with space"}).ok());
    QVERIFY(policy.defineRole("publisher", {"publish:public.*"}).ok()); // built-ins other than admin may be narrowed
    QVERIFY(!policy.allows({"publisher"}, AccessPolicy::publish("orders")));
}

void TestAccessPolicy::glob_data()
{
    QTest::addColumn<QString>("pattern");
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("match");
    QTest::addRow("star-all") << "*" << "anything:at.all" << true;
    QTest::addRow("star-empty") << "publish:*" << "publish:" << true;
    QTest::addRow("prefix") << "consume:orders.*" << "consume:orders.eu.west" << true;
    QTest::addRow("prefix-miss") << "consume:orders.*" << "consume:ordersX" << false;
    QTest::addRow("question") << "peek:q?" << "peek:q1" << true;
    QTest::addRow("question-needs-one") << "peek:q?" << "peek:q" << false;
    QTest::addRow("middle") << "publish:*.results" << "publish:a.b.results" << true;
    QTest::addRow("middle-miss") << "publish:*.results" << "publish:a.results.x" << false;
    QTest::addRow("exact") << "list_queues" << "list_queues" << true;
    QTest::addRow("exact-miss") << "list_queues" << "list_queue" << false;
    QTest::addRow("backtracking") << "a*a*a*a*b" << QString(40, u'a') << false;
}

void TestAccessPolicy::glob()
{
    QFETCH(QString, pattern);
    QFETCH(QString, text);
    QFETCH(bool, match);
    QCOMPARE(AccessPolicy::globMatch(pattern, text), match);
}

void TestAccessPolicy::globCovers_data()
{
    QTest::addColumn<QString>("outer");
    QTest::addColumn<QString>("inner");
    QTest::addColumn<bool>("covers");

    QTest::addRow("star-covers-all") << "*" << "publish:*" << true;
    QTest::addRow("nothing-but-star-covers-star") << "publish:*" << "*" << false;
    QTest::addRow("wider-covers-narrower") << "publish:*" << "publish:orders.*" << true;
    QTest::addRow("narrower-not-wider") << "publish:orders.*" << "publish:*" << false;
    QTest::addRow("exact") << "manage_users" << "manage_users" << true;
    QTest::addRow("exact-miss") << "view_metrics" << "manage_users" << false;
    QTest::addRow("glob-covers-exact") << "peek:*" << "peek:orders" << true;
    QTest::addRow("question-not-star") << "publish:a?c" << "publish:a*c" << false; // a*c also matches "abbc"
    QTest::addRow("question-covers-question") << "publish:a?c" << "publish:a?c" << true;
    QTest::addRow("star-covers-question") << "publish:a*" << "publish:a?c" << true;
    QTest::addRow("literal-not-question") << "publish:abc" << "publish:a?c" << false;
    QTest::addRow("two-stars") << "*:*" << "publish:orders.*" << true;
    QTest::addRow("other-prefix") << "consume:*" << "publish:x" << false;
}

void TestAccessPolicy::globCovers()
{
    QFETCH(QString, outer);
    QFETCH(QString, inner);
    QFETCH(bool, covers);
    QCOMPARE(AccessPolicy::globCovers(outer, inner), covers);
    if (covers && !inner.contains(u'*') && !inner.contains(u'?'))
        QVERIFY(AccessPolicy::globMatch(outer, inner)); // for a plain permission, covering is matching
}

void TestAccessPolicy::rolesCoverRoles_data()
{
    QTest::addColumn<QStringList>("holder");
    QTest::addColumn<QStringList>("granted");
    QTest::addColumn<QString>("firstUncovered");

    QTest::addRow("admin-covers-admin") << QStringList{"admin"} << QStringList{"admin"} << QString();
    QTest::addRow("admin-covers-all") << QStringList{"admin"} << QStringList{"publisher", "consumer", "ops"} << QString();
    QTest::addRow("ops-not-admin") << QStringList{"ops"} << QStringList{"admin"} << "*";
    QTest::addRow("ops-covers-publisher") << QStringList{"ops"} << QStringList{"publisher"} << QString();
    QTest::addRow("ops-not-consumer") << QStringList{"ops"} << QStringList{"consumer"} << "consume:*";
    QTest::addRow("two-roles-together") << QStringList{"ops", "consumer"} << QStringList{"consumer", "publisher"}
                                        << QString();
    QTest::addRow("unknown-role-grants-nothing") << QStringList{"ops"} << QStringList{"nosuch"} << QString();
    QTest::addRow("superuser-is-admin") << QStringList{"superuser"} << QStringList{"admin"} << QString();
}

void TestAccessPolicy::rolesCoverRoles()
{
    QFETCH(QStringList, holder);
    QFETCH(QStringList, granted);
    QFETCH(QString, firstUncovered);

    AccessPolicy policy;
    QVERIFY(policy.defineRole("ops", {"manage_users", "list_queues", "publish:*"}).ok());
    QVERIFY(policy.defineRole("superuser", {"*"}).ok());
    QCOMPARE(policy.firstUncovered(holder, granted), firstUncovered);
    QCOMPARE(policy.covers(holder, granted), firstUncovered.isEmpty());
    QCOMPARE(policy.grantsEverything(holder), holder.contains("admin") || holder.contains("superuser"));
}

QTEST_APPLESS_MAIN(TestAccessPolicy)
#include "tst_accesspolicy.moc"
