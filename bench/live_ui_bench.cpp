// SPDX-License-Identifier: GPL-3.0-or-later
// How smooth the desktop window stays with many queues on a live broker, embedded against remote
// in one run: the same window on the embedded broker (BrokerClient) and on a brokerd reached over
// REST and /events (RemoteConnection), each with N queues and the same load (a load thread
// publishing to a tenth of the queues every 250 ms through the broker's REST API). Measured in
// the GUI thread, offscreen: the time it is busy per snapshot (event stream parsing, snapshot
// assembly, models, repaint: everything the GUI thread does) and its longest single stretch
// without returning to the event loop (what a user feels as a stall). Prints figures; the goal
// is at most 16 ms per update tick with 10,000 queues.
//
//   QT_QPA_PLATFORM=offscreen build/bench/live_ui_bench [queues] [seconds]
#include "../tests/support/brokerdlaunch.h"

#include "runtime/brokerclient.h"
#include "runtime/continuation.h"
#include "runtime/remoteconnection.h"
#include "ui/mainwindow.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTextStream>
#include <QThread>
#include <QTimer>

#include <algorithm>

using namespace Broker;

namespace {

const QByteArray AdminKey = "live-ui-bench-admin-key-0001";

QString queueName(int i)
{
    return QStringLiteral("tenant%1.orders").arg(i, 5, 10, QLatin1Char('0'));
}

// A blocking request for set-up (before anything is measured).
int request(const QString &url, const QByteArray &method, const QString &path, const QByteArray &body)
{
    QNetworkAccessManager network;
    QNetworkRequest request(QUrl(url + path));
    request.setRawHeader("X-API-Key", AdminKey);
    request.setHeader(QNetworkRequest::ContentTypeHeader, "application/json");
    QNetworkReply *reply = network.sendCustomRequest(request, method, body);
    QEventLoop loop;
    QObject::connect(reply, &QNetworkReply::finished, &loop, &QEventLoop::quit);
    loop.exec();
    reply->deleteLater();
    return reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
}

bool makeQueues(const QString &url, int count)
{
    // 2,000 per document: well under the API's body limit.
    for (int from = 0; from < count; from += 2000) {
        QJsonArray queues;
        for (int i = from; i < qMin(count, from + 2000); ++i)
            queues.append(QJsonObject{{QStringLiteral("name"), queueName(i)}});
        const QByteArray body = QJsonDocument(QJsonObject{{QStringLiteral("queues"), queues}}).toJson(QJsonDocument::Compact);
        if (request(url, "POST", QStringLiteral("/definitions"), body) != 200)
            return false;
    }
    return true;
}

// Publishes one message to each of `perTick` random queues every 250 ms, at most 64 requests out.
class Load : public QObject
{
public:
    Load(QString url, int queues, int perTick) : m_url(std::move(url)), m_queues(queues), m_perTick(perTick) {}
    void start()
    {
        m_network = new QNetworkAccessManager(this);
        m_timer = new QTimer(this);
        connect(m_timer, &QTimer::timeout, this, [this] { m_due += m_perTick; pump(); });
        m_timer->start(250);
    }
    // In the load's thread: its network and timer go, so the object can die in another.
    void stop()
    {
        delete m_timer;
        delete m_network; // aborts what is still out
        m_timer = nullptr;
        m_network = nullptr;
    }
    qint64 sent() const { return m_sent; }

private:
    void pump()
    {
        while (m_due > 0 && m_out < 64) {
            --m_due;
            ++m_out;
            QNetworkRequest request(QUrl(m_url + QStringLiteral("/messages/") + queueName(m_random.bounded(m_queues))));
            request.setRawHeader("X-API-Key", AdminKey);
            request.setHeader(QNetworkRequest::ContentTypeHeader, "application/json");
            QNetworkReply *reply = m_network->post(request, QByteArrayLiteral(R"({"message":{"n":1}})"));
            connect(reply, &QNetworkReply::finished, this, [this, reply] {
                if (!m_network)
                    return; // stopping
                reply->deleteLater();
                --m_out;
                ++m_sent;
                pump();
            });
        }
        m_due = qMin(m_due, m_perTick * 4); // a broker that falls behind is not flooded later
    }

