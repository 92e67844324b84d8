// SPDX-License-Identifier: GPL-3.0-or-later
// The dispatcher and the request plumbing every command group uses.
#include "commands.h"

namespace BrokerCtl {

Commands::Commands(ApiClient &client, const Output &output, const QCommandLineParser &parser,
                   std::function<void(int)> finish)
    : m_client(client), m_output(output), m_parser(parser), m_finish(std::move(finish))
{
}

QString Commands::usage()
{
    return QStringLiteral(
        "Commands:\n"
        "  health                                  broker health\n"
        "  queues list                             queues with depth and counters\n"
        "  queues create NAME [--type T] [--max-size N] [--ttl S] [--visibility S]\n"
        "                     [--max-deliveries N] [--dlq NAME|true]\n"
        "  queues info|delete|purge NAME\n"
        "  queues browse NAME [--offset N] [--limit N]\n"
        "  queues redrive NAME [--limit N]\n"
        "  publish QUEUE [MESSAGE] [--file F] [--lines] [--priority N] [--delay S]\n"
        "                                          MESSAGE, else the file, else stdin; JSON or text;\n"
        "                                          --lines: one message per line, sent in batches\n"
        "  consume QUEUE [--count N] [--lease] [--visibility S] [--wait S] [--group G]\n"
        "                [--consumer C] [--follow]\n"
        "  ack QUEUE ID [--receipt R]\n"
        "  nack QUEUE ID [--receipt R] [--delay S]\n"
        "  extend QUEUE ID --visibility S [--receipt R]\n"
        "  users list | users add ID --roles R[,R] [--name N] | users rotate|delete ID\n"
        "  metrics                                 Prometheus metrics\n"
        "  demo [--messages N] [--batch N]         create a queue, publish, consume, report msg/s, delete\n"
        "  shell                                   the interactive mode (also: no command on a terminal)\n"
        "\n"
        "Environment: API_URL, API_KEY, TIMEOUT (s), RETRY_ATTEMPTS, RETRY_DELAY (s).\n"
        "Exit codes: 0 ok, 1 failure, 2 usage error, 3 HTTP error, 4 connection failure.");
}

QString Commands::option(const char *name) const
{
    return m_parser.value(QString::fromLatin1(name));
}

void Commands::fail(int code, const QString &message)
{
    Output::error(message);
    m_finish(code);
}

bool Commands::need(const QStringList &words, int count, const char *usage)
{
    if (words.size() >= count)
        return true;
    fail(UsageError, QStringLiteral("usage: brokerctl %1").arg(QLatin1StringView(usage)));
    return false;
}

void Commands::call(const QByteArray &method, const QString &path, const QByteArray &body, Handler onSuccess,
                    std::function<void()> onNoContent)
{
    m_client.request(method, path, body, [this, onSuccess = std::move(onSuccess), onNoContent = std::move(onNoContent)](
                                             const ApiResponse &response) {
        if (response.connectionFailed())
            return fail(ConnectionError, response.describeError());
        if (!response.ok())
            return fail(HttpError, response.describeError());
        if (response.status == 204 && onNoContent)
            return onNoContent();
        onSuccess(response.json());
    });
}

void Commands::run(const QStringList &words)
{
    const QString command = words.value(0);
    if (command == u"health")
        return health();
    if (command == u"queues")
        return queues(words);
    if (command == u"publish")
        return publish(words);
    if (command == u"consume")
        return consume(words);
    if (command == u"ack" || command == u"nack" || command == u"extend")
        return settle(words);
    if (command == u"users")
        return users(words);
    if (command == u"metrics")
        return metrics();
    if (command == u"demo")
        return demo();
    fail(UsageError, QStringLiteral("unknown command '%1'\n%2").arg(command, usage()));
}

} // namespace BrokerCtl
