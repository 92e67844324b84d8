// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QProcess>
#include <QRegularExpression>
#include <QString>
#include <QTest>

namespace Broker::Test {

// Waits (running the event loop, so that servers of the test keep answering) until a started
// brokerd says where it listens, collecting its log in `log`. Returns the base URL
// (http://127.0.0.1:PORT), or an empty string when brokerd exited or did not listen in time.
inline QString waitUntilListening(QProcess &brokerd, QByteArray &log, int timeoutMs = 20'000)
{
    // The port counts only once the line has gone on past it: a read may end within it.
    static const QRegularExpression listening(QStringLiteral("listening on (https?://127\\.0\\.0\\.1:\\d+)\\D"));
    QString base;
    (void)QTest::qWaitFor([&] { // the result is in `base`
        log += brokerd.readAllStandardError();
        base = listening.match(QString::fromUtf8(log)).captured(1);
        return !base.isEmpty() || brokerd.state() == QProcess::NotRunning;
    }, timeoutMs);
    return base;
}

// Starts the brokerd at `path` on the users file `usersFile` and `port` ("0": any free one), and
// waits until it listens. Returns its base URL, or an empty string (then `log` says why).
inline QString startBrokerd(QProcess &brokerd, const QString &path, const QString &usersFile, const QString &port,
                            QByteArray &log)
{
    log.clear();
    brokerd.start(path, {QStringLiteral("--users"), usersFile, QStringLiteral("--port"), port});
    if (!brokerd.waitForStarted())
        return {};
    return waitUntilListening(brokerd, log);
}

} // namespace Broker::Test