    QString m_url;
    int m_queues;
    int m_perTick;
    QNetworkAccessManager *m_network = nullptr;
    QTimer *m_timer = nullptr;
    QRandomGenerator m_random{11};
    int m_due = 0;
    int m_out = 0;
    qint64 m_sent = 0;
};

// The GUI thread's busy stretches: every event it handles (socket reads, timers, queued calls,
// paints) timed from its outermost delivery. Their sum is the time the thread was busy; the
// longest is the longest the event loop could not answer the user.
class BusyMeter : public QApplication
{
public:
    using QApplication::QApplication;

    bool notify(QObject *receiver, QEvent *event) override
    {
        if (!m_on || m_depth > 0 || QThread::currentThread() != thread())
            return QApplication::notify(receiver, event);
        ++m_depth;
        QElapsedTimer timer;
        timer.start();
        const bool handled = QApplication::notify(receiver, event);
        const double ms = double(timer.nsecsElapsed()) / 1e6;
        --m_depth;
        m_busyMs += ms;
        m_stretches.append(ms);
        if (ms > m_longestMs) {
            m_longestMs = ms;
            m_longestWhat = QStringLiteral("%1 to a %2").arg(int(event->type())).arg(QString::fromLatin1(receiver->metaObject()->className()));
        }
        return handled;
    }
    void reset(bool on)
    {
        m_on = on;
        m_busyMs = 0;
        m_longestMs = 0;
        m_longestWhat.clear();
        m_stretches.clear();
    }
    void stop() { m_on = false; }
    double busyMs() const { return m_busyMs; }
    // The longest stretch's event: "type to a ReceiverClass".
    const QString &longestWhat() const { return m_longestWhat; }
    double longest() const { return m_stretches.isEmpty() ? 0 : *std::max_element(m_stretches.begin(), m_stretches.end()); }
    double percentile(double p) const
    {
        if (m_stretches.isEmpty())
            return 0;
        QList<double> sorted = m_stretches;
        std::sort(sorted.begin(), sorted.end());
        return sorted[qMin(sorted.size() - 1, qsizetype(double(sorted.size()) * p))];
    }

private:
    bool m_on = false;
    int m_depth = 0;
    double m_busyMs = 0;
    double m_longestMs = 0;
    QString m_longestWhat;
    QList<double> m_stretches;
};

struct Run
{
    QString name;
    int snapshots = 0;
    double busyPerSnapshot = 0;
    double p99Stretch = 0;
    double longestStretch = 0;
    QString longestWhat;
    double applyMs = 0; // the pages' models, in the last snapshot
    qint64 published = 0;
    int queuesShown = 0;
};

Run measure(const QString &name, Ui::MainWindow &window, BrokerConnection &connection, const QString &url, int queues,
            int seconds, BusyMeter &meter)
{
    Run run;
    run.name = name;
    window.resize(1180, 760);
    window.show();
    window.showPage(Ui::MainWindow::Queues);
    // Wait until the whole table is shown.
    QElapsedTimer wait;
    wait.start();
    int shown = 0;
    QMetaObject::Connection counting = QObject::connect(&connection, &BrokerConnection::snapshotUpdated, &window,
                                                        [&](const BrokerSnapshot &snapshot) { shown = int(snapshot.queues.size()); });
    while (shown < queues && wait.elapsed() < 60'000)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 100);

    QThread loadThread;
    loadThread.setObjectName(QStringLiteral("load"));
    Load load(url, queues, queues / 10);
    load.moveToThread(&loadThread);
    loadThread.start();
    QMetaObject::invokeMethod(&load, [&load] { load.start(); });
    QCoreApplication::processEvents(QEventLoop::AllEvents, 1000); // the load gets going

    int snapshots = 0;
    QMetaObject::Connection ticks = QObject::connect(&connection, &BrokerConnection::snapshotUpdated, &window,
                                                     [&] { ++snapshots; });
    meter.reset(true);
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < seconds * 1000)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    meter.stop(); // the figures read afterwards are those of the measured stretch
    run.snapshots = snapshots;
    QObject::disconnect(ticks);
    QObject::disconnect(counting);
    QMetaObject::invokeMethod(&load, [&load] { load.stop(); }, Qt::BlockingQueuedConnection);
    run.published = load.sent();
    loadThread.quit();
    loadThread.wait();
    run.queuesShown = shown;
    run.applyMs = window.lastSnapshotApplyMs();
    run.busyPerSnapshot = run.snapshots ? meter.busyMs() / run.snapshots : 0;
    run.p99Stretch = meter.percentile(0.99);
    run.longestStretch = meter.longest();
    run.longestWhat = meter.longestWhat();
    return run;
}

} // namespace

