// SPDX-License-Identifier: GPL-3.0-or-later
// The processors of a queue on its detail page, offscreen, from fed snapshots: only that queue's,
// every figure the engine reports, a failing or stopped processor marked as such, and nothing at
// all (the box hidden) for a queue without processors.
#include "runtime/brokerclient.h"
#include "ui/processorspanel.h"
#include "ui/queuedetailpage.h"

#include <QLabel>
#include <QTableWidget>
#include <QTest>

using namespace Broker;
using namespace Broker::Ui;

namespace {

ProcessorStatus status(int id, const QString &queue, qint64 successes, qint64 failures, bool failing,
                       bool running = true)
{
    ProcessorStatus s;
    s.id = id;
    s.queue = queue;
    s.kind = QStringLiteral("callable");
    s.successes = successes;
    s.failures = failures;
    s.failing = failing;
    s.running = running;
    if (failures > 0) {
        s.lastError = QStringLiteral("declined");
        s.lastErrorAtMs = 1'764'620'000'000;
    }
    return s;
}

QStringList rowTexts(const QTableWidget *table, int row)
{
    QStringList texts;
    for (int column = 0; column < table->columnCount(); ++column)
        texts.append(table->item(row, column) ? table->item(row, column)->text() : QString());
    return texts;
}

} // namespace

class TestProcessorsPanel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void showsTheQueuesProcessors_data();
    void showsTheQueuesProcessors();
    void everyFigureIsShown();
    void detailPageFollowsSnapshots();
};

void TestProcessorsPanel::showsTheQueuesProcessors_data()
{
    QTest::addColumn<ProcessorStatusList>("statuses");
    QTest::addColumn<bool>("visible");
    QTest::addColumn<QStringList>("states");
    QTest::addColumn<QString>("summary");

    QTest::addRow("none-hidden") << ProcessorStatusList{} << false << QStringList{} << QString();
    QTest::addRow("other-queues-only-hidden")
        << ProcessorStatusList{status(1, "audit", 0, 3, true)} << false << QStringList{} << QString();
    QTest::addRow("running") << ProcessorStatusList{status(1, "orders", 5, 0, false), status(2, "audit", 0, 1, true)}
                             << true << QStringList{"running"} << QString("1 processor · all running");
    QTest::addRow("failing-is-marked") << ProcessorStatusList{status(1, "orders", 5, 0, false),
                                                              status(4, "orders", 0, 2, true)}
                                       << true << QStringList{"running", "failing"}
                                       << QString("2 processors · 1 failing");
    QTest::addRow("recovered-is-running-with-its-old-error")
        << ProcessorStatusList{status(1, "orders", 7, 2, false)} << true << QStringList{"running"}
        << QString("1 processor · all running");
    QTest::addRow("stopped-is-marked") << ProcessorStatusList{status(1, "orders", 1, 0, false, false)} << true
                                       << QStringList{"stopped"} << QString("1 processor · 1 stopped");
}

void TestProcessorsPanel::showsTheQueuesProcessors()
{
    QFETCH(ProcessorStatusList, statuses);
    QFETCH(bool, visible);
    QFETCH(QStringList, states);
    QFETCH(QString, summary);

    QWidget window;
    auto *panel = new ProcessorsPanel(&window);
    window.show();
    panel->showProcessors(QStringLiteral("orders"), {status(9, "orders", 1, 0, false)}); // a previous tick
    panel->showProcessors(QStringLiteral("orders"), statuses);
    QCOMPARE(panel->isVisible(), visible);
    QCOMPARE(panel->table()->rowCount(), states.size());
    for (int row = 0; row < states.size(); ++row) {
        QCOMPARE(panel->table()->item(row, ProcessorsPanel::StateColumn)->text(), states[row]);
        // A failing or stopped processor is bold; a running one is not.
        QCOMPARE(panel->table()->item(row, ProcessorsPanel::StateColumn)->font().bold(), states[row] != "running");
    }
    if (visible)
        QCOMPARE(panel->summary(), summary);
}

