// SPDX-License-Identifier: GPL-3.0-or-later
// The durable memory store against the volatile one: publish throughput with each fsync policy,
// replay time and journal bytes per message. Prints figures; never fails on a number.
//
//   build/bench/journal_bench [--dir DIR] [--messages N] [--replay N]
//
// Clients are simulated the way the REST server sees them: `concurrency` single-message publishes
// arrive in one event-loop turn, and each is answered when its completion runs — so group commit
// shares one write (and one fdatasync with `always`) among them, as it does under load.
#include "engine/queuetyperegistry.h"
#include "storage/journaledstore.h"
#include "storage/memorystore.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>

#include <cstdio>

using namespace Broker;

namespace {

QByteArray payload200()
{
    QByteArray body = R"({"order":12345,"customer":"c-778","items":[1,2,3],"note":")";
    body.append(QByteArray(200 - body.size() - 2, 'x'));
    return body + R"("})";
}

// Publishes `total` messages, `concurrency` per event-loop turn; returns messages per second.
double publishRate(QueueStore &store, qint64 total, int concurrency)
{
    QueueConfig config;
    config.maxSize = total + 1;
    store.createQueue(QStringLiteral("bench"), config, [](Result<QueueInfo>) {});
    QCoreApplication::processEvents();
    NewMessage message;
    message.data = payload200();
    const QList<NewMessage> one{message};
    const QString publisher = QStringLiteral("bench");
    qint64 answered = 0;
    QElapsedTimer timer;
    timer.start();
    for (qint64 sent = 0; sent < total;) {
        const qint64 turn = std::min<qint64>(concurrency, total - sent);
        for (qint64 i = 0; i < turn; ++i) {
            store.publish(QStringLiteral("bench"), one, publisher, [&answered](Result<PublishResult> r) {
                if (!r)
                    qFatal("publish: %s", qPrintable(r.error().message));
                ++answered;
            });
        }
        sent += turn;
        while (answered < sent)
            QCoreApplication::processEvents(QEventLoop::AllEvents);
    }
    return double(total) / (double(timer.nsecsElapsed()) / 1e9);
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("BrokerDesk journal benchmark"));
    parser.addHelpOption();
    parser.addOption({QStringLiteral("dir"), QStringLiteral("Where the journals go (default: a temporary folder)."),
                      QStringLiteral("DIR")});
    parser.addOption({QStringLiteral("messages"), QStringLiteral("Messages per throughput run."), QStringLiteral("N"),
                      QStringLiteral("200000")});
    parser.addOption({QStringLiteral("replay"), QStringLiteral("Messages in the replay run."), QStringLiteral("N"),
                      QStringLiteral("1000000")});
    parser.process(app);
    QTemporaryDir temporary;
    const QString dir = parser.isSet(QStringLiteral("dir")) ? parser.value(QStringLiteral("dir")) : temporary.path();
    const qint64 total = parser.value(QStringLiteral("messages")).toLongLong();
    const qint64 replayCount = parser.value(QStringLiteral("replay")).toLongLong();
    QueueTypeRegistry types;
    SystemClock clock;

    std::printf("BrokerDesk journal benchmark (200-byte messages, journals in %s)\n\n", qPrintable(dir));
    std::printf("%-40s %12s %10s\n", "publish, 32 clients, one message each", "msg/s", "x volatile");
    double volatileRate = 0;
    {
        MemoryStore store(types, clock);
        volatileRate = publishRate(store, total, 32);
        std::printf("%-40s %12.0f %10.2f\n", "volatile (no journal)", volatileRate, 1.0);
    }
    struct Policy { JournalWriter::Fsync fsync; const char *name; };
    for (const Policy policy : {Policy{JournalWriter::Fsync::Never, "journal, fsync no"},
                                Policy{JournalWriter::Fsync::EverySecond, "journal, fsync everysec"},
                                Policy{JournalWriter::Fsync::Always, "journal, fsync always"}}) {
        const QString path = QDir(dir).filePath(QStringLiteral("bench-%1.journal").arg(int(policy.fsync)));
        QFile::remove(path);
        auto store = JournaledStore::open(types, clock, {path, policy.fsync});
        if (!store)
            qFatal("%s", qPrintable(store.error().message));
        const double rate = publishRate(**store, total, 32);
        const JournalWriter::Stats &stats = (*store)->writer().stats();
        std::printf("%-40s %12.0f %10.2f   (%lld writes, %lld fdatasyncs)\n", policy.name, rate, rate / volatileRate,
                    static_cast<long long>(stats.writes), static_cast<long long>(stats.syncs));
        store.value().reset();
        QFile::remove(path);
    }

    // Replay: a journal of `replayCount` published messages (batches of 100), opened again.
    const QString path = QDir(dir).filePath(QStringLiteral("replay.journal"));
    QFile::remove(path);
    {
        auto store = JournaledStore::open(types, clock, {path, JournalWriter::Fsync::Never});
        if (!store)
            qFatal("%s", qPrintable(store.error().message));
        QueueConfig config;
        config.maxSize = replayCount + 1;
        (*store)->createQueue(QStringLiteral("held"), config, [](Result<QueueInfo>) {});
        QList<NewMessage> batch(100);
        for (NewMessage &m : batch)
            m.data = payload200();
        for (qint64 done = 0; done < replayCount; done += batch.size()) {
            (*store)->publish(QStringLiteral("held"), batch, QStringLiteral("bench"), [](Result<PublishResult>) {});
            if (done % 10'000 == 0)
                QCoreApplication::processEvents();
        }
    }
    const qint64 bytes = QFile(path).size();
    QElapsedTimer timer;
    timer.start();
    JournaledStore::ReplayReport report;
    auto reopened = JournaledStore::open(types, clock, {path, JournalWriter::Fsync::Never}, &report);
    if (!reopened)
        qFatal("%s", qPrintable(reopened.error().message));
    const qint64 replayMs = timer.elapsed();
    std::printf("\n%-40s %12lld ms  (%lld records)\n", qPrintable(QStringLiteral("replay of %1 messages").arg(replayCount)),
                static_cast<long long>(replayMs), static_cast<long long>(report.records));
    std::printf("%-40s %12.1f\n", "journal bytes per message (200 B payload)", double(bytes) / double(replayCount));

    // Compaction of that state, and a start from the snapshot.
    QElapsedTimer compaction;
    compaction.start();
    (*reopened)->compact();
    (*reopened)->finishCompaction();
    const qint64 compactionMs = compaction.elapsed();
    const JournaledStore::CompactionStats stats = (*reopened)->compactionStats();
    reopened.value().reset();
    timer.restart();
    auto fromSnapshot = JournaledStore::open(types, clock, {path, JournalWriter::Fsync::Never}, &report);
    if (!fromSnapshot)
        qFatal("%s", qPrintable(fromSnapshot.error().message));
    std::printf("%-40s %12lld ms  (snapshot %.1f MB; written in %lld ms in the background)\n",
                "compaction: engine pause", static_cast<long long>(stats.lastPauseMs),
                double(stats.lastSnapshotBytes) / 1e6, static_cast<long long>(compactionMs - stats.lastPauseMs));
    std::printf("%-40s %12lld ms\n", "start from the snapshot", static_cast<long long>(timer.elapsed()));
    fromSnapshot.value().reset();
    for (const QString &file : {path, path + QStringLiteral(".snapshot")})
        QFile::remove(file);
    return 0;
}
