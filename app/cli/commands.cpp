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
        "                [--consumer C] [--follow] (in the shell, Ctrl+C ends --follow)\n"
        "  ack QUEUE ID [--receipt R]\n"
        "  nack QUEUE ID [--receipt R] [--delay S]\n"
        "  extend QUEUE ID --visibility S [--receipt R]\n"
        "  events QUEUE [ID] [--limit N]           a queue's or one message's recent events\n"
        "  watch [QUEUE...] [--kinds K[,K]] [--counters]\n"
        "                                          message events live (queue names may hold * and ?);\n"
        "                                          reconnects and resumes where it was until Ctrl+C\n"
        "  users list | users add ID --roles R[,R] [--name N] | users rotate|delete ID\n"
        "  users disable|enable ID | users roles ID R[,R]\n"
        "  errors [--limit N]                      the broker's recent errors\n"
        "  processors [list] [--queue Q]           processors: in flight, successes, failures, last error\n"
        "  export definitions [FILE]               queues, roles and users (no keys) as JSON\n"
        "  import definitions FILE                 add what is missing; new users' keys shown once\n"
        "  export messages QUEUE [FILE]            messages as JSON Lines, page by page (--state S)\n"
        "  import messages QUEUE FILE [--batch N]  publish exported JSON Lines in batches\n"
        "  metrics                                 Prometheus metrics\n"
        "  demo [--messages N] [--batch N]         create a queue, publish, consume, report msg/s, delete\n"
        "  profiles list | profiles add NAME --url URL [--key-file F | --key-command CMD]\n"
        "  shell                                   the interactive mode (also: no command on a terminal)\n"
        "\n"
        "Options: --profile NAME (from $XDG_CONFIG_HOME/brokerctl/config), -o table|text|json.\n"
        "Environment: API_URL, API_KEY, BROKERCTL_PROFILE, TIMEOUT (s), RETRY_ATTEMPTS, RETRY_DELAY (ms).\n"
        "Exit codes: 0 ok, 1 failure, 2 usage error, 3 HTTP error, 4 connection failure.");
}

const QStringList &Commands::commandNames()
{
    static const QStringList names{QStringLiteral("health"),  QStringLiteral("queues"), QStringLiteral("publish"),
                                   QStringLiteral("consume"), QStringLiteral("ack"),    QStringLiteral("nack"),
                                   QStringLiteral("extend"),  QStringLiteral("events"), QStringLiteral("watch"), QStringLiteral("users"),
                                   QStringLiteral("errors"),  QStringLiteral("processors"), QStringLiteral("export"), QStringLiteral("import"),
                                   QStringLiteral("metrics"), QStringLiteral("demo"),   QStringLiteral("profiles"),
                                   QStringLiteral("shell"),   QStringLiteral("help")};
    return names;
}

QString Commands::closestCommand(const QString &word)
{
    // Levenshtein distance, two rows.
    const auto distance = [](const QString &a, const QString &b) {
        QList<int> previous(b.size() + 1), current(b.size() + 1);
        for (qsizetype j = 0; j <= b.size(); ++j)
            previous[j] = int(j);
        for (qsizetype i = 1; i <= a.size(); ++i) {
            current[0] = int(i);
            for (qsizetype j = 1; j <= b.size(); ++j)
                current[j] =
                    qMin(qMin(previous[j] + 1, current[j - 1] + 1), previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1));
            std::swap(previous, current);
        }
        return previous[b.size()];
    };
    QString best;
    int bestDistance = 3;
    for (const QString &name : commandNames()) {
        const int d = name.startsWith(word) && word.size() >= 2 ? 0 : distance(word, name);
        if (d < bestDistance) {
            best = name;
            bestDistance = d;
        }
    }
    return best;
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
    m_client.request(method, path, body,
                     [this, onSuccess = std::move(onSuccess),
                      onNoContent = std::move(onNoContent)](const ApiResponse &response) {
                         if (response.connectionFailed())
                             return fail(ConnectionError, response.describeError());
                         if (!response.ok())
                             return fail(HttpError, response.describeError());
                         if (response.status == 204 && onNoContent)
                             return onNoContent();
                         onSuccess(response.json(), response.body);
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
    if (command == u"errors")
        return errors();
    if (command == u"processors")
        return processors(words);
    if (command == u"events")
        return events(words);
    if (command == u"watch")
        return watch(words);
    if (command == u"export" || command == u"import")
        return transfer(words);
    if (command == u"profiles")
        return m_finish(profiles(words));
    if (command == u"demo")
        return demo();
    // One line, not the whole usage: the closest command when there is one, and where help is.
    const QString closest = closestCommand(command);
    fail(UsageError,
         QStringLiteral("unknown command '%1'%2; 'brokerctl help' lists the commands")
             .arg(command, closest.isEmpty() ? QString() : QStringLiteral(" (did you mean '%1'?)").arg(closest)));
}

} // namespace BrokerCtl
