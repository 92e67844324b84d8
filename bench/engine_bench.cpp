// SPDX-License-Identifier: GPL-3.0-or-later
// Engine benchmark: the broker facade on the memory store, no HTTP.
//   engine_bench [--messages N] [--queued N] [--json FILE]
// Prints publish+consume throughput for 200-byte messages at several batch sizes, and resident
// memory per queued message at 1,000,000 queued, and after draining.

#include "core/clock.h"
#include "engine/messagebroker.h"
#include "engine/queuetyperegistry.h"
#include "storage/memorystore.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <unistd.h>

#include <algorithm>
#include <cstdio>

using namespace Broker;

namespace {

qint64 residentBytes()
{
    QFile statm(QStringLiteral("/proc/self/statm"));
    if (!statm.open(QIODevice::ReadOnly))
        return 0;
    const QList<QByteArray> fields = statm.readAll().split(' ');
    return fields.value(1).toLongLong() * sysconf(_SC_PAGESIZE);
}

QByteArray payload200()
{
    QByteArray body = R"({"order":12345,"note":")";
    const QByteArray tail = R"("})";
    body.append(QByteArray(200 - body.size() - tail.size(), 'x'));
    body.append(tail);
    Q_ASSERT(body.size() == 200);
    return body;
}

struct Engine
{
    explicit Engine(const EngineOptions &options) : store(types, clock), broker(store, types, clock, options) {}
    SystemClock clock;
    QueueTypeRegistry types;
    MemoryStore store;
    MessageBroker broker;
};

void createQueue(MessageBroker &broker, const QString &name, qint64 maxSize)
{
    QueueConfig config;
    config.maxSize = maxSize;
    broker.createQueue(name, config, [](Result<QueueInfo> r) {
        if (!r)
            qFatal("create queue: %s", qPrintable(r.error().message));
    });
}

