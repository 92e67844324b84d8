// SPDX-License-Identifier: GPL-3.0-or-later
// tools/start.sh on a machine without a display: it starts brokerd with the arguments it was
// given, keeps its configuration and users in the XDG config folder and its journal in the XDG
// data folder (queues survive a restart), and writes nothing into the source tree.
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

namespace {
const QByteArray Key = "start-script-key-0001";
}

class TestStartScript : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    QProcessEnvironment environment() const
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove("DISPLAY");
        env.remove("WAYLAND_DISPLAY");
        env.insert("XDG_CONFIG_HOME", m_dir.filePath("config"));
        env.insert("XDG_DATA_HOME", m_dir.filePath("data"));
        env.insert("BUILD_DIR", QStringLiteral(BUILD_DIR));
        return env;
    }

    // Starts the script with `--port 0` (an argument it must pass on); the broker's URL, or empty.
    QString start(QProcess &script, QByteArray *out = nullptr)
    {
        script.setProcessEnvironment(environment());
        script.start("/bin/sh", {QStringLiteral(SOURCE_DIR "/tools/start.sh"), "--port", "0"});
        if (!script.waitForStarted())
            return {};
        QByteArray log;
        QElapsedTimer timer;
        timer.start();
        while (!log.contains("listening on") && script.state() == QProcess::Running && timer.elapsed() < 15'000) {
            QTest::qWait(10);
            log += script.readAllStandardError();
        }
        if (out)
            *out = script.readAllStandardOutput();
        return QRegularExpression("listening on (http://[0-9.]+:[0-9]+)").match(QString::fromLatin1(log)).captured(1);
    }

    static void stop(QProcess &script)
    {
        script.terminate(); // the script exec'd brokerd: this is brokerd's PID
        QVERIFY(script.waitForFinished(15'000));
        QCOMPARE(script.exitCode(), 0);
    }

    static QByteArray ctl(const QString &url, const QStringList &arguments)
    {
        QProcess process;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("API_URL", url);
        env.insert("API_KEY", QString::fromLatin1(Key));
        process.setProcessEnvironment(env);
        process.start(BROKERCTL_PATH, arguments);
        process.waitForFinished(30'000);
        return process.readAllStandardOutput();
    }

private Q_SLOTS:
    void headlessBrokerIsJournaledInXdgFolders();
};

void TestStartScript::headlessBrokerIsJournaledInXdgFolders()
{
    const bool sourceHadUsers = QFile::exists(SOURCE_DIR "/config/users.yaml");
    QProcess first;
    QByteArray out;
    QVERIFY(!start(first, &out).isEmpty()); // --port 0 was passed on: a free port, not 8080
    stop(first);
    const QString users = m_dir.filePath("config/brokerd/users.yaml");
    QVERIFY(QFile::exists(users));
    QCOMPARE(QFile(users).permissions() & (QFileDevice::ReadOther | QFileDevice::ReadGroup), QFileDevice::Permissions());
    QFile config(m_dir.filePath("config/brokerd/message_broker.yaml"));
    QVERIFY(config.open(QIODevice::ReadOnly));
    QVERIFY(config.readAll().contains("enabled: true "));
    if (!sourceHadUsers)
        QVERIFY(!QFile::exists(SOURCE_DIR "/config/users.yaml"));

    // A known key from here on; the configuration and the journal stay as the first start made them.
    QFile keyed(users);
    QVERIFY(keyed.open(QIODevice::WriteOnly | QIODevice::Truncate));
    keyed.write("users:\n  admin: {role: admin, api_key: " + Key + "}\n");
    keyed.close();
    QProcess second;
    QString url = start(second);
    QVERIFY(!url.isEmpty());
    ctl(url, {"queues", "create", "kept"});
    QVERIFY(ctl(url, {"publish", "kept", R"({"survives":true})"}).contains("message_id"));
    stop(second);
    QVERIFY(QDir(m_dir.filePath("data/brokerd")).exists("journal"));

    QProcess third;
    url = start(third);
    QVERIFY(!url.isEmpty());
    const QByteArray browsed = ctl(url, {"queues", "browse", "kept", "-o", "json"});
    stop(third);
    QCOMPARE(QJsonDocument::fromJson(browsed).object().value("total").toInt(), 1);
    QVERIFY(browsed.contains(R"({"survives":true})"));
}

QTEST_GUILESS_MAIN(TestStartScript)
#include "tst_startscript.moc"
