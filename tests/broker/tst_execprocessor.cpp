// SPDX-License-Identifier: GPL-3.0-or-later
// The exec processor with small shell scripts: exit 0 acknowledges, exit 3 nacks and
// dead-letters after max_deliveries, a command that hangs is killed at its timeout, one that
// cannot start nacks; the command reads the message on stdin and its metadata in the
// environment; what it prints is logged, bounded; concurrency bounds the processes at once.
#include "engine/execprocessor.h"

#include "processorfixture.h"

#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace Broker;
using namespace Broker::Testing;

class TestExecProcessor : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void outcomes_data();
    void outcomes();
    void readsStdinAndEnvironment();
    void outputIsLoggedBounded();
    void concurrencyBoundsProcesses();
    void targetIsTheProgramOnly();
    void removedWhileRunningLeavesNoChild();
};

namespace {

QStringList shell(const QString &script, const QStringList &arguments = {})
{
    return QStringList{QStringLiteral("/bin/sh"), QStringLiteral("-c"), script, QStringLiteral("sh")} + arguments;
}

void addExec(EngineFixture &f, const QStringList &command, int concurrency = 1, int timeoutMs = 10'000,
             qint64 outputLimit = 64 * 1024)
{
    ExecProcessorOptions options;
    options.command = command;
    options.timeoutMs = timeoutMs;
    options.outputLimitBytes = outputLimit;
    f.broker.registerProcessor(QStringLiteral("q"), std::make_unique<ExecProcessor>(options), concurrency);
}

// Keeps what the broker logs through its categories while it lives.
class LogCapture
{
public:
    LogCapture() { s_lines.clear(); s_previous = qInstallMessageHandler(&LogCapture::handle); }
    ~LogCapture() { qInstallMessageHandler(s_previous); }
    static const QStringList &lines() { return s_lines; }

private:
    static void handle(QtMsgType type, const QMessageLogContext &context, const QString &text)
    {
        if (QByteArrayView(context.category).startsWith("brokerdesk."))
            s_lines.append(text);
        else if (s_previous)
            s_previous(type, context, text);
    }
    static inline QStringList s_lines;
    static inline QtMessageHandler s_previous = nullptr;
};

} // namespace

void TestExecProcessor::outcomes_data()
{
    QTest::addColumn<QString>("script");
    QTest::addColumn<int>("acked");
    QTest::addColumn<int>("deadLettered");
    QTest::addColumn<int>("failures");
    QTest::addColumn<QString>("lastError");
    QTest::addRow("exit-0-acknowledges") << QStringLiteral("cat > /dev/null; exit 0") << 1 << 0 << 0 << QString();
    QTest::addRow("exit-3-nacks-then-dead-letters") << QStringLiteral("exit 3") << 0 << 1 << 2
                                                   << QStringLiteral("exit status 3");
    QTest::addRow("hang-is-killed-at-the-timeout") << QStringLiteral("exec sleep 30") << 0 << 1 << 2
                                                  << QStringLiteral("timed out after 300 ms");
    QTest::addRow("fails-once-then-succeeds") << QStringLiteral("[ \"$BROKER_DELIVERY_COUNT\" -ge 2 ]") << 1 << 0 << 1
                                             << QStringLiteral("exit status 1");
}

void TestExecProcessor::outcomes()
{
    QFETCH(QString, script);
    QFETCH(int, acked);
    QFETCH(int, deadLettered);
    QFETCH(int, failures);
    QFETCH(QString, lastError);
    EngineFixture f(processorTestOptions());
    QVERIFY(f.create(QStringLiteral("q"), jsonObject(R"({"max_deliveries":2,"dead_letter_queue":true})")).ok());
    addExec(f, shell(script), 1, 300);
    QVERIFY(f.publish(QStringLiteral("q"), {QByteArray(R"({"n":1})")}).ok());
    QVERIFY(runUntil(f, [&] { return f.info(QStringLiteral("q"))->size() == 0 && onlyStatus(f).inFlight == 0; }));
    QCOMPARE(f.info(QStringLiteral("q"))->counters.acked, acked);
    QCOMPARE(f.info(QStringLiteral("q.dlq"))->depth, deadLettered);
    const ProcessorStatus status = onlyStatus(f);
    QCOMPARE(status.successes, acked);
    QCOMPARE(status.failures, failures);
    QCOMPARE(status.lastError, lastError);
}

void TestExecProcessor::readsStdinAndEnvironment()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    EngineFixture f(processorTestOptions());
    QVERIFY(f.create(QStringLiteral("q")).ok());
    addExec(f, shell(QStringLiteral("cat > \"$1/stdin\"; printf '%s|%s|%s|%s|%s|%s' \"$BROKER_QUEUE\" \"$BROKER_MESSAGE_ID\" "
                                    "\"$BROKER_DELIVERY_COUNT\" \"$BROKER_PRIORITY\" \"$BROKER_PUBLISHER\" \"$BROKER_HEADERS\" "
                                    "> \"$1/env\""),
                     {dir.path()}));
    NewMessage message;
    message.data = R"({"order":42,"note":"säge"})";
    message.priority = 5;
    message.headers = jsonObject(R"({"trace":"t-9"})");
    Captured<PublishResult> published;
    f.broker.publish(QStringLiteral("q"), {message}, QStringLiteral("alice"), published.sink());
    const QString id = published.take()->messageIds().value(0);
    QVERIFY(runUntil(f, [&] { return f.info(QStringLiteral("q"))->counters.acked == 1; }, 0));

    QFile in(dir.filePath(QStringLiteral("stdin")));
    QVERIFY(in.open(QIODevice::ReadOnly));
    QCOMPARE(in.readAll(), message.data);
    QFile env(dir.filePath(QStringLiteral("env")));
    QVERIFY(env.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(env.readAll()), QStringLiteral("q|%1|1|5|alice|{\"trace\":\"t-9\"}").arg(id));
}