int main(int argc, char **argv)
{
    BusyMeter meter(argc, argv);
    const int queues = argc > 1 ? QString::fromLatin1(argv[1]).toInt() : 10'000;
    const int seconds = argc > 2 ? QString::fromLatin1(argv[2]).toInt() : 15;
    const QString only = argc > 3 ? QString::fromLatin1(argv[3]) : QString(); // "embedded" or "remote": that one alone
    QTextStream out(stdout);
    QTemporaryDir dir;
    QList<Run> runs;

    const auto record = [&](Run run) {
        out << run.name << ": " << run.queuesShown << " queues shown, " << run.snapshots << " snapshots in " << seconds
            << " s; GUI thread busy " << QString::number(run.busyPerSnapshot, 'f', 2) << " ms per snapshot; busy stretches p99 "
            << QString::number(run.p99Stretch, 'f', 2) << " ms, longest " << QString::number(run.longestStretch, 'f', 2) << " (event " << run.longestWhat << ")"
            << " ms; " << run.published << " messages published; pages' models " << QString::number(run.applyMs, 'f', 2) << " ms in the last snapshot\n";
        out.flush();
        runs.append(run);
    };

    // Embedded: the app's own broker in its worker thread, loaded through its REST API.
    QFile users(dir.filePath(QStringLiteral("users.yaml")));
    if (!users.open(QIODevice::WriteOnly))
        return 1;
    users.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    users.write("users:\n  bench: {role: admin, api_key: " + AdminKey + "}\n");
    users.close();
    if (only.isEmpty() || only == QLatin1StringView("embedded")) {
        QFile config(dir.filePath(QStringLiteral("message_broker.yaml")));
        if (!config.open(QIODevice::WriteOnly))
            return 1;
        config.write("api: {bind: 127.0.0.1, port: 0}\n");
        config.close();
        BrokerClient client;
        HostSettings settings;
        settings.configFile = config.fileName();
        settings.usersFile = users.fileName();
        Ui::MainWindow window(client, settings);
        window.startBroker();
        QElapsedTimer wait;
        wait.start();
        while (client.state() != BrokerClient::State::Running && wait.elapsed() < 20'000)
            QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 100);
        const QString url = client.lastStart().apiUrl;
        if (url.isEmpty() || !makeQueues(url, queues)) {
            out << "the embedded broker did not start or refused the queues\n";
            return 1;
        }
        Run run = measure(QStringLiteral("embedded"), window, client, url, queues, seconds, meter);
        record(run);
    }

    // Remote: brokerd in its own process, the window on a RemoteConnection.
    if (only.isEmpty() || only == QLatin1StringView("remote")) {
        QProcess brokerd;
        QByteArray log;
        const QString url = Test::startBrokerd(brokerd, QStringLiteral(BROKERD_PATH), users.fileName(), QStringLiteral("0"), log);
        if (url.isEmpty() || !makeQueues(url, queues)) {
            out << "brokerd did not start or refused the queues: " << log << "\n";
            return 1;
        }
        auto connection = std::make_unique<RemoteConnection>(QStringLiteral("bench"), RemoteEndpoint{QUrl(url), AdminKey, {}});
        RemoteConnection &remote = *connection;
        Ui::MainWindow window(std::move(connection));
        Run run = measure(QStringLiteral("remote"), window, remote, url, queues, seconds, meter);
        record(run);
        brokerd.terminate();
        brokerd.waitForFinished(10'000);
    }

    if (runs.size() == 2 && runs[0].busyPerSnapshot > 0)
        out << "remote / embedded GUI-thread time per snapshot: "
            << QString::number(runs[1].busyPerSnapshot / runs[0].busyPerSnapshot, 'f', 2) << "\n";
    return 0;
}
