// SPDX-License-Identifier: GPL-3.0-or-later
// brokerd with its journal (fsync always) on a disk that fails: a real small file system that
// fills up (tmpfs, mounted by the test as root), and fdatasync failing with EIO (the fault shim in
// LD_PRELOAD). A publish answered 503 must never be delivered, the broker refuses changes and
// says so while writes fail, recovers by itself when they work again, and after kill -9 at that
// moment starts with every acknowledged message.
#include "../support/brokerdlaunch.h"

#include <QDir>
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

#include <csignal>
#include <unistd.h>

namespace {

const QByteArray Key = "disk-full-test-admin-key-0123456789";

struct Answer
{
    int status = 0;
    QByteArray body;
    QByteArray retryAfter;
};

bool run(const QString &program, const QStringList &arguments)
{
    QProcess process;
    process.start(program, arguments);
    return process.waitForFinished(10'000) && process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0;
}

} // namespace

class TestDiskFull : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_disk; // where the journal lives
    bool m_mounted = false;
    QNetworkAccessManager m_network;
    QString m_base;
    std::unique_ptr<QProcess> m_broker;

    void writeConfig(const QString &journal)
    {
        QFile users(m_dir.filePath("users.yaml"));
        QVERIFY(users.open(QIODevice::WriteOnly));
        users.write("users:\n  admin:\n    role: admin\n    api_key: " + Key + "\n");
        users.close();
        QVERIFY(users.setPermissions(QFile::ReadOwner | QFile::WriteOwner));
        QFile config(m_dir.filePath("broker.yaml"));
        QVERIFY(config.open(QIODevice::WriteOnly));
        config.write("storage: {memory: {journal: {enabled: true, fsync: always, path: " + journal.toUtf8() + "}}}\n");
    }

    void startBroker(const QProcessEnvironment &environment = QProcessEnvironment::systemEnvironment())
    {
        m_broker = std::make_unique<QProcess>();
        m_broker->setProcessEnvironment(environment);
        m_broker->start(BROKERD_PATH, {"--config", m_dir.filePath("broker.yaml"), "--port", "0"});
        QVERIFY(m_broker->waitForStarted());
        QByteArray log;
        m_base = Broker::Test::waitUntilListening(*m_broker, log);
        QVERIFY2(!m_base.isEmpty(), log.constData());
    }