void TestProcessorsPanel::everyFigureIsShown()
{
    ProcessorsPanel panel;
    ProcessorStatus webhook = status(3, "orders", 1234, 56, true);
    webhook.kind = QStringLiteral("webhook");
    webhook.target = QStringLiteral("https://hooks.example.net");
    webhook.concurrency = 8;
    webhook.inFlight = 3;
    webhook.lastError = QStringLiteral("HTTP 500");
    webhook.lastSuccessAtMs = 1'764'610'000'000;
    ProcessorStatus callable = status(4, "orders", 10, 0, false);
    panel.showProcessors(QStringLiteral("orders"), {webhook, callable});
    const QString errorAt = QLocale::system().toString(QDateTime::fromMSecsSinceEpoch(webhook.lastErrorAtMs), "yyyy");
    QCOMPARE(rowTexts(panel.table(), 0).mid(0, 6),
             QStringList({"failing", "webhook", "https://hooks.example.net", "3 / 8", "1,234", "56"}));
    const QString lastError = panel.table()->item(0, ProcessorsPanel::LastErrorColumn)->text();
    QVERIFY2(lastError.startsWith("HTTP 500 (") && lastError.contains(errorAt), qPrintable(lastError));
    QVERIFY(!panel.table()->item(0, ProcessorsPanel::SuccessesColumn)->toolTip().isEmpty()); // when it last succeeded
    QCOMPARE(rowTexts(panel.table(), 1), QStringList({"running", "callable", "—", "0 / 1", "10", "0", "—"}));
}

void TestProcessorsPanel::detailPageFollowsSnapshots()
{
    BrokerClient client; // never started: the page is fed by hand
    QueueDetailPage page(client);
    page.resize(1100, 900);
    page.show();
    page.showQueue(QStringLiteral("orders"));
    ProcessorsPanel *panel = page.processorsPanel();
    QVERIFY(panel);

    BrokerSnapshot snapshot;
    snapshot.takenAtMs = 1'764'620'001'000;
    QueueInfo orders;
    orders.name = QStringLiteral("orders");
    orders.config.type = QStringLiteral("list");
    orders.depth = 12;
    snapshot.queues = {orders};
    page.showSnapshot(snapshot);
    QVERIFY(!panel->isVisible()); // no processors, no box

    ProcessorStatus webhook = status(1, "orders", 1200, 14, true);
    webhook.kind = QStringLiteral("webhook");
    webhook.target = QStringLiteral("https://hooks.example.net");
    webhook.concurrency = 4;
    webhook.inFlight = 2;
    webhook.lastError = QStringLiteral("timed out after 5000 ms");
    ProcessorStatus exec = status(2, "orders", 880, 0, false);
    exec.kind = QStringLiteral("exec");
    exec.target = QStringLiteral("resize-image");
    exec.concurrency = 2;
    snapshot.processors = {webhook, exec, status(3, "audit", 0, 0, false)};
    page.showSnapshot(snapshot);
    QVERIFY(panel->isVisible());
    QCOMPARE(panel->table()->rowCount(), 2);
    QCOMPARE(panel->summary(), QString("2 processors · 1 failing"));
    // As tall as its rows once laid out: the charts below keep the spare height.
    QTRY_COMPARE(panel->height(), panel->sizeHint().height());
    if (!qEnvironmentVariableIsEmpty("BROKER_UI_SHOTS"))
        page.grab().save(qEnvironmentVariable("BROKER_UI_SHOTS") + "/queue-detail-processors.png");

    // The next tick: the failing one delivered again.
    snapshot.processors[0].failing = false;
    snapshot.processors[0].successes = 1201;
    page.showSnapshot(snapshot);
    QCOMPARE(panel->table()->item(0, ProcessorsPanel::StateColumn)->text(), QString("running"));
    QCOMPARE(panel->table()->item(0, ProcessorsPanel::SuccessesColumn)->text(), QString("1,201"));
    QCOMPARE(panel->summary(), QString("2 processors · all running"));

    // Another queue: never the previous one's processors, even before its first snapshot.
    page.showQueue(QStringLiteral("audit"));
    QVERIFY(!panel->isVisible());
}

QTEST_MAIN(TestProcessorsPanel)
#include "tst_processorspanel.moc"