void TestExecProcessor::outputIsLoggedBounded()
{
    LogCapture log;
    EngineFixture f(processorTestOptions());
    QVERIFY(f.create(QStringLiteral("q")).ok());
    // 200,000 bytes on stdout, one line on stderr; 1 KiB of each is kept.
    addExec(f, shell(QStringLiteral("head -c 200000 /dev/zero | tr '\\000' x; echo oops >&2")), 1, 10'000, 1024);
    QVERIFY(f.publish(QStringLiteral("q"), numbers(1, 1)).ok());
    QVERIFY(runUntil(f, [&] { return f.info(QStringLiteral("q"))->counters.acked == 1; }, 0));
    const QStringList stdoutLines = LogCapture::lines().filter(QStringLiteral(", stdout: "));
    QCOMPARE(stdoutLines.size(), 1);
    QVERIFY2(stdoutLines.first().endsWith(u" [198976 more bytes not kept]"), qPrintable(stdoutLines.first().right(80)));
    QVERIFY(stdoutLines.first().contains(QString(1024, u'x')));
    QVERIFY(!stdoutLines.first().contains(QString(1025, u'x')));
    const QStringList stderrLines = LogCapture::lines().filter(QStringLiteral(", stderr: "));
    QCOMPARE(stderrLines.size(), 1);
    QVERIFY(stderrLines.first().endsWith(u"stderr: oops"));
}

void TestExecProcessor::concurrencyBoundsProcesses()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    EngineFixture f(processorTestOptions());
    QVERIFY(f.create(QStringLiteral("q")).ok());
    // Each run leaves a mark while it runs; the most marks seen at once is the processes at once.
    addExec(f, shell(QStringLiteral("touch \"$1/$BROKER_MESSAGE_ID\"; ls \"$1\" | wc -l >> \"$1.counts\"; sleep 0.2; "
                                    "rm \"$1/$BROKER_MESSAGE_ID\""),
                     {dir.path()}),
            2);
    QVERIFY(f.publish(QStringLiteral("q"), numbers(1, 6)).ok());
    int mostInFlight = 0;
    QVERIFY(runUntil(f, [&] {
        mostInFlight = qMax(mostInFlight, onlyStatus(f).inFlight);
        return f.info(QStringLiteral("q"))->counters.acked == 6;
    }, 0));
    QCOMPARE(mostInFlight, 2);
    QFile counts(dir.path() + QStringLiteral(".counts"));
    QVERIFY(counts.open(QIODevice::ReadOnly));
    int most = 0;
    const QList<QByteArray> lines = counts.readAll().split('\n');
    for (const QByteArray &line : lines)
        most = qMax(most, line.trimmed().toInt());
    QVERIFY2(most <= 2, qPrintable(QString::number(most)));
    QCOMPARE(lines.size() - 1, 6);
    counts.remove();
}

void TestExecProcessor::targetIsTheProgramOnly()
{
    ExecProcessorOptions options;
    options.command = {QStringLiteral("/opt/hooks/bin/deliver"), QStringLiteral("--token=abc")};
    const ExecProcessor processor(options);
    QCOMPARE(processor.target(), QStringLiteral("deliver"));
    QCOMPARE(processor.kind(), QStringLiteral("exec"));

    EngineFixture f(processorTestOptions());
    QVERIFY(f.create(QStringLiteral("q"), jsonObject(R"({"max_deliveries":1})")).ok());
    addExec(f, {QStringLiteral("/nonexistent/program")});
    QVERIFY(f.publish(QStringLiteral("q"), numbers(1, 1)).ok());
    QVERIFY(runUntil(f, [&] { return onlyStatus(f).failures == 1; }, 0));
    QVERIFY2(onlyStatus(f).lastError.startsWith(u"cannot start program:"), qPrintable(onlyStatus(f).lastError));
}

void TestExecProcessor::removedWhileRunningLeavesNoChild()
{
    // A processor removed (or a broker stopped) mid-run kills its command and reaps it: no child
    // left running, and no "destroyed while process is still running" from QProcess.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString pidFile = dir.filePath(QStringLiteral("pid"));
    EngineFixture f(processorTestOptions());
    QVERIFY(f.create(QStringLiteral("q")).ok());
    addExec(f, shell(QStringLiteral("echo $$ > \"$1\"; exec sleep 30"), {pidFile}));
    QVERIFY(f.publish(QStringLiteral("q"), numbers(1, 1)).ok());
    QVERIFY(runUntil(f, [&] { return QFileInfo(pidFile).size() > 0; }, 0));
    QFile file(pidFile);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray pid = file.readAll().trimmed();
    QVERIFY(!pid.isEmpty());
    QVERIFY(QFileInfo::exists(QStringLiteral("/proc/") + QString::fromLatin1(pid)));

    QTest::failOnWarning(QRegularExpression(QStringLiteral("Destroyed while process")));
    QVERIFY(f.broker.unregisterProcessor(onlyStatus(f).id));
    QVERIFY(!QFileInfo::exists(QStringLiteral("/proc/") + QString::fromLatin1(pid))); // reaped, not a zombie
}

QTEST_GUILESS_MAIN(TestExecProcessor)
#include "tst_execprocessor.moc"
