// SPDX-License-Identifier: GPL-3.0-or-later
// brokerd with a webhook processor from its config (processors:) and the journal on, killed with
// SIGKILL while its target holds two messages unanswered: after the restart every message reaches
// the target and is acknowledged, the held ones again once their leases run out; none is lost.
#include "../support/brokerdlaunch.h"
#include "../support/httptarget.h"
#include "../support/testdata.h"

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

#include <csignal>

namespace {

const QByteArray Key = "crash-test-admin-key-0123456789abcdef"; // the admin of tests/data/crashrecovery/users.yaml
constexpr int Messages = 5;

} // namespace

class TestProcessorCrash : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QNetworkAccessManager m_network;
    QString m_base;
    std::unique_ptr<QProcess> m_broker;

    void startBroker()
    {
        m_broker = std::make_unique<QProcess>();
        m_broker->start(BROKERD_PATH, {"--config", m_dir.filePath("broker.yaml"), "--port", "0"});
        QVERIFY(m_broker->waitForStarted());
        QByteArray log;
        m_base = Broker::Test::waitUntilListening(*m_broker, log);
        QVERIFY2(!m_base.isEmpty(), log.constData());
    }
    QJsonObject call(const QByteArray &method, const QString &path, const QByteArray &body = {})
    {
        QNetworkRequest request(QUrl(m_base + path));
        request.setRawHeader("X-API-Key", Key);
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        request.setTransferTimeout(5000);
        QNetworkReply *reply = m_network.sendCustomRequest(request, method, body);
        if (!QTest::qWaitFor([reply] { return reply->isFinished(); }, 10'000))
            qFatal("no answer to %s %s", method.constData(), qPrintable(path));
        reply->deleteLater();
        return QJsonDocument::fromJson(reply->readAll()).object();
    }
    static QSet<QByteArray> ids(const Broker::Testing::HttpTarget &target)
    {
        QSet<QByteArray> out;
        for (const Broker::Testing::HttpTarget::Request &request : target.requests())
            out.insert(request.header("X-BrokerDesk-Message-Id"));
        return out;
    }

private Q_SLOTS:
    void killedWhileTheTargetHoldsMessagesLosesNone();
    void cleanup()
    {
        if (m_broker && m_broker->state() != QProcess::NotRunning) {
            m_broker->kill();
            m_broker->waitForFinished(5000);
        }
    }
};

void TestProcessorCrash::killedWhileTheTargetHoldsMessagesLosesNone()
{
    QVERIFY(m_dir.isValid());
    Broker::Testing::HttpTarget target({QStringLiteral("hang")});
    QFile users(m_dir.filePath("users.yaml"));
    QVERIFY(users.open(QIODevice::WriteOnly));
    users.write(Broker::Testing::testData(QStringLiteral("crashrecovery/users.yaml")));
    users.close();
    QFile config(m_dir.filePath("broker.yaml"));
    QVERIFY(config.open(QIODevice::WriteOnly));
    // A lease of timeout_ms + 5 s: the held messages come back 5.5 s after they were taken.
    config.write(QStringLiteral("storage: {memory: {journal: {enabled: true, fsync: always}}}\n"
                                "processors:\n"
                                "  - {name: jobs-hook, queue: jobs, type: webhook, url: \"%1\", concurrency: 2, timeout_ms: 500}\n")
                     .arg(target.url().toString())
                     .toUtf8());
    config.close();

    startBroker();
    QVERIFY(call("POST", "/queues", R"({"name":"jobs","options":{"max_deliveries":10}})").value("success").toBool());
    QCOMPARE(call("POST", "/messages/jobs/batch", R"({"messages":[1,2,3,4,5]})").value("message_ids").toArray().size(),
             Messages);
    QTRY_COMPARE(target.requests().size(), 2); // concurrency 2: two held, three waiting
    const QSet<QByteArray> held = ids(target);
    ::kill(pid_t(m_broker->processId()), SIGKILL);
    QVERIFY(m_broker->waitForFinished(5000));

    // The target answers from now on; the three waiting go out at once, the held two after their leases.
    target.setScript({QStringLiteral("200")});
    const qsizetype before = target.requests().size();
    startBroker();
    QTRY_VERIFY_WITH_TIMEOUT(target.requests().size() - before >= Messages, 20'000);
    QSet<QByteArray> after;
    for (const Broker::Testing::HttpTarget::Request &request : target.requests().mid(before))
        after.insert(request.header("X-BrokerDesk-Message-Id"));
    QCOMPARE(after.size(), Messages); // every message, none lost
    QVERIFY(after.contains(held));
    QTRY_COMPARE_WITH_TIMEOUT(call("GET", "/queues/jobs").value("stats").toObject().value("ack_count").toInt(), Messages, 10'000);
    const QJsonObject queue = call("GET", "/queues/jobs");
    QCOMPARE(queue.value("message_count").toInt(), 0);
    QCOMPARE(queue.value("in_flight").toInt(), 0);
    m_broker->terminate();
    QVERIFY(m_broker->waitForFinished(10'000));
}

QTEST_GUILESS_MAIN(TestProcessorCrash)
#include "tst_processorcrash.moc"
