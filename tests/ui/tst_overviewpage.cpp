// SPDX-License-Identifier: GPL-3.0-or-later
// The Overview page tells an admin when the broker refuses changes (a full disk, a failing device)
// and why, and stops saying so once it takes changes again.
#include "ui/overviewpage.h"

#include <QLabel>
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
};

QTEST_MAIN(TestOverviewPage)
#include "tst_overviewpage.moc"
