// SPDX-License-Identifier: GPL-3.0-or-later
#include "execprocessor.h"

#include "core/messagejson.h"
#include "errors/logging.h"

#include <QFileInfo>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTimer>

#include <algorithm>

namespace Broker {

namespace {

// The lease outlasts the command's deadline by this much (killing and reaping take a moment).
constexpr qint64 LeaseMarginMs = 5000;

} // namespace

// One process under way, with what it has said so far.
struct ExecProcessor::Run
{
    QString messageId;
    ProcessorDone done;
    std::unique_ptr<QProcess> process;
    QTimer deadline;
    bool timedOut = false;
    QByteArray stdoutText;
    QByteArray stderrText;
    qint64 stdoutCut = 0; // bytes beyond the limit, read and dropped
    qint64 stderrCut = 0;
};

ExecProcessor::ExecProcessor(ExecProcessorOptions options, QObject *parent) : QObject(parent), m_options(std::move(options))
{
}

ExecProcessor::~ExecProcessor()
{
    // Abandoned, not reported (AsyncProcessor): killed, and their messages come back when the
    // leases run out. Reaped here (SIGKILL ends a child at once), so that QProcess's destructor
    // finds nothing running.
    for (const std::unique_ptr<Run> &run : m_runs) {
        run->process->disconnect(this);
        run->process->kill();
        run->process->waitForFinished(1000);
    }
}

QString ExecProcessor::target() const
{
    return m_options.command.isEmpty() ? QString() : QFileInfo(m_options.command.first()).fileName();
}

qint64 ExecProcessor::leaseMs() const
{
    return m_options.timeoutMs + LeaseMarginMs;
}

QStringList ExecProcessor::environmentFor(const Message &message)
{
    QStringList variables{
        QStringLiteral("BROKER_QUEUE=") + message.queue,
        QStringLiteral("BROKER_MESSAGE_ID=") + message.id,
        QStringLiteral("BROKER_DELIVERY_COUNT=") + QString::number(message.deliveryCount),
        QStringLiteral("BROKER_PRIORITY=") + QString::number(message.priority),
        QStringLiteral("BROKER_PUBLISHER=") + message.publisher,
        QStringLiteral("BROKER_TIMESTAMP=") + QString::number(message.timestamp, 'f', 3),
        QStringLiteral("BROKER_HEADERS=") + QString::fromUtf8(compactJson(message.headers)),
    };
    if (!message.group.isEmpty())
        variables.append(QStringLiteral("BROKER_GROUP=") + message.group);
    return variables;
}

void ExecProcessor::process(const Message &message, ProcessorDone done)
{
    auto owned = std::make_unique<Run>();
    Run *run = owned.get();
    run->messageId = message.id;
    run->done = std::move(done);
    run->process = std::make_unique<QProcess>();
    QProcess *process = run->process.get();
    process->setProgram(m_options.command.value(0));
    process->setArguments(m_options.command.mid(1));
    QStringList environment = QProcessEnvironment::systemEnvironment().toStringList();
    environment.removeIf([](const QString &entry) { return entry.startsWith(u"BROKER_"); });
    process->setEnvironment(environment + environmentFor(message));
    m_runs.push_back(std::move(owned));

    // Read as it comes, so that a talkative command never stalls on a full pipe; keep the first
    // outputLimitBytes of each stream.
    const auto drain = [this, run](QProcess::ProcessChannel channel, QByteArray &kept, qint64 &cut) {
        run->process->setReadChannel(channel);
        const QByteArray chunk = run->process->readAll();
        const qint64 room = std::max<qint64>(0, m_options.outputLimitBytes - kept.size());
        kept += chunk.left(room);
        cut += std::max<qint64>(0, chunk.size() - room);
    };
    connect(process, &QProcess::readyReadStandardOutput, this,
            [run, drain] { drain(QProcess::StandardOutput, run->stdoutText, run->stdoutCut); });
    connect(process, &QProcess::readyReadStandardError, this,
            [run, drain] { drain(QProcess::StandardError, run->stderrText, run->stderrCut); });
    connect(process, &QProcess::finished, this, [this, run, drain](int exitCode, QProcess::ExitStatus status) {
        drain(QProcess::StandardOutput, run->stdoutText, run->stdoutCut);
        drain(QProcess::StandardError, run->stderrText, run->stderrCut);
        if (run->timedOut)
            return finish(run, QStringLiteral("timed out after %1 ms").arg(m_options.timeoutMs));
        if (status == QProcess::CrashExit)
            return finish(run, QStringLiteral("crashed"));
        finish(run, exitCode == 0 ? QString() : QStringLiteral("exit status %1").arg(exitCode));
    });
    connect(process, &QProcess::errorOccurred, this, [this, run](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart) // no finished() follows
            finish(run, QStringLiteral("cannot start %1: %2").arg(target(), run->process->errorString()));
    });
    run->deadline.setSingleShot(true);
    connect(&run->deadline, &QTimer::timeout, this, [run] {
        run->timedOut = true;
        run->process->kill(); // finished() follows
    });
    run->deadline.start(m_options.timeoutMs);

    process->start(QIODevice::ReadWrite);
    if (process->state() == QProcess::NotRunning)
        return; // it could not start: errorOccurred has settled the message (the object goes later)
    // Buffered by QProcess and written as the command reads; closing tells it that this was all.
    process->write(message.data);
    process->closeWriteChannel();
}

void ExecProcessor::logOutput(const Run &run) const
{
    const auto log = [&](const char *stream, const QByteArray &text, qint64 cut) {
        if (text.isEmpty() && cut == 0)
            return;
        QString line = QStringLiteral("exec %1, message %2, %3: %4")
                           .arg(target(), run.messageId, QLatin1StringView(stream), QString::fromUtf8(text).trimmed());
        if (cut > 0)
            line += QStringLiteral(" [%1 more bytes not kept]").arg(cut);
        qCInfo(lcEngine).noquote() << line;
    };
    log("stdout", run.stdoutText, run.stdoutCut);
    log("stderr", run.stderrText, run.stderrCut);
}

void ExecProcessor::finish(Run *run, const QString &failure)
{
    const auto it = std::find_if(m_runs.begin(), m_runs.end(), [run](const auto &each) { return each.get() == run; });
    if (it == m_runs.end())
        return;
    std::unique_ptr<Run> owned = std::move(*it);
    m_runs.erase(it);
    owned->deadline.stop();
    owned->process->disconnect(this);
    logOutput(*owned);
    const ProcessorDone done = std::move(owned->done);
    // Deleted later: this may run inside one of the process's own signals.
    QProcess *process = owned->process.release();
    process->deleteLater();
    done(failure.isEmpty() ? ProcessorOutcome::ack() : ProcessorOutcome::nack(failure));
}

} // namespace Broker
