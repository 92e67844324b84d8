// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "apiclient.h"

#include "core/eventstreamparser.h"
#include "output.h"

#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QObject>
#include <QStringList>

#include <functional>
#include <memory>

namespace BrokerCtl {

// Exit codes: scripts can tell what kind of failure it was.
enum ExitCode { Ok = 0, Failure = 1, UsageError = 2, HttpError = 3, ConnectionError = 4 };

// The subcommands. Each runs asynchronously and ends by calling `finish` with an exit code.
// This class is the one entry point; its handlers live by command group: commands.cpp (dispatch
// and the request plumbing), queuecommands.cpp, messagecommands.cpp, usercommands.cpp and
// operationcommands.cpp (health, metrics, processors, demo).
class Commands : public QObject
{
    Q_OBJECT
public:
    Commands(ApiClient &client, const Output &output, const QCommandLineParser &parser,
             std::function<void(int)> finish);

    // `words`: the command and its positional arguments, e.g. {"queues", "create", "orders"}.
    void run(const QStringList &words);
    static QString usage();
    // The command words, for completion and for the hint after an unknown command.
    static const QStringList &commandNames();
    // "did you mean 'queues'?" for a word close to a command (edit distance <= 2), else empty.
    static QString closestCommand(const QString &word);

private:
    // The answer parsed (for the fields brokerctl reads) and as it came (for JSON output and for
    // payloads, which are shown and exported exactly as the broker returned them).
    using Handler = std::function<void(const QJsonValue &json, const QByteArray &raw)>;
    // Sends the request; answers other than 2xx are printed with the server's error and request
    // id and end the command (HTTP error or connection failure).
    void call(const QByteArray &method, const QString &path, const QByteArray &body, Handler onSuccess,
              std::function<void()> onNoContent = {});
    void fail(int code, const QString &message);
    bool need(const QStringList &words, int count, const char *usage);
    QString option(const char *name) const;

    // queuecommands.cpp
    void queues(const QStringList &words);
    // messagecommands.cpp
    void publish(const QStringList &words);
    void consume(const QStringList &words);
    void settle(const QStringList &words); // ack, nack, extend
    // usercommands.cpp
    void users(const QStringList &words);
    // operationcommands.cpp
    void health();
    void metrics();
    void errors();
    void processors(const QStringList &words);
    void events(const QStringList &words);
    // watchcommand.cpp
    struct WatchState;
    void watch(const QStringList &words);
    void watchConnect(const std::shared_ptr<WatchState> &state);
    void printStreamEvent(const Broker::StreamEvent &event);
    void demo();
    void demoStep(const QString &queue, int published, int consumed);
    // profilecommands.cpp: list and add saved connections; returns the exit code.
    int profiles(const QStringList &words);
    // transfercommands.cpp: export|import definitions|messages
    void transfer(const QStringList &words);
    void exportDefinitions(const QString &file);
    void importDefinitions(const QString &file);
    void exportMessages(const QString &queue, const QString &file);
    void importMessages(const QString &queue, const QString &file);

    ApiClient &m_client;
    const Output &m_output;
    const QCommandLineParser &m_parser;
    std::function<void(int)> m_finish;
    QElapsedTimer m_timer;
    qint64 m_publishMs = 0;
};

} // namespace BrokerCtl
