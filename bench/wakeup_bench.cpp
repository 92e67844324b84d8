// SPDX-License-Identifier: GPL-3.0-or-later
// Publish-to-wake benchmark: how long after a publish on broker A a long poll on broker B is
// answered, when both share one redis-server, and when they share a 6-node Redis Cluster; the
// same for a poll on A itself, in the same run, as the reference. Starts its own servers on free
// loopback ports (redis-server and redis-cli must be installed).
//   wakeup_bench [--rounds N]
// Prints p50, p90, p99 and the maximum in milliseconds. The reapers run once a minute here, so
// only a wake-up can answer a poll in time.

#include "core/clock.h"

#include "../tests/support/brokeronredis.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>

#include <algorithm>
#include <cstdio>
#include <memory>

using namespace Broker;
using namespace Broker::Testing;

namespace {

template<typename Predicate>
bool spinUntil(Predicate done, int timeoutMs)
{
    QElapsedTimer timer;
    timer.start();
    while (!done() && timer.elapsed() < timeoutMs)
        QCoreApplication::processEvents(QEventLoop::AllEvents, 1);
    return done();
}

double percentile(std::vector<double> values, double p)
{
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    return values[std::min(values.size() - 1, std::size_t(p * double(values.size())))];
}

// One round: `waiter` parks a poll, `publisher` publishes; the time from the publish call to
// the poll's answer, in ms (-1: not answered within 3 s).
double round(BrokerOnRedis &publisher, BrokerOnRedis &waiter, const QString &queue)
{
    bool answered = false;
    QElapsedTimer sincePublish;
    double latencyMs = -1;
    ConsumeRequest request;
    waiter.broker.consume(queue, request, 5'000, [&](Result<QList<Message>> result) {
        answered = true;
        if (result.ok() && !result->isEmpty())
            latencyMs = double(sincePublish.nsecsElapsed()) / 1e6;
    });
    // Long enough for the poll to find the queue empty and its marker to be set.
    spinUntil([] { return false; }, 5);
    NewMessage message;
    message.data = "\"tick\"";
    bool published = false;
    sincePublish.start();
    publisher.broker.publish(queue, {message}, QStringLiteral("bench"), [&](Result<PublishResult>) { published = true; });
    spinUntil([&] { return answered && published; }, 3'000);
    return latencyMs;
}

void measure(const char *setup, const RedisStoreOptions &options, int rounds)
{
    QueueTypeRegistry types;
    SystemClock clock;
    BrokerOnRedis a(options, types, clock, withoutReaper());
    BrokerOnRedis b(options, types, clock, withoutReaper());
    spinUntil([&] {
        return a.store.client().readyCount() == a.store.client().size() && b.store.client().readyCount() == b.store.client().size()
               && a.store.client().size() > 0 && b.store.client().size() > 0 && a.store.wakeups().subscriber().isSubscribed()
               && b.store.wakeups().subscriber().isSubscribed();
    }, 10'000);
    const QString queue = QStringLiteral("bench-wake");
    bool created = false;
    a.broker.createQueue(queue, QueueConfig{}, [&](Result<QueueInfo>) { created = true; });
    spinUntil([&] { return created; }, 5'000);
    bool known = false;
    b.broker.queueInfo(queue, [&](Result<QueueInfo>) { known = true; });
    spinUntil([&] { return known; }, 5'000);

    for (const auto &[label, publisher] : {std::pair{"other broker", &a}, std::pair{"same broker", &b}}) {
        std::vector<double> latencies;
        int missed = 0;
        for (int i = 0; i < rounds; ++i) {
            const double ms = round(*publisher, b, queue);
            if (ms < 0)
                ++missed;
            else
                latencies.push_back(ms);
        }
        std::printf("%-16s %-13s rounds %4d  p50 %6.2f ms  p90 %6.2f ms  p99 %6.2f ms  max %7.2f ms  missed %d\n", setup,
                    label, rounds, percentile(latencies, 0.5), percentile(latencies, 0.9), percentile(latencies, 0.99),
                    latencies.empty() ? 0.0 : *std::max_element(latencies.begin(), latencies.end()), missed);
    }
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.addHelpOption();
    QCommandLineOption roundsOption(QStringLiteral("rounds"), QStringLiteral("Rounds per setup (300)."), QStringLiteral("N"),
                                    QStringLiteral("300"));
    parser.addOption(roundsOption);
    parser.process(app);
    const int rounds = std::max(1, parser.value(roundsOption).toInt());

    RedisServer server;
    if (!server.start()) {
        std::fprintf(stderr, "cannot start redis-server: %s\n", qPrintable(server.errorString()));
        return 1;
    }
    RedisStoreOptions one;
    one.connection.port = server.port();
    one.pool.size = 2;
    measure("one redis-server", one, rounds);

    RedisCluster cluster;
    if (!cluster.start()) {
        std::fprintf(stderr, "cannot start a Redis cluster: %s\n", qPrintable(cluster.errorString()));
        return 1;
    }
    RedisStoreOptions clustered;
    clustered.cluster.emplace();
    for (const quint16 port : cluster.ports())
        clustered.cluster->seeds.append(Redis::NodeAddress{QStringLiteral("127.0.0.1"), port});
    clustered.pool.size = 1;
    measure("6-node cluster", clustered, rounds);
    return 0;
}