    void killBroker()
    {
        ::kill(pid_t(m_broker->processId()), SIGKILL);
        QVERIFY(m_broker->waitForFinished(10'000));
    }

    Answer request(const QByteArray &method, const QString &path, const QByteArray &body = {})
    {
        QNetworkRequest request(QUrl(m_base + path));
        request.setRawHeader("X-API-Key", Key);
        request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
        request.setTransferTimeout(5000);
        QNetworkReply *reply = m_network.sendCustomRequest(request, method, body);
        if (!QTest::qWaitFor([reply] { return reply->isFinished(); }, 10'000))
            reply->abort();
        Answer answer{reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), reply->readAll(),
                      reply->rawHeader("Retry-After")};
        reply->deleteLater();
        return answer;
    }

    // Publishes message number `n`; true when the broker acknowledged it.
    Answer publish(int n)
    {
        return request("POST", "/messages/disk",
                       QStringLiteral(R"({"message":{"n":%1,"pad":"%2"}})").arg(n).arg(QString(900, 'x')).toUtf8());
    }

    // Consumes everything; the message numbers delivered, with how often.
    QHash<qint64, int> drain()
    {
        QHash<qint64, int> delivered;
        for (int round = 0; round < 100; ++round) {
            const Answer answer = request("GET", "/messages/disk?count=100");
            const QJsonArray messages = QJsonDocument::fromJson(answer.body).object().value("messages").toArray();
            if (messages.isEmpty())
                break;
            for (const QJsonValue &message : messages)
                ++delivered[message.toObject().value("data").toObject().value("n").toInteger()];
        }
        return delivered;
    }

    // A refusal as an operator and a client should see it: 503, when to retry, why, no path.
    void checkRefusal(const Answer &answer)
    {
        QCOMPARE(answer.status, 503);
        QVERIFY2(answer.retryAfter.toInt() >= 1, answer.retryAfter.constData());
        QVERIFY2(answer.body.contains("Journal write failed") || answer.body.contains("Storage is read-only"), answer.body.constData());
        QVERIFY2(!answer.body.contains(m_dir.path().toUtf8()), answer.body.constData());
    }

    void checkReadOnlyHealth()
    {
        QVERIFY(QJsonDocument::fromJson(request("GET", "/health").body).object().value("status").toString() == "degraded");
        QCOMPARE(request("GET", "/health/ready").status, 503);
        const Answer errors = request("GET", "/errors");
        QVERIFY2(errors.body.contains("journal_read_only"), errors.body.constData());
        QVERIFY2(!errors.body.contains(m_dir.path().toUtf8()), errors.body.constData());
    }

private Q_SLOTS:
    void cleanup()
    {
        if (m_broker && m_broker->state() != QProcess::NotRunning)
            killBroker();
        if (m_mounted)
            run("umount", {m_disk});
        m_mounted = false;
    }

    void aFullDiskRefusesChangesAndLosesNothing()
    {
        if (::geteuid() != 0)
            QSKIP("mounting a small tmpfs needs root");
        m_disk = m_dir.filePath("disk");
        QVERIFY(QDir().mkpath(m_disk));
        if (!run("mount", {"-t", "tmpfs", "-o", "size=256k,mode=0700", "tmpfs", m_disk}))
            QSKIP("cannot mount a tmpfs here (no mount privilege in this container)");
        m_mounted = true;
        // Half of the disk is taken by something else, to be freed later.
        QFile filler(m_disk + "/filler");
        QVERIFY(filler.open(QIODevice::WriteOnly));
        QCOMPARE(filler.write(QByteArray(128 * 1024, 'f')), 128 * 1024);
        filler.close();
        writeConfig(m_disk + "/journal");
        startBroker();
        QCOMPARE(request("POST", "/queues", R"({"name":"disk"})").status, 200);

        QSet<qint64> acknowledged;
        int refused = 0;
        // Publishes until the disk refuses; returns how many it took.
        auto fill = [&](int first, int count) {
            for (int n = first; n < first + count; ++n) {
                const Answer answer = publish(n);
                if (answer.status == 200) {
                    acknowledged.insert(n);
                    continue;
                }
                if (refused++ == 0)
                    checkRefusal(answer);
            }
        };
        fill(0, 300);
        QVERIFY2(acknowledged.size() > 20 && refused > 0, qPrintable(QStringLiteral("%1 acknowledged, %2 refused").arg(acknowledged.size()).arg(refused)));
        checkReadOnlyHealth();
        checkRefusal(request("GET", "/messages/disk")); // a consume is a change too

        // A crash while the disk is full, and a start on it: the journal is well-formed, and the
        // broker takes what still fits, then refuses again.
        killBroker();
        startBroker();
        const int refusedBefore = refused;
        fill(300, 20);
        QVERIFY(refused > refusedBefore);
        checkReadOnlyHealth();

        QVERIFY(QFile::remove(m_disk + "/filler"));
        QElapsedTimer recovery;
        recovery.start();
        QTRY_COMPARE_WITH_TIMEOUT(request("GET", "/health/ready").status, 200, 10'000);
        const qint64 recoveredMs = recovery.elapsed();
        QCOMPARE(publish(1000).status, 200);
        acknowledged.insert(1000);

        const QHash<qint64, int> delivered = drain();
        qint64 lost = 0, duplicated = 0, refusedButDelivered = 0;
        for (const qint64 n : acknowledged)
            lost += delivered.contains(n) ? 0 : 1;
        for (auto it = delivered.cbegin(); it != delivered.cend(); ++it) {
            duplicated += it.value() > 1 ? 1 : 0;
            refusedButDelivered += acknowledged.contains(it.key()) ? 0 : 1;
        }
        qInfo("full disk (tmpfs 256 KiB, fsync always): 320 publishes, %lld acknowledged, %d refused; after a kill -9 "
              "and a start on the full disk, writable again %lld ms after space was freed; lost %lld, duplicated %lld, "
              "refused but delivered %lld",
              qint64(acknowledged.size()) - 1, refused, recoveredMs, lost, duplicated, refusedButDelivered);
        QCOMPARE(lost, 0);
        QCOMPARE(duplicated, 0);
        QCOMPARE(refusedButDelivered, 0);
    }

    void aFailingSyncRefusesChangesAndLosesNothing()
    {
        // fdatasync answering EIO (a failing device), switched on in the running broker.
        const QString control = m_dir.filePath("faults");
        QFile off(control);
        QVERIFY(off.open(QIODevice::WriteOnly));
        off.write("off\n");
        off.close();
        writeConfig(m_dir.filePath("eio.journal"));
        QProcessEnvironment faulty = QProcessEnvironment::systemEnvironment();
        faulty.insert("LD_PRELOAD", BROKER_FAULT_SHIM);
        faulty.insert("BROKER_FAULT_CONTROL", control);
        // Sanitizer builds: the shim is preloaded ahead of the sanitizer runtime on purpose.
        faulty.insert("ASAN_OPTIONS", faulty.value("ASAN_OPTIONS") + ":verify_asan_link_order=0");
        startBroker(faulty);
        QCOMPARE(request("POST", "/queues", R"({"name":"disk"})").status, 200);
        QSet<qint64> acknowledged;
        for (int n = 0; n < 20; ++n) {
            QCOMPARE(publish(n).status, 200);
            acknowledged.insert(n);
        }
        QFile on(control);
        QVERIFY(on.open(QIODevice::WriteOnly | QIODevice::Truncate));
        on.write("match=eio.journal sync=eio\n");
        on.close();
        for (int n = 20; n < 40; ++n)
            checkRefusal(publish(n));
        checkReadOnlyHealth();
        killBroker();

        startBroker();
        const QHash<qint64, int> delivered = drain();
        QCOMPARE(QSet<qint64>(delivered.keyBegin(), delivered.keyEnd()), acknowledged);
        qInfo("fdatasync EIO: 20 acknowledged before, 20 refused after; after kill -9: delivered %lld, every one acknowledged",
              qint64(delivered.size()));
    }
};

QTEST_GUILESS_MAIN(TestDiskFull)
#include "tst_diskfull.moc"
