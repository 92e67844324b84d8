// SPDX-License-Identifier: GPL-3.0-or-later
// brokerd on Redis, black-box, under load on loopback (label faults):
//  - Redis faults mid-run: kill -9 and started again with its data (appendfsync always), kill -9
//    and started again empty, SIGSTOP (a server that stops answering) then SIGCONT: no publish
//    the broker acknowledged while Redis was away is lost, no confirmed ack comes back, /health
//    goes healthy -> degraded -> healthy while the spool takes publishes and drains them, and a
//    queue Redis lost is created again and reported in /errors, /metrics and /health; with the
//    breaker's open time at 30 s, service returns within seconds (probes from 1 s);
//  - max_size and the spool's bound while Redis is away (429, then 503 with Retry-After), and a
//    broker killed with -9 while its spool holds publishes delivers them all after a restart;
//  - three brokerd on one Redis with competing consumers: never two leases on one message at a
//    time, and the leases of a broker killed with kill -9 come back within the visibility
//    timeout plus one second.
#include "../support/deliveryaudit.h"
#include "../support/eventloop.h"
#include "../support/brokerdlaunch.h"
#include "../support/redisserver.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <csignal>
#include <memory>

using namespace Broker::Testing;

namespace {

const QByteArray Key = "redis-failover-admin-key-0123456789";

struct Brokerd
{
    std::unique_ptr<QProcess> process;
    QString base;
};

} // namespace

