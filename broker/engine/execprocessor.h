// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "asyncprocessor.h"

#include "core/engineoptions.h"

#include <QObject>
#include <QStringList>

#include <memory>
#include <vector>

class QProcess;

namespace Broker {

// An `exec` entry of the config's processors: list.
struct ExecProcessorOptions
{
    QStringList command;               // argv: the program (found on PATH when it has no slash), then its arguments; no shell
    int timeoutMs = ProcessorDefaults{}.timeoutMs; // then the process is killed and the message nacked
    // of stdout and of stderr each, kept for the log; the rest is counted, not kept
    qint64 outputLimitBytes = ProcessorDefaults{}.outputLimitBytes;
};

// Runs the command once per message, with the message's data (compact JSON text) on stdin and its
// metadata in the environment (the broker's own environment plus BROKER_QUEUE, BROKER_MESSAGE_ID,
// BROKER_DELIVERY_COUNT, BROKER_PRIORITY, BROKER_PUBLISHER, BROKER_TIMESTAMP, BROKER_HEADERS, and
// BROKER_GROUP on stream queues). Exit status 0 acknowledges; any other status, a crash, a
// command that cannot start or one that outlives timeout_ms (killed) nacks. Its stdout and stderr
// are read as they come (never blocking the engine) and logged when it ends, bounded, with a note
// saying how much was cut. One process per message in flight (the registry's concurrency).
class ExecProcessor : public QObject, public AsyncProcessor
{
    Q_OBJECT
public:
    explicit ExecProcessor(ExecProcessorOptions options, QObject *parent = nullptr);
    ~ExecProcessor() override;

    void process(const Message &message, ProcessorDone done) override;
    QString kind() const override { return QStringLiteral("exec"); }
    // The program's file name: never its folder or its arguments.
    QString target() const override;
    qint64 leaseMs() const override;

    // The variables a command sees for `message` (the names above).
    static QStringList environmentFor(const Message &message);

private:
    struct Run;
    void finish(Run *run, const QString &failure);
    void logOutput(const Run &run) const;

    ExecProcessorOptions m_options;
    std::vector<std::unique_ptr<Run>> m_runs;
};

} // namespace Broker
