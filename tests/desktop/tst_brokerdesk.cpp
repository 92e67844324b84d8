// SPDX-License-Identifier: GPL-3.0-or-later
#include <QColor>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

class TestBrokerdesk : public QObject
{
    Q_OBJECT

private:
    QTemporaryDir m_home; // XDG folders of a fresh user

    QProcessEnvironment environment(bool display) const
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove("DISPLAY");
        env.remove("WAYLAND_DISPLAY");
        env.remove("QT_QPA_PLATFORM");
        if (display)
            env.insert("QT_QPA_PLATFORM", "offscreen");
        env.insert("XDG_CONFIG_HOME", m_home.filePath("config"));
        env.insert("XDG_RUNTIME_DIR", m_home.path());
        env.insert("HOME", m_home.path());
        return env;
    }

private Q_SLOTS:
    void withoutADisplayItSaysSoAndNamesBrokerd();
    void version();
    void firstRunMakesConfigAndUsersInTheConfigFolder();
    void aSecondLaunchHandsOverToTheFirst();
    void rendersEveryPageToPng();
};

void TestBrokerdesk::withoutADisplayItSaysSoAndNamesBrokerd()
{
    QProcess process;
    process.setProcessEnvironment(environment(false));
    process.start(BROKERDESK_PATH, {});
    QVERIFY(process.waitForFinished(10000));
    QCOMPARE(process.exitCode(), 2);
    const QByteArray error = process.readAllStandardError();
    QVERIFY2(error.contains("no graphical display"), error);
    QVERIFY2(error.contains("brokerd --config"), error);
}

void TestBrokerdesk::version()
{
    // With a display and without one (a package check on a server, `brokerdesk --version` over ssh).
    for (const bool display : {true, false}) {
        QProcess process;
        process.setProcessEnvironment(environment(display));
        process.start(BROKERDESK_PATH, {"--version"});
        QVERIFY(process.waitForFinished(10000));
        QCOMPARE(process.exitCode(), 0);
        QVERIFY(process.readAllStandardOutput().contains(BROKER_VERSION));
    }
}

void TestBrokerdesk::firstRunMakesConfigAndUsersInTheConfigFolder()
{
    QProcess app;
    app.setProcessEnvironment(environment(true));
    app.start(BROKERDESK_PATH, {"--port", "0"});
    const QString folder = m_home.filePath("config/brokerdesk");
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(folder + "/users.yaml"), 10000);
    QVERIFY(QFile::exists(folder + "/message_broker.yaml"));
    QCOMPARE(QFile::permissions(folder + "/users.yaml") & (QFile::ReadGroup | QFile::ReadOther), QFile::Permissions());
    QFile users(folder + "/users.yaml");
    QVERIFY(users.open(QIODevice::ReadOnly));
    QVERIFY(users.readAll().contains("api_key_sha256"));
    app.terminate(); // SIGTERM: the app closes like its window was closed
    QVERIFY(app.waitForFinished(10000));
    QCOMPARE(app.exitStatus(), QProcess::NormalExit);
    QCOMPARE(app.exitCode(), 0);
    QVERIFY(QFile::exists(m_home.filePath("config/brokerdesk/brokerdesk.conf"))); // window state kept
}

void TestBrokerdesk::aSecondLaunchHandsOverToTheFirst()
{
    QProcess first;
    first.setProcessEnvironment(environment(true));
    first.start(BROKERDESK_PATH, {"--port", "0"});
    QVERIFY(first.waitForStarted());
    QTest::qWait(1500); // the first instance is listening by now

    QProcess second;
    second.setProcessEnvironment(environment(true));
    second.start(BROKERDESK_PATH, {"--port", "0"});
    QVERIFY(second.waitForFinished(10000));
    QCOMPARE(second.exitCode(), 0);
    QCOMPARE(first.state(), QProcess::Running); // still there, asked to come to the front
    first.terminate();
    QVERIFY(first.waitForFinished(10000));
}

void TestBrokerdesk::rendersEveryPageToPng()
{
    QTemporaryDir out;
    QProcess process;
    process.setProcessEnvironment(environment(true));
    process.start(BROKERDESK_PATH, {"--screenshots", out.path()});
    QVERIFY(process.waitForFinished(60000));
    QVERIFY2(process.exitCode() == 0, process.readAllStandardError());
    // Seven pages, the queue detail's two tabs and a remote broker's window (the sample broker over
    // its API), in the desktop's palette and in the dark theme.
    const QStringList expected{"brokers.png", "errors.png", "flow.png", "overview.png", "queue-detail.png",
                               "queue-messages.png", "queues.png", "remote-overview.png", "settings.png", "users.png"};
    for (const QString &dir : {out.path(), out.filePath("dark")}) {
        const QStringList files = QDir(dir).entryList({"*.png"}, QDir::Files, QDir::Name);
        QCOMPARE(files, expected);
        for (const QString &file : files) {
            const QImage image(QDir(dir).filePath(file));
            QVERIFY2(image.width() >= 1000 && image.height() >= 600, qPrintable(file));
        }
    }
    // The dark theme is dark: its overview's background is darker than the light one's.
    const QImage light(out.filePath("overview.png"));
    const QImage dark(out.filePath("dark/overview.png"));
    QVERIFY(QColor(dark.pixel(5, dark.height() - 5)).lightness() < QColor(light.pixel(5, light.height() - 5)).lightness());
}

QTEST_GUILESS_MAIN(TestBrokerdesk)
#include "tst_brokerdesk.moc"
