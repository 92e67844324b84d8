// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A brokerd on a free loopback port and a way to run brokerctl against it (black-box: the two
// binaries, nothing linked).
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

namespace BrokerCtlTesting {

inline const QByteArray AdminKey = "cli-admin-key-0001";

struct Run
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
    QJsonObject json() const { return QJsonDocument::fromJson(out).object(); }
};

struct BrokerdFixture
{
    QTemporaryDir dir;
    QProcess brokerd;
    QString url;

    // Starts brokerd with one admin; false (and a message) when it does not come up.
    bool start()
    {
        QFile users(dir.filePath("users.yaml"));
        if (!users.open(QIODevice::WriteOnly))
            return false;
        users.write("users:\n  admin: {role: admin, api_key: " + AdminKey + "}\n");
        users.close();
        brokerd.start(BROKERD_PATH, {"--users", users.fileName(), "--port", "0"});
        if (!brokerd.waitForStarted())
            return false;
        QByteArray log;
        QElapsedTimer timer;
        timer.start();
        while (!(log += brokerd.readAllStandardError()).contains("listening on") && timer.elapsed() < 10'000)
            QTest::qWait(10);
        url = QRegularExpression("listening on (http://[0-9.]+:[0-9]+)").match(QString::fromLatin1(log)).captured(1);
        return url.startsWith("http://127.0.0.1:");
    }
    void stop()
    {
        brokerd.terminate();
        brokerd.waitForFinished(10'000);
    }

    // The environment brokerctl runs in: this broker, the admin key, XDG folders in the
    // temporary folder (profiles, history), plus `extra` ("NAME=value").
    QProcessEnvironment environment(const QStringList &extra = {}) const
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert("API_URL", url);
        env.insert("API_KEY", QString::fromLatin1(AdminKey));
        env.insert("XDG_CONFIG_HOME", dir.filePath("config"));
        env.insert("XDG_STATE_HOME", dir.filePath("state"));
        env.remove("BROKERCTL_PROFILE");
        for (const QString &pair : extra)
            env.insert(pair.section('=', 0, 0), pair.section('=', 1));
        return env;
    }

    // Runs brokerctl to the end (at most 30 s) while this process's event loop keeps running.
    Run ctl(const QStringList &arguments, const QByteArray &input = {}, const QStringList &extraEnv = {}) const
    {
        QProcess process;
        process.setProcessEnvironment(environment(extraEnv));
        process.start(BROKERCTL_PATH, arguments);
        process.waitForStarted();
        if (!input.isNull())
            process.write(input);
        process.closeWriteChannel();
        QElapsedTimer timer;
        timer.start();
        while (process.state() != QProcess::NotRunning && timer.elapsed() < 30'000)
            QTest::qWait(5);
        if (process.state() != QProcess::NotRunning) {
            process.kill();
            process.waitForFinished(5000);
            return Run{-1, process.readAllStandardOutput(), process.readAllStandardError()};
        }
        return Run{process.exitCode(), process.readAllStandardOutput(), process.readAllStandardError()};
    }
};

} // namespace BrokerCtlTesting
