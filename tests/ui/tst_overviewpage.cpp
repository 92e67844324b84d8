// SPDX-License-Identifier: GPL-3.0-or-later
// The Overview page tells an admin when the broker refuses changes (a full disk, a failing device)
// and why, and stops saying so once it takes changes again; on a Redis Cluster it lists the
// nodes and their state.
#include "ui/overviewpage.h"

#include <QLabel>
#include <QTableWidget>
#include <QTest>

using namespace Broker;

class TestOverviewPage : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void storageSaysWhereQueuesLive_data()
    {
        QTest::addColumn<QString>("storage");
        QTest::addColumn<QString>("durability");
        QTest::addColumn<int>("database");
        QTest::addColumn<QString>("shown");
        QTest::addRow("memory-volatile") << "memory" << "none" << 0 << "memory (volatile)";
        QTest::addRow("memory-journal") << "memory" << "everysec" << 0 << "memory (journal, fsync everysec)";
        QTest::addRow("redis-not-journal") << "redis" << "everysec" << 0 << "redis 10.0.0.5:6380";
        QTest::addRow("redis-database") << "redis" << "none" << 3 << "redis 10.0.0.5:6380, database 3";
    }
    void storageSaysWhereQueuesLive()
    {
        QFETCH(QString, storage);
        QFETCH(QString, durability);
        QFETCH(int, database);
        QFETCH(QString, shown);
        StartReport report;
        report.ok = true;
        report.storage = storage;
        report.durability = durability;
        report.config.storage.redis.host = "10.0.0.5";
        report.config.storage.redis.port = 6380;
        report.config.storage.redis.database = database;
        QCOMPARE(Ui::OverviewPage::storageText(report), shown);
        Ui::OverviewPage page;
        page.showStart(report);
        QVERIFY(!page.findChildren<QLabel *>(QString()).isEmpty());
        bool found = false;
        for (const QLabel *label : page.findChildren<QLabel *>())
            found = found || label->text() == shown;
        QVERIFY(found);
    }
    // The notification webhook takes a line only while it fails.
    void saysWhenTheNotificationWebhookFails()
    {
        Ui::OverviewPage page;
        page.resize(900, 600);
        page.show();
        auto *state = page.findChild<QLabel *>("webhookState");
        QVERIFY(state);
        BrokerSnapshot snapshot;
        snapshot.storage = "memory";
        page.showSnapshot(snapshot);
        QVERIFY(!state->isVisible());
        WebhookStatus webhook;
        webhook.target = "https://hooks.example";
        webhook.delivered = 4;
        snapshot.notificationWebhook = webhook;
        page.showSnapshot(snapshot);
        QVERIFY(!state->isVisible());
        webhook.failing = true;
        webhook.lastError = "HTTP 500";
        webhook.failed = 2;
        snapshot.notificationWebhook = webhook;
        page.showSnapshot(snapshot);
        QVERIFY(state->isVisible());
        QVERIFY2(state->text().contains("Notification webhook to https://hooks.example is failing: HTTP 500 (2 given up, 0 dropped)"),
                 qPrintable(state->text()));
    }
    void saysWhenStorageIsReadOnly()
    {
        Ui::OverviewPage page;
        page.resize(900, 600);
        page.show();
        auto *state = page.findChild<QLabel *>("backendState");
        QVERIFY(state);
        BrokerSnapshot snapshot;
        snapshot.storage = "memory";
        page.showSnapshot(snapshot);
        QVERIFY(!state->isVisible());

        snapshot.health = HealthStatus::Degraded;
        snapshot.storeStatus.writable = false;
        snapshot.storeStatus.readOnlyReason = "journal writes are failing (write failed: No space left on device)";
        page.showSnapshot(snapshot);
        QVERIFY(state->isVisible());
        QVERIFY2(state->text().contains("read-only, changes refused"), qPrintable(state->text()));
        QVERIFY(state->text().contains("No space left on device"));
        QVERIFY(!state->text().contains("circuit breaker"));
        if (!qEnvironmentVariableIsEmpty("BROKER_UI_SHOTS"))
            page.grab().save(qEnvironmentVariable("BROKER_UI_SHOTS") + "/overview-read-only.png");

        snapshot.health = HealthStatus::Healthy;
        snapshot.storeStatus.writable = true;
        snapshot.storeStatus.readOnlyReason.clear();
        page.showSnapshot(snapshot);
        QVERIFY(!state->isVisible());
    }
    void listsTheClusterNodes()
    {
        Ui::OverviewPage page;
        page.resize(900, 700);
        page.show();
        auto *nodes = page.findChild<QTableWidget *>("clusterNodes");
        auto *state = page.findChild<QLabel *>("backendState");
        QVERIFY(nodes && state);
        BrokerSnapshot snapshot;
        snapshot.storage = "redis";
        snapshot.storeStatus.breaker = "closed";
        snapshot.storeStatus.connections = 6;
        snapshot.storeStatus.connectionsReady = 4;
        snapshot.storeStatus.wakeupNode = "10.0.0.1:7000";
        page.showSnapshot(snapshot);
        QVERIFY(!nodes->isVisible()); // one server: no node list
        QVERIFY2(state->text().contains("wake-ups via 10.0.0.1:7000"), qPrintable(state->text()));

        snapshot.health = HealthStatus::Degraded;
        snapshot.storeStatus.cluster = true;
        snapshot.storeStatus.allSlotsServed = false;
        snapshot.storeStatus.nodes = {
            {"10.0.0.2:7001", false, "online", 0, 0, 0, 0, 0},
            {"10.0.0.1:7000", true, "online", 5461, 2, 2, 3, 1},
            {"10.0.0.3:7002", true, "online", 5462, 2, 0, 0, 0}, // the cluster says online; no connection is up
            {"10.0.0.4:7003", false, "failed", 0, 0, 0, 0, 0},
        };
        page.showSnapshot(snapshot);
        QVERIFY(nodes->isVisible());
        QCOMPARE(nodes->rowCount(), 4);
        QCOMPARE(nodes->item(0, 0)->text(), QString("10.0.0.1:7000")); // primaries first
        QCOMPARE(nodes->item(0, 1)->text(), QString("primary"));
        QCOMPARE(nodes->item(0, 3)->text(), QString("5461"));
        QCOMPARE(nodes->item(0, 4)->text(), QString("2 of 2 up"));
        QCOMPARE(nodes->item(0, 5)->text(), QString("3 / 1"));
        QCOMPARE(nodes->item(1, 2)->text(), QString("out of reach"));
        QCOMPARE(nodes->item(2, 1)->text(), QString("replica"));
        QCOMPARE(nodes->item(3, 2)->text(), QString("failed"));
        QVERIFY2(state->text().contains("some slots have no primary in reach"), qPrintable(state->text()));
        if (!qEnvironmentVariableIsEmpty("BROKER_UI_SHOTS"))
            page.grab().save(qEnvironmentVariable("BROKER_UI_SHOTS") + "/overview-cluster.png");

        snapshot.storeStatus = StoreStatus{};
        snapshot.storage = "memory";
        page.showSnapshot(snapshot);
        QVERIFY(!nodes->isVisible());
    }
};

QTEST_MAIN(TestOverviewPage)
#include "tst_overviewpage.moc"