class TestRedisFailover : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QNetworkAccessManager m_network;
    RedisServer m_redis;
    bool m_running = false;

    bool writeConfig()
    {
        QFile users(m_dir.filePath("users.yaml"));
        if (!users.open(QIODevice::WriteOnly))
            return false;
        users.write("users:\n  admin:\n    role: admin\n    api_key: " + Key + "\n");
        users.close();
        return true;
    }

    // Each broker has a config of its own, for a spool of its own.
    Brokerd startBroker(const QString &name, int breakerOpenSeconds = 1, const QString &extraRedis = {})
    {
        QFile config(m_dir.filePath(name + ".yaml"));
        config.open(QIODevice::WriteOnly);
        config.write(QStringLiteral("storage:\n  backend: redis\n  redis: {port: %1, command_timeout_ms: 500, "
                                    "connect_timeout_ms: 500, pool_wait_timeout_ms: 200, breaker_failures: 3, "
                                    "breaker_open_seconds: %3, spool_path: %2.spool%4}\n"
                                    "message_broker: {max_queue_size: 10000000, max_deliveries: 1000}\n")
                         .arg(m_redis.port())
                         .arg(name)
                         .arg(breakerOpenSeconds)
                         .arg(extraRedis.isEmpty() ? QString() : QStringLiteral(", ") + extraRedis)
                         .toUtf8());
        config.close();
        Brokerd broker;
        broker.process = std::make_unique<QProcess>();
        broker.process->start(BROKERD_PATH, {"--config", config.fileName(), "--port", "0"});
        broker.process->waitForStarted();
        QByteArray log;
        broker.base = Broker::Test::waitUntilListening(*broker.process, log);
        return broker;
    }

    QNetworkReply *send(const QString &base, const QByteArray &method, const QString &path, const QByteArray &body = {})
    {
        QNetworkRequest request(QUrl(base + path));
        request.setRawHeader("X-API-Key", Key);
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        request.setTransferTimeout(5000);
        return m_network.sendCustomRequest(request, method, body);
    }

    // One request, waited for: {status, JSON body}.
    std::pair<int, QJsonObject> call(const QString &base, const QByteArray &method, const QString &path,
                                     const QByteArray &body = {})
    {
        QNetworkReply *reply = send(base, method, path, body);
        QElapsedTimer timer;
        timer.start();
        while (!reply->isFinished() && timer.elapsed() < 10'000)
            QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
        reply->deleteLater();
        return {reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(),
                QJsonDocument::fromJson(reply->readAll()).object()};
    }

    static qint64 numberOf(const QJsonObject &message) { return message.value("data").toObject().value("n").toInteger(); }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY2(m_redis.start({"--appendonly", "yes", "--appendfsync", "always"}), qPrintable(m_redis.errorString()));
        QVERIFY(writeConfig());
    }

    void redisFaultUnderLoadLosesNothingAcknowledged_data()
    {
        QTest::addColumn<QString>("fault");
        QTest::addRow("kill-9-restart-with-its-data") << "kill-restart";
        QTest::addRow("kill-9-restart-empty") << "kill-restart-empty";
        QTest::addRow("sigstop-then-sigcont") << "stop-continue";
    }

    void redisFaultUnderLoadLosesNothingAcknowledged()
    {
        QFETCH(QString, fault);
        if (!m_redis.isRunning())
            QVERIFY2(m_redis.restart(), qPrintable(m_redis.errorString()));
        m_redis.cli({"FLUSHALL"});
        Brokerd broker = startBroker("solo-" + fault, 30); // probes from 1 s, not the 30 s open time
        QVERIFY(!broker.base.isEmpty());
        QCOMPARE(call(broker.base, "POST", "/queues", R"({"name":"jobs"})").first, 200);

        qint64 next = 1, attempted = 0;
        QSet<qint64> acknowledged, consumerAcked;
        QHash<qint64, int> deliveries;
        qint64 redeliveredAfterAck = 0;
        const auto note = [&](const QJsonObject &message) {
            const qint64 n = numberOf(message);
            redeliveredAfterAck += consumerAcked.contains(n) ? 1 : 0;
            ++deliveries[n];
        };
        // Context of every callback below: replies still in flight when the test ends find no one.
        QObject scope;
        std::function<void()> publish = [&] {
            if (!m_running)
                return;
            const qint64 n = next++;
            ++attempted;
            QNetworkReply *reply = send(broker.base, "POST", "/messages/jobs", QStringLiteral(R"({"message":{"n":%1}})").arg(n).toUtf8());
            connect(reply, &QNetworkReply::finished, &scope, [&, reply, n] {
                reply->deleteLater();
                if (reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() == 200)
                    acknowledged.insert(n);
                QTimer::singleShot(2, &scope, publish);
            });
        };
        std::function<void()> consume = [&] {
            if (!m_running)
                return;
            QNetworkReply *reply = send(broker.base, "GET", "/messages/jobs?acknowledge=false&count=5&visibility_timeout=2");
            connect(reply, &QNetworkReply::finished, &scope, [&, reply] {
                reply->deleteLater();
                const QJsonArray messages = QJsonDocument::fromJson(reply->readAll()).object().value("messages").toArray();
                if (messages.isEmpty()) {
                    QTimer::singleShot(20, &scope, consume);
                    return;
                }
                auto pending = std::make_shared<int>(int(messages.size()));
                for (const QJsonValue &value : messages) {
                    const QJsonObject message = value.toObject();
                    note(message);
                    const qint64 n = numberOf(message);
                    QNetworkReply *ack = send(broker.base, "PUT", "/messages/jobs/" + message.value("id").toString(),
                                              QJsonDocument(QJsonObject{{"receipt", message.value("receipt")}}).toJson());
                    connect(ack, &QNetworkReply::finished, &scope, [&, ack, n, pending] {
                        ack->deleteLater();
                        if (ack->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() == 200)
                            consumerAcked.insert(n);
                        if (--*pending == 0)
                            consume();
                    });
                }
            });
        };

        // Health every 100 ms: the timeline of what /health said.
        QStringList timeline;
        QElapsedTimer sinceRestart;
        qint64 healthyAfterRestartMs = -1, servedAfterRestartMs = -1;
        QTimer healthPoll;
        connect(&healthPoll, &QTimer::timeout, &scope, [&] {
            QNetworkReply *reply = send(broker.base, "GET", "/health");
            connect(reply, &QNetworkReply::finished, &scope, [&, reply] {
                reply->deleteLater();
                const QString status = QJsonDocument::fromJson(reply->readAll()).object().value("status").toString();
                if (!status.isEmpty() && (timeline.isEmpty() || timeline.last() != status))
                    timeline.append(status);
                if (status == "healthy" && sinceRestart.isValid() && healthyAfterRestartMs < 0)
                    healthyAfterRestartMs = sinceRestart.elapsed();
            });
        });
        healthPoll.start(100);

        // A consume answered 200 once Redis is back: the time service returned.
        QTimer servedPoll;
        connect(&servedPoll, &QTimer::timeout, &scope, [&] {
            if (!sinceRestart.isValid() || servedAfterRestartMs >= 0)
                return;
            QNetworkReply *reply = send(broker.base, "GET", "/queues/jobs");
            connect(reply, &QNetworkReply::finished, &scope, [&, reply] {
                reply->deleteLater();
                if (reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() == 200 && servedAfterRestartMs < 0)
                    servedAfterRestartMs = sinceRestart.elapsed();
            });
        });
        servedPoll.start(50);

        m_running = true;
        for (int i = 0; i < 4; ++i)
            publish();
        for (int i = 0; i < 2; ++i)
            consume();
        QTest::qWait(1500);
        const qint64 acknowledgedBeforeFault = acknowledged.size();
        // Sent before the fault: in Redis (or failed) when it struck. Redis restarted empty loses
        // those it held; what the broker owes is everything acknowledged from its spool.
        const qint64 firstAfterFault = next;
        const QSet<qint64> acknowledgedAtFault = acknowledged;
        if (fault == "stop-continue")
            m_redis.pause(); // SIGSTOP: connections stay, nothing answers
        else
            m_redis.kill(); // kill -9
        QTest::qWait(2500);
        const qint64 acknowledgedWhileDown = acknowledged.size() - acknowledgedBeforeFault;
        if (fault == "stop-continue")
            m_redis.resume();
        else if (fault == "kill-restart-empty")
            QVERIFY2(m_redis.restartEmpty(), qPrintable(m_redis.errorString()));
        else
            QVERIFY2(m_redis.restart(), qPrintable(m_redis.errorString()));
        sinceRestart.start();
        QTest::qWait(3000);
        m_running = false;
        QTest::qWait(500);

        // Take everything left, including leases that run out (2 s).
        QElapsedTimer drainTimer;
        drainTimer.start();
        int emptyInARow = 0;
        while (drainTimer.elapsed() < 15'000 && emptyInARow < 30) {
            const auto [status, body] = call(broker.base, "GET", "/messages/jobs?count=100");
            const QJsonArray messages = body.value("messages").toArray();
            for (const QJsonValue &value : messages)
                note(value.toObject());
            emptyInARow = messages.isEmpty() ? emptyInARow + 1 : 0;
            if (messages.isEmpty())
                QTest::qWait(100);
        }
        QVERIFY(waitUntil([&] { return timeline.last() == "healthy"; }, 10'000));
        healthPoll.stop();
        servedPoll.stop();

        // What the broker says about it.
        const auto [healthStatus, health] = call(broker.base, "GET", "/health");
        const QJsonObject spool =
            health.value("components").toObject().value("storage").toObject().value("spool").toObject();
        const auto [errorsStatus, errorsBody] = call(broker.base, "GET", "/errors");
        QStringList codes;
        for (const QJsonValue &record : errorsBody.value("errors").toArray())
            codes.append(record.toObject().value("code").toString());
        QNetworkReply *metricsReply = send(broker.base, "GET", "/metrics");
        QVERIFY(waitUntil([&] { return metricsReply->isFinished(); }, 10'000));
        const QByteArray metrics = metricsReply->readAll();
        metricsReply->deleteLater();
        broker.process->terminate();
        QVERIFY(broker.process->waitForFinished(10'000));

        const bool empty = fault == "kill-restart-empty";
        // Owed: every acknowledged publish, except (Redis restarted empty) those Redis itself held.
        QSet<qint64> owed = acknowledged, heldByRedis;
        if (empty) {
            for (const qint64 n : acknowledged) {
                if (n < firstAfterFault && !deliveries.contains(n))
                    heldByRedis.insert(n);
            }
            owed -= heldByRedis;
        }
        const auto [lost, duplicated] = Broker::Testing::DeliveryAudit::of(owed, deliveries);
        qInfo("redis %s for 2.5 s under load: attempted %lld, acknowledged %lld (%lld while Redis was away, "
              "spooled), delivered %lld, acknowledged-but-lost %lld, duplicated %lld, redelivered after a confirmed "
              "ack %lld, lost with Redis's own data %lld (of %lld acknowledged before the fault); /health: %s, "
              "served again %lld ms and healthy again %lld ms after Redis was back; queues recreated %lld",
              qPrintable(fault), attempted, qint64(acknowledged.size()), acknowledgedWhileDown,
              qint64(deliveries.size()), lost, duplicated, redeliveredAfterAck, qint64(heldByRedis.size()),
              qint64(acknowledgedAtFault.size()), qPrintable(timeline.join(" -> ")), servedAfterRestartMs,
              healthyAfterRestartMs, spool.value("queues_recreated").toInteger());
        QVERIFY(acknowledgedWhileDown > 20); // the spool really took publishes
        QCOMPARE(lost, 0);
        QCOMPARE(redeliveredAfterAck, 0);
        QVERIFY2(timeline.startsWith("healthy") && timeline.contains("degraded") && timeline.endsWith("healthy"),
                 qPrintable(timeline.join(" -> ")));
        // Probes from 1 s: back within seconds although the breaker's open time is 30 s.
        QVERIFY2(servedAfterRestartMs >= 0 && servedAfterRestartMs < 10'000, qPrintable(QString::number(servedAfterRestartMs)));
        QCOMPARE(healthStatus, 200);
        QCOMPARE(errorsStatus, 200);
        QCOMPARE(spool.value("queues_recreated").toInteger(), empty ? 1 : 0);
        QCOMPARE(codes.contains("queue_recreated"), empty);
        QVERIFY(metrics.contains(empty ? "brokerdesk_storage_queues_recreated_total 1\n"
                                       : "brokerdesk_storage_queues_recreated_total 0\n"));
        QCOMPARE(spool.value("status").toString(), QString("empty"));
    }

    void spoolBoundAndMaxSizeWhileRedisIsAway()
    {
        if (!m_redis.isRunning())
            QVERIFY2(m_redis.restart(), qPrintable(m_redis.errorString()));
        m_redis.cli({"FLUSHALL"});
        Brokerd broker = startBroker("bounded", 1, "spool_max_messages: 20");
        QVERIFY(!broker.base.isEmpty());
        QCOMPARE(call(broker.base, "POST", "/queues", R"({"name":"capped","options":{"max_size":10}})").first, 200);
        QCOMPARE(call(broker.base, "POST", "/queues", R"({"name":"open"})").first, 200);
        for (int n = 1; n <= 4; ++n)
            QCOMPARE(call(broker.base, "POST", "/messages/capped", QStringLiteral(R"({"message":{"n":%1}})").arg(n).toUtf8()).first, 200);
        m_redis.kill();
        QHash<int, int> statuses;
        QByteArray lastRefusal;
        for (int n = 5; n <= 65; ++n) {
            QNetworkReply *reply = send(broker.base, "POST", "/messages/capped", QStringLiteral(R"({"message":{"n":%1}})").arg(n).toUtf8());
            QVERIFY(waitUntil([&] { return reply->isFinished(); }, 10'000));
            const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
            ++statuses[status];
            if (status == 429)
                lastRefusal = reply->readAll();
            reply->deleteLater();
        }
        // The spool's own bound (20 messages): beyond it 503 with Retry-After.
        int spooledOpen = 0;
        QByteArray retryAfter, fullBody;
        for (int n = 1; n <= 30 && retryAfter.isEmpty(); ++n) {
            QNetworkReply *reply = send(broker.base, "POST", "/messages/open", QStringLiteral(R"({"message":{"n":%1}})").arg(n).toUtf8());
            QVERIFY(waitUntil([&] { return reply->isFinished(); }, 10'000));
            const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
            spooledOpen += status == 200 ? 1 : 0;
            if (status == 503 && reply->hasRawHeader("Retry-After")) {
                retryAfter = reply->rawHeader("Retry-After");
                fullBody = reply->readAll();
            }
            reply->deleteLater();
        }
        QVERIFY2(m_redis.restart(), qPrintable(m_redis.errorString()));
        QVERIFY(waitUntil([&] { return call(broker.base, "GET", "/queues/capped").first == 200; }, 10'000));
        QVERIFY(waitUntil([&] {
            return call(broker.base, "GET", "/health").second.value("status").toString() == "healthy";
        }, 10'000));
        const QJsonObject queue = call(broker.base, "GET", "/queues/capped").second;
        broker.process->terminate();
        QVERIFY(broker.process->waitForFinished(10'000));
        qInfo("a queue capped at 10 with 4 messages, Redis away, 61 publishes: %d answered 200, %d answered 429, "
              "%d answered 503; the queue holds %s afterwards",
              statuses.value(200), statuses.value(429), statuses.value(503),
              qPrintable(QString::fromUtf8(QJsonDocument(queue).toJson(QJsonDocument::Compact)).left(200)));
        qInfo("the spool (bound 20 messages) then took %d publishes for an uncapped queue before 503, Retry-After: %s",
              spooledOpen, retryAfter.constData());
        QVERIFY(statuses.value(200) <= 6);
        QVERIFY(statuses.value(429) >= 50);
        QVERIFY(lastRefusal.contains("Queue size limit reached"));
        QCOMPARE(statuses.value(200) + spooledOpen, 20);
        QCOMPARE(retryAfter, QByteArray("1"));
        QVERIFY2(fullBody.contains("spool is full"), fullBody.constData());
    }

    void brokerKilledWithSpooledPublishesDeliversThemAfterRestart()
    {
        if (!m_redis.isRunning())
            QVERIFY2(m_redis.restart(), qPrintable(m_redis.errorString()));
        m_redis.cli({"FLUSHALL"});
        Brokerd broker = startBroker("crash");
        QVERIFY(!broker.base.isEmpty());
        QCOMPARE(call(broker.base, "POST", "/queues", R"({"name":"jobs"})").first, 200);
        m_redis.kill();
        QSet<qint64> acknowledged;
        for (qint64 n = 1; n <= 60; ++n) {
            if (call(broker.base, "POST", "/messages/jobs", QStringLiteral(R"({"message":{"n":%1}})").arg(n).toUtf8()).first == 200)
                acknowledged.insert(n);
        }
        ::kill(pid_t(broker.process->processId()), SIGKILL); // the spool is all there is of them
        broker.process->waitForFinished(5000);
        QVERIFY2(m_redis.restart(), qPrintable(m_redis.errorString()));
        Brokerd again = startBroker("crash");
        QVERIFY(!again.base.isEmpty());
        QHash<qint64, int> deliveries;
        QElapsedTimer timer;
        timer.start();
        while (deliveries.size() < acknowledged.size() && timer.elapsed() < 10'000) {
            const auto [status, body] = call(again.base, "GET", "/messages/jobs?count=100");
            for (const QJsonValue &value : body.value("messages").toArray())
                ++deliveries[numberOf(value.toObject())];
            if (status != 200 || body.value("messages").toArray().isEmpty())
                QTest::qWait(50);
        }
        again.process->terminate();
        QVERIFY(again.process->waitForFinished(10'000));
        const auto [lost, duplicated] = Broker::Testing::DeliveryAudit::of(acknowledged, deliveries);
        qInfo("brokerd killed with %lld publishes in its spool, Redis back, brokerd started again: delivered %lld, "
              "lost %lld, duplicated %lld after %lld ms",
              qint64(acknowledged.size()), qint64(deliveries.size()), lost, duplicated, timer.elapsed());
        QVERIFY(acknowledged.size() >= 55);
        QCOMPARE(lost, 0);
        QCOMPARE(duplicated, 0);
    }

    void longPollOnOneBrokerIsWokenByAPublishOnAnother()
    {
        m_redis.cli({"FLUSHALL"});
        Brokerd a = startBroker("a"), b = startBroker("b");
        QCOMPARE(call(a.base, "POST", "/queues", R"({"name":"wake"})").first, 200);
        QNetworkReply *waiting = send(b.base, "GET", "/messages/wake?wait=10");
        QTest::qWait(300); // the consumer waits on broker b
        QElapsedTimer timer;
        timer.start();
        QCOMPARE(call(a.base, "POST", "/messages/wake", R"({"message":{"n":1}})").first, 200);
        QVERIFY(waitUntil([&] { return waiting->isFinished(); }, 10'000));
        const qint64 latency = timer.elapsed();
        const QJsonObject message = QJsonDocument::fromJson(waiting->readAll()).object().value("message").toObject();
        waiting->deleteLater();
        qInfo("a long poll on broker b got a message published on broker a after %lld ms", latency);
        QCOMPARE(numberOf(message), 1);
        QVERIFY2(latency < 2500, qPrintable(QString::number(latency))); // within a maintenance run (1 s)
        for (Brokerd *broker : {&a, &b}) {
            broker->process->terminate();
            broker->process->waitForFinished(10'000);
        }
    }

    void threeBrokersCompeteAndReclaimAKilledBrokersLeases()
    {
        m_redis.cli({"FLUSHALL"});
        Brokerd brokers[3] = {startBroker("a"), startBroker("b"), startBroker("c")};
        for (const Brokerd &b : brokers)
            QVERIFY(!b.base.isEmpty());
        QCOMPARE(call(brokers[0].base, "POST", "/queues", R"({"name":"shared","options":{"visibility_timeout":2}})").first, 200);
        QJsonArray batch;
        for (int i = 1; i <= 400; ++i)
            batch.append(QJsonObject{{"n", i}});
        QCOMPARE(call(brokers[1].base, "POST", "/messages/shared/batch",
                      QJsonDocument(QJsonObject{{"messages", batch}}).toJson(QJsonDocument::Compact)).first, 200);

        // Broker 2 takes five leases and dies holding them.
        const auto [status, taken] = call(brokers[2].base, "GET", "/messages/shared?acknowledge=false&count=5");
        QCOMPARE(status, 200);
        QSet<qint64> orphaned;
        for (const QJsonValue &value : taken.value("messages").toArray())
            orphaned.insert(numberOf(value.toObject()));
        QCOMPARE(orphaned.size(), 5);
        QElapsedTimer sinceLease;
        sinceLease.start();
        ::kill(pid_t(brokers[2].process->processId()), SIGKILL);
        brokers[2].process->waitForFinished(5000);

        // Consumers on brokers 0 and 1 lease and ack; a message leased while another lease on it
        // is still live is a double lease.
        QHash<qint64, qint64> liveUntil; // message -> lease deadline (ms since epoch), while leased
        qint64 doubleLeases = 0, acked = 0;
        qint64 orphansBackAfterMs = -1;
        QSet<qint64> orphansSeen;
        int outstanding = 0;
        m_running = true;
        // Context of every callback below: replies still in flight when the test ends find no one.
        QObject scope;
        std::function<void(int)> consume = [&](int which) {
            if (!m_running)
                return;
            ++outstanding;
            QNetworkReply *reply = send(brokers[which].base, "GET", "/messages/shared?acknowledge=false&count=3");
            connect(reply, &QNetworkReply::finished, &scope, [&, reply, which] {
                reply->deleteLater();
                --outstanding;
                const QJsonArray messages = QJsonDocument::fromJson(reply->readAll()).object().value("messages").toArray();
                const qint64 now = QDateTime::currentMSecsSinceEpoch();
                for (const QJsonValue &value : messages) {
                    const QJsonObject message = value.toObject();
                    const qint64 n = numberOf(message);
                    if (liveUntil.value(n, 0) > now)
                        ++doubleLeases;
                    liveUntil.insert(n, qint64(message.value("visible_at").toDouble() * 1000));
                    if (orphaned.contains(n)) {
                        orphansSeen.insert(n);
                        if (orphansSeen.size() == orphaned.size())
                            orphansBackAfterMs = sinceLease.elapsed();
                    }
                    ++outstanding;
                    QNetworkReply *ack = send(brokers[which].base, "PUT", "/messages/shared/" + message.value("id").toString(),
                                              QJsonDocument(QJsonObject{{"receipt", message.value("receipt")}}).toJson());
                    connect(ack, &QNetworkReply::finished, &scope, [&, ack, n] {
                        ack->deleteLater();
                        --outstanding;
                        if (ack->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() == 200) {
                            ++acked;
                            liveUntil.remove(n);
                        }
                    });
                }
                QTimer::singleShot(messages.isEmpty() ? 50 : 0, &scope, [&, which] { consume(which); });
            });
        };
        for (int i = 0; i < 3; ++i) {
            consume(0);
            consume(1);
        }
        QElapsedTimer timer;
        timer.start();
        while ((acked < 400 || orphansBackAfterMs < 0) && timer.elapsed() < 15'000)
            QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
        m_running = false;
        while (outstanding > 0 && timer.elapsed() < 20'000)
            QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
        for (int i = 0; i < 2; ++i) {
            brokers[i].process->terminate();
            brokers[i].process->waitForFinished(10'000);
        }
        qInfo("three brokers on one Redis: %lld acks, %lld double leases; the killed broker's 5 leases "
              "(visibility 2 s) all back after %lld ms",
              acked, doubleLeases, orphansBackAfterMs);
        QCOMPARE(doubleLeases, 0);
        QCOMPARE(acked, 400);
        QVERIFY(orphansBackAfterMs >= 0);
        QVERIFY2(orphansBackAfterMs <= 3000, qPrintable(QString::number(orphansBackAfterMs)));
    }
};

QTEST_GUILESS_MAIN(TestRedisFailover)
#include "tst_redisfailover.moc"