// Publishes and consumes `total` messages in batches of `batch`; returns messages per second.
double throughput(qint64 total, int batch, bool acknowledge)
{
    EngineOptions options;
    Engine engine(options);
    const QString queue = QStringLiteral("bench");
    createQueue(engine.broker, queue, 10'000'000);
    QList<NewMessage> messages(batch);
    for (NewMessage &m : messages)
        m.data = payload200();
    ConsumeRequest request;
    request.count = batch;
    request.acknowledge = acknowledge;
    request.user = QStringLiteral("consumer");
    const QString publisher = QStringLiteral("publisher");

    qint64 consumed = 0;
    QElapsedTimer timer;
    timer.start();
    for (qint64 done = 0; done < total; done += batch) {
        engine.broker.publish(queue, messages, publisher, [](Result<PublishResult> r) {
            if (!r)
                qFatal("publish: %s", qPrintable(r.error().message));
        });
        engine.broker.consume(queue, request, 0, [&](Result<QList<Message>> r) {
            if (!r)
                qFatal("consume: %s", qPrintable(r.error().message));
            if (!acknowledge) {
                for (const Message &m : *r) {
                    engine.broker.ack(queue, MessageRef{m.id, m.receipt, {}, request.user}, [](Result<void> a) {
                        if (!a)
                            qFatal("ack: %s", qPrintable(a.error().message));
                    });
                }
            }
            consumed += r->size();
        });
    }
    const double seconds = double(timer.nsecsElapsed()) / 1e9;
    if (consumed != (total / batch) * batch)
        qFatal("consumed %lld of %lld", consumed, total);
    return double(consumed) / seconds;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("BrokerDesk engine benchmark"));
    parser.addHelpOption();
    parser.addOption({QStringLiteral("messages"), QStringLiteral("Messages per throughput run."), QStringLiteral("N"),
                      QStringLiteral("2000000")});
    parser.addOption({QStringLiteral("queued"), QStringLiteral("Messages held for the memory figure."),
                      QStringLiteral("N"), QStringLiteral("1000000")});
    parser.addOption({QStringLiteral("json"), QStringLiteral("Also write the figures to FILE."), QStringLiteral("FILE")});
    parser.process(app);
    const qint64 total = parser.value(QStringLiteral("messages")).toLongLong();
    const qint64 queued = parser.value(QStringLiteral("queued")).toLongLong();

    QJsonObject results;
    std::printf("BrokerDesk engine benchmark (memory store, 200-byte messages)\n\n");
    std::printf("%-44s %14s\n", "publish + consume", "msg/s");
    QJsonArray runs;
    struct Run { int batch; bool acknowledge; const char *label; };
    for (const Run run : {Run{1, true, "batch 1, acknowledge=true"}, Run{100, true, "batch 100, acknowledge=true"},
                          Run{1000, true, "batch 1000, acknowledge=true"},
                          Run{100, false, "batch 100, lease + ack each"}}) {
        const double rate = throughput(total, run.batch, run.acknowledge);
        std::printf("%-44s %14.0f\n", run.label, rate);
        runs.append(QJsonObject{{QStringLiteral("batch"), run.batch},
                                {QStringLiteral("acknowledge"), run.acknowledge},
                                {QStringLiteral("messages_per_second"), qRound64(rate)}});
    }
    results.insert(QStringLiteral("throughput"), runs);

    // Memory: one queue holding `queued` messages.
    EngineOptions options;
    Engine engine(options);
    const QString queue = QStringLiteral("held");
    createQueue(engine.broker, queue, queued + 1);
    const qint64 idle = residentBytes();
    const int batch = 1000;
    QList<NewMessage> messages(batch);
    for (NewMessage &m : messages)
        m.data = payload200();
    const QString publisher = QStringLiteral("publisher");
    for (qint64 done = 0; done < queued; done += batch)
        engine.broker.publish(queue, messages, publisher, [](Result<PublishResult>) {});
    engine.broker.runMaintenance(); // notes the peak
    const qint64 full = residentBytes();
    ConsumeRequest request;
    request.count = batch;
    for (qint64 done = 0; done < queued; done += batch)
        engine.broker.consume(queue, request, 0, [](Result<QList<Message>>) {});
    const qint64 drained = residentBytes();
    engine.broker.runMaintenance(); // what the broker's timer does within a second of the drain
    const qint64 maintained = residentBytes();

    const double perMessage = double(full - idle) / double(queued);
    std::printf("\n%-44s %14s\n", "memory", "value");
    std::printf("%-44s %11.1f MB\n", "RSS idle (engine + one queue)", double(idle) / 1e6);
    std::printf("%-44s %11.1f MB\n", qPrintable(QStringLiteral("RSS with %1 queued").arg(queued)), double(full) / 1e6);
    std::printf("%-44s %14.1f\n", "bytes per queued message (incl. payload)", perMessage);
    std::printf("%-44s %11.1f MB\n", "RSS after draining", double(drained) / 1e6);
    std::printf("%-44s %11.1f MB\n", "RSS after the next maintenance run", double(maintained) / 1e6);
    results.insert(QStringLiteral("memory"),
                   QJsonObject{{QStringLiteral("queued"), queued},
                               {QStringLiteral("rss_idle_bytes"), idle},
                               {QStringLiteral("rss_full_bytes"), full},
                               {QStringLiteral("bytes_per_message"), perMessage},
                               {QStringLiteral("rss_drained_bytes"), drained},
                               {QStringLiteral("rss_after_maintenance_bytes"), maintained}});

    // After the memory figures, so that these queues do not weigh on them. The desktop app asks for a snapshot four times a second; this is what each costs the
    // engine's thread with many queues.
    {
        Engine many{EngineOptions{}};
        const int queueCount = 10'000;
        for (int i = 0; i < queueCount; ++i)
            createQueue(many.broker, QStringLiteral("tenant%1.orders").arg(i, 5, 10, QLatin1Char('0')), 1000);
        QList<double> samples;
        for (int i = 0; i < 21; ++i) {
            QElapsedTimer timer;
            timer.start();
            many.broker.snapshot(0, [](Result<BrokerSnapshot> snapshot) {
                if (!snapshot)
                    qFatal("snapshot: %s", qPrintable(snapshot.error().message));
            });
            samples.append(double(timer.nsecsElapsed()) / 1e6);
        }
        std::sort(samples.begin(), samples.end());
        std::printf("\n%-44s %11.2f ms\n", "snapshot of 10,000 queues (median of 21)", samples[samples.size() / 2]);
        results.insert(QStringLiteral("snapshot_10000_queues_ms"), samples[samples.size() / 2]);
    }

    if (parser.isSet(QStringLiteral("json"))) {
        QFile out(parser.value(QStringLiteral("json")));
        if (!out.open(QIODevice::WriteOnly) || out.write(QJsonDocument(results).toJson()) < 0) {
            std::fprintf(stderr, "cannot write %s\n", qPrintable(out.fileName()));
            return 1;
        }
    }
    return 0;
}
