// SPDX-License-Identifier: GPL-3.0-or-later
// brokerctl's interactive shell on a terminal (a pty) and on a pipe: it never hangs when the
// client's circuit breaker refuses at once, and Ctrl+C ends a running command (consume --follow)
// and returns to the prompt, while Ctrl+C with no command running still ends the shell.
#include "brokerctlfixture.h"

#include <QTest>

#include <csignal>
#include <fcntl.h>
#include <pty.h>
#include <unistd.h>

using namespace BrokerCtlTesting;

class TestBrokerctlShell : public QObject
{
    Q_OBJECT

private:
    BrokerdFixture m_broker;

    // Waits (running the event loop) until `process` has finished, at most `timeoutMs`.
    static bool finishes(QProcess &process, int timeoutMs)
    {
        QElapsedTimer timer;
        timer.start();
        while (process.state() != QProcess::NotRunning && timer.elapsed() < timeoutMs)
            QTest::qWait(10);
        return process.state() == QProcess::NotRunning;
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_broker.start()); }
    void cleanupTestCase() { m_broker.stop(); }
    void openCircuitDoesNotHangTheTerminalShell();
    void ctrlCEndsFollowAndReturnsToThePrompt();
    void ctrlCWithNoCommandRunningEndsTheShell();
};

void TestBrokerctlShell::openCircuitDoesNotHangTheTerminalShell()
{
    // On a terminal the shell refreshes its queue names after every `queues` command. Once the
    // breaker is open (three failures: the refresh at start, `queues list`, its refresh), the
    // next refresh is refused at once; that refusal must still arrive through the event loop.
    int master = -1;
    int slave = -1;
    QVERIFY(::openpty(&master, &slave, nullptr, nullptr, nullptr) == 0);
    const QString slavePath = QString::fromLatin1(::ttyname(slave));
    QProcess shell;
    shell.setProcessEnvironment(m_broker.environment({"API_URL=http://127.0.0.1:1", "RETRY_ATTEMPTS=0", "TERM=dumb"}));
    shell.setStandardInputFile(slavePath);
    shell.start(BROKERCTL_PATH, {"shell"});
    QVERIFY(shell.waitForStarted());
    const QByteArray typed = "queues list\nqueues list\nhealth\nexit\n";
    QCOMPARE(::write(master, typed.constData(), size_t(typed.size())), ssize_t(typed.size()));
    ::fcntl(master, F_SETFL, O_NONBLOCK);
    QElapsedTimer timer;
    timer.start();
    char drained[4096];
    while (shell.state() != QProcess::NotRunning && timer.elapsed() < 20'000) {
        while (::read(master, drained, sizeof drained) > 0) {
        }
        QTest::qWait(10);
    }
    const bool finished = shell.state() == QProcess::NotRunning;
    if (!finished) {
        shell.kill();
        shell.waitForFinished(5000);
    }
    ::close(master);
    ::close(slave);
    const QByteArray err = shell.readAllStandardError();
    QVERIFY2(finished, "the shell hung once its circuit breaker was open");
    QCOMPARE(shell.exitCode(), 4);
    QVERIFY2(err.contains("circuit open"), err.constData());
    QVERIFY2(err.contains("cannot reach http://127.0.0.1:1"), err.constData());
}

void TestBrokerctlShell::ctrlCEndsFollowAndReturnsToThePrompt()
{
    QCOMPARE(m_broker.ctl({"queues", "create", "shell.follow"}).exitCode, 0);
    QProcess shell;
    shell.setProcessEnvironment(m_broker.environment());
    shell.start(BROKERCTL_PATH, {"shell", "-o", "json"});
    QVERIFY(shell.waitForStarted());
    shell.write("consume shell.follow --follow --wait 1\nhealth\nexit\n");
    shell.closeWriteChannel();
    QCOMPARE(m_broker.ctl({"publish", "shell.follow", R"({"first":1})"}).exitCode, 0);
    QByteArray out;
    QTRY_VERIFY_WITH_TIMEOUT((out += shell.readAllStandardOutput()).contains(R"({"first":1})"), 10'000);
    // Following: a second message arrives too, so the command is still running when Ctrl+C comes.
    QCOMPARE(m_broker.ctl({"publish", "shell.follow", R"({"second":2})"}).exitCode, 0);
    QTRY_VERIFY_WITH_TIMEOUT((out += shell.readAllStandardOutput()).contains(R"({"second":2})"), 10'000);
    QCOMPARE(::kill(pid_t(shell.processId()), SIGINT), 0);
    QVERIFY(finishes(shell, 15'000));
    out += shell.readAllStandardOutput();
    const QByteArray err = shell.readAllStandardError();
    QCOMPARE(shell.exitStatus(), QProcess::NormalExit);
    QCOMPARE(shell.exitCode(), 0);
    QVERIFY2(err.contains("interrupted"), err.constData());
    QVERIFY2(out.contains("\"status\":\"healthy\""), out.constData()); // the next line ran
}

void TestBrokerctlShell::ctrlCWithNoCommandRunningEndsTheShell()
{
    QProcess shell;
    shell.setProcessEnvironment(m_broker.environment());
    shell.start(BROKERCTL_PATH, {"shell", "-o", "json"});
    QVERIFY(shell.waitForStarted());
    shell.write("health\n"); // stdin stays open: the shell then waits for the next line
    QByteArray out;
    QTRY_VERIFY_WITH_TIMEOUT((out += shell.readAllStandardOutput()).contains("healthy"), 10'000);
    QTest::qWait(300); // past the end of the command: the shell is back to reading its input
    QCOMPARE(::kill(pid_t(shell.processId()), SIGINT), 0);
    QVERIFY(finishes(shell, 10'000));
    QCOMPARE(shell.exitStatus(), QProcess::CrashExit); // ended by the signal, as before
}

QTEST_GUILESS_MAIN(TestBrokerctlShell)
#include "tst_brokerctlshell.moc"
