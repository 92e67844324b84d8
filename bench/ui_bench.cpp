// SPDX-License-Identifier: GPL-3.0-or-later
// How long the desktop window takes per snapshot tick with many queues: the snapshot handed to
// every page (models merged, charts fed) and the visible page repainted, measured offscreen.
// Prints figures; the goal is at most 16 ms per tick with 10,000 queues.
//
//   QT_QPA_PLATFORM=offscreen build/bench/ui_bench [queues]
#include "runtime/brokerclient.h"
#include "ui/mainwindow.h"
#include "ui/queuespage.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QHeaderView>
#include <QRandomGenerator>
#include <QTableView>
#include <QTextStream>

#include <algorithm>

using namespace Broker;

namespace {

BrokerSnapshot makeSnapshot(int queueCount)
{
    BrokerSnapshot snapshot;
    snapshot.storage = QStringLiteral("memory");
    snapshot.takenAtMs = 1'800'000'000'000;
    for (int i = 0; i < queueCount; ++i) {
        QueueInfo info;
        info.name = QStringLiteral("tenant%1.orders").arg(i, 5, 10, QLatin1Char('0'));
        info.created = 1'790'000'000 + i;
        info.depth = i % 97;
        snapshot.queues.append(info);
    }
    return snapshot;
}

// One tick of a busy broker: a tenth of the queues changed depth and rates, 200 new events.
void advance(BrokerSnapshot &snapshot, QRandomGenerator &random, quint64 &eventNumber)
{
    snapshot.takenAtMs += 250;
    snapshot.uptimeSeconds += 1;
    const int changed = int(snapshot.queues.size() / 10);
    for (int i = 0; i < changed; ++i) {
        QueueInfo &info = snapshot.queues[random.bounded(int(snapshot.queues.size()))];
        info.depth = random.bounded(10'000);
        info.rates.publish1s = random.bounded(500);
        info.rates.consume1s = random.bounded(500);
        // The one-minute rates drive the forecast column: some queues fill, some drain.
        info.rates.publish1m = info.rates.publish1s;
        info.rates.consume1m = random.bounded(500);
        info.counters.published += random.bounded(100);
        info.counters.acked += random.bounded(100);
    }
    snapshot.recentEvents.clear();
    for (int i = 0; i < 200; ++i) {
        MessageEvent event;
        event.number = ++eventNumber;
        event.sequence = eventNumber;
        event.timeMs = snapshot.takenAtMs;
        event.queue = snapshot.queues[random.bounded(int(snapshot.queues.size()))].name;
        snapshot.recentEvents.append(event);
    }
    snapshot.lastEventNumber = eventNumber;
}

struct Figures
{
    double median = 0;
    double p95 = 0;
    double max = 0;
};

Figures summarize(QList<double> samples)
{
    std::sort(samples.begin(), samples.end());
    return {samples[samples.size() / 2], samples[qsizetype(double(samples.size()) * 0.95)], samples.last()};
}

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    const int queueCount = argc > 1 ? QString::fromLatin1(argv[1]).toInt() : 10'000;
    QTextStream out(stdout);

    BrokerClient client; // not started: the snapshots come from here
    Ui::MainWindow window(client, HostSettings{});
    window.resize(1180, 760);
    window.show();
    QRandomGenerator random(7);
    quint64 eventNumber = 0;
    BrokerSnapshot snapshot = makeSnapshot(queueCount);

    // The queue detail page is opened on one queue in the middle of the table.
    const QString detailQueue = snapshot.queues.at(snapshot.queues.size() / 2).name;
    auto tick = [&](Ui::MainWindow::Page page, bool detail = false) {
        if (detail)
            window.openQueue(detailQueue);
        else
            window.showPage(page);
        QElapsedTimer timer;
        timer.start();
        Q_EMIT client.snapshotUpdated(snapshot);
        window.repaint();
        return double(timer.nsecsElapsed()) / 1e6;
    };

    const double first = tick(Ui::MainWindow::Queues);
    out << "queues: " << queueCount << "\n";
    out << "first snapshot (every row inserted) + repaint: " << QString::number(first, 'f', 1) << " ms\n";

    struct Case
    {
        const char *name;
        Ui::MainWindow::Page page;
        std::function<void()> setUp;
        bool queueDetail = false;
    };
    QTableView *table = window.queuesPage()->view();
    const QList<Case> cases = {
        {"queues page, sorted by name", Ui::MainWindow::Queues, [] {}},
        {"queues page, sorted by depth (re-sorts each tick)", Ui::MainWindow::Queues,
         [table] { table->sortByColumn(2, Qt::DescendingOrder); }},
        {"overview page", Ui::MainWindow::Overview, [] {}},
        {"message flow page (tail + charts)", Ui::MainWindow::Flow, [] {}},
        {"queue detail page (one queue: totals, charts)", Ui::MainWindow::Queues, [] {}, true},
    };
    for (const Case &benchCase : cases) {
        benchCase.setUp();
        QList<double> samples;
        for (int i = 0; i < 60; ++i) {
            advance(snapshot, random, eventNumber);
            samples.append(tick(benchCase.page, benchCase.queueDetail));
            app.processEvents();
        }
        const Figures figures = summarize(samples);
        out << benchCase.name << ": median " << QString::number(figures.median, 'f', 2) << " ms, p95 "
            << QString::number(figures.p95, 'f', 2) << " ms, max " << QString::number(figures.max, 'f', 2)
            << " ms per tick (models " << QString::number(window.lastSnapshotApplyMs(), 'f', 2)
            << " ms in the last one)\n";
    }
    return 0;
}
