// SPDX-License-Identifier: GPL-3.0-or-later
// kill -9 brokerd at random points while clients publish and consume with acks, with the journal
// at fsync `always`; then count. Every publish the broker acknowledged must be delivered or still
// queued (lost = 0); a message acknowledged by its consumer must never come back; duplicates
// happen only for messages whose ack was in flight when the broker died.
#include "../support/brokerdlaunch.h"
#include "../support/deliveryaudit.h"
#include "../support/testdata.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QProcess>
#include <QRandomGenerator>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <csignal>
#include <functional>

namespace {

constexpr int Rounds = 6;
constexpr int Publishers = 4;
constexpr int Consumers = 2;
const QByteArray Key = "crash-test-admin-key-0123456789abcdef"; // the admin of tests/data/crashrecovery/users.yaml

} // namespace

class TestCrashRecovery : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QNetworkAccessManager m_network;
    QString m_base;
    std::unique_ptr<QProcess> m_broker;
    bool m_running = false; // clients keep going while true

    qint64 m_nextId = 1;
    qint64 m_attempted = 0;
    QSet<qint64> m_acknowledged;       // publishes answered 200
    QHash<qint64, int> m_deliveries;   // message number -> times delivered
    QSet<qint64> m_consumerAcked;      // acks answered 200
    qint64 m_redeliveredAfterAck = 0;

    void startBroker()
    {
        m_broker = std::make_unique<QProcess>();
        m_broker->start(BROKERD_PATH, {"--config", m_dir.filePath("broker.yaml"), "--port", "0"});
        QVERIFY(m_broker->waitForStarted());
        QByteArray log;
        m_base = Broker::Test::waitUntilListening(*m_broker, log);
        QVERIFY2(!m_base.isEmpty(), log.constData());
    }

    QNetworkReply *send(const QByteArray &method, const QString &path, const QByteArray &body = {})
    {
        QNetworkRequest request(QUrl(m_base + path));
        request.setRawHeader("X-API-Key", Key);
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        request.setTransferTimeout(5000);
        return m_network.sendCustomRequest(request, method, body);
    }

    void publishLoop()
    {
        if (!m_running)
            return;
        const qint64 id = m_nextId++;
        ++m_attempted;
        QNetworkReply *reply = send("POST", "/messages/crash", QStringLiteral(R"({"message":{"n":%1}})").arg(id).toUtf8());
        connect(reply, &QNetworkReply::finished, this, [this, reply, id] {
            reply->deleteLater();
            if (reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() == 200)
                m_acknowledged.insert(id);
            publishLoop();
        });
    }

    void noteDelivery(const QJsonObject &message)
    {
        const qint64 n = message.value("data").toObject().value("n").toInteger();
        if (m_consumerAcked.contains(n))
            ++m_redeliveredAfterAck;
        ++m_deliveries[n];
    }

    void consumeLoop()
    {
        if (!m_running)
            return;
        QNetworkReply *reply = send("GET", "/messages/crash?acknowledge=false&count=5&visibility_timeout=2");
        connect(reply, &QNetworkReply::finished, this, [this, reply] {
            reply->deleteLater();
            const QJsonArray messages = QJsonDocument::fromJson(reply->readAll()).object().value("messages").toArray();
            if (messages.isEmpty()) {
                QTimer::singleShot(20, this, &TestCrashRecovery::consumeLoop);
                return;
            }
            auto pending = std::make_shared<int>(int(messages.size()));
            for (const QJsonValue &value : messages) {
                const QJsonObject message = value.toObject();
                noteDelivery(message);
                const qint64 n = message.value("data").toObject().value("n").toInteger();
                QNetworkReply *ack = send("PUT", "/messages/crash/" + message.value("id").toString(),
                                          QJsonDocument(QJsonObject{{"receipt", message.value("receipt")}}).toJson());
                connect(ack, &QNetworkReply::finished, this, [this, ack, n, pending] {
                    ack->deleteLater();
                    if (ack->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() == 200)
                        m_consumerAcked.insert(n);
                    if (--*pending == 0)
                        consumeLoop();
                });
            }
        });
    }

private Q_SLOTS:
    void initTestCase()
    {
        QFile users(m_dir.filePath("users.yaml"));
        QVERIFY(users.open(QIODevice::WriteOnly));
        users.write(Broker::Testing::testData(QStringLiteral("crashrecovery/users.yaml")));
        users.close();
        QFile config(m_dir.filePath("broker.yaml"));
        QVERIFY(config.open(QIODevice::WriteOnly));
        config.write(Broker::Testing::testData(QStringLiteral("crashrecovery/broker.yaml")));
    }

    void killedAtRandomPointsLosesNothingAcknowledged()
    {
        QRandomGenerator random(QRandomGenerator::global()->generate());
        for (int round = 0; round < Rounds; ++round) {
            startBroker();
            if (round == 0) {
                QNetworkReply *created = send("POST", "/queues", R"({"name":"crash"})");
                QTRY_VERIFY(created->isFinished());
                QCOMPARE(created->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), 200);
                created->deleteLater();
            }
            m_running = true;
            for (int i = 0; i < Publishers; ++i)
                publishLoop();
            for (int i = 0; i < Consumers; ++i)
                consumeLoop();
            QTest::qWait(300 + int(random.bounded(900)));
            ::kill(pid_t(m_broker->processId()), SIGKILL); // mid-request, mid-write, mid-sync
            m_running = false;
            QVERIFY(m_broker->waitForFinished(10'000));
            QTest::qWait(300); // every client request ends with an error now; the loops stop
        }

        // A last start: take everything that is left, then what comes back once the leases from
        // before the last kill run out (2 s visibility timeout).
        startBroker();
        auto drain = [this] {
            for (int requests = 0; requests < 1000; ++requests) {
                QNetworkReply *reply = send("GET", "/messages/crash?count=100");
                QTRY_VERIFY(reply->isFinished());
                reply->deleteLater();
                const QJsonArray messages = QJsonDocument::fromJson(reply->readAll()).object().value("messages").toArray();
                if (messages.isEmpty())
                    return;
                for (const QJsonValue &value : messages)
                    noteDelivery(value.toObject());
            }
        };
        drain();
        QTest::qWait(2500);
        drain();
        m_broker->terminate();
        QVERIFY(m_broker->waitForFinished(10'000));

        const auto [lost, duplicated] = Broker::Testing::DeliveryAudit::of(m_acknowledged, m_deliveries);
        qInfo("crash recovery, fsync always, %d kills: attempted %lld, acknowledged %lld, delivered %lld, "
              "lost %lld, duplicated %lld, redelivered after a confirmed ack %lld",
              Rounds, m_attempted, qint64(m_acknowledged.size()), qint64(m_deliveries.size()), lost, duplicated,
              m_redeliveredAfterAck);
        QVERIFY(m_acknowledged.size() > 100); // the clients really worked between the kills
        QCOMPARE(lost, 0);
        QCOMPARE(m_redeliveredAfterAck, 0);
    }
};

QTEST_GUILESS_MAIN(TestCrashRecovery)
#include "tst_crashrecovery.moc"
