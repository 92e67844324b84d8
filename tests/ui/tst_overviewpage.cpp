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
