// SPDX-License-Identifier: GPL-3.0-or-later
#include "shell.h"

#include "commands.h"
#include "options.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <QSocketNotifier>
#include <QTextStream>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

namespace BrokerCtl {

namespace {

// Readline's completion callbacks are plain C functions: what they complete from lives here.
QStringList g_completions;

const QStringList CommandWords = Commands::commandNames() + QStringList{QStringLiteral("exit")};
const QStringList QueueActions{QStringLiteral("list"),   QStringLiteral("create"), QStringLiteral("info"),
                               QStringLiteral("delete"), QStringLiteral("purge"),  QStringLiteral("browse"),
                               QStringLiteral("redrive")};
const QStringList UserActions{QStringLiteral("list"),   QStringLiteral("add"),     QStringLiteral("rotate"),
                              QStringLiteral("delete"), QStringLiteral("disable"), QStringLiteral("enable"),
                              QStringLiteral("roles")};
const QStringList ProcessorActions{QStringLiteral("list")};
const QStringList TransferObjects{QStringLiteral("definitions"), QStringLiteral("messages")};
QStringList g_queueNames;

char *nextCompletion(const char *text, int state)
{
    static qsizetype index;
    if (state == 0)
        index = 0;
    const QString prefix = QString::fromUtf8(text);
    while (index < g_completions.size()) {
        const QString &candidate = g_completions[index++];
        if (candidate.startsWith(prefix))
            return ::strdup(candidate.toUtf8().constData());
    }
    return nullptr;
}

char **complete(const char *text, int start, int)
{
    const QStringList before = Shell::splitWords(QString::fromUtf8(rl_line_buffer, start), nullptr);
    if (before.isEmpty())
        g_completions = CommandWords;
    else if (before.first() == u"queues" && before.size() == 1)
        g_completions = QueueActions;
    else if (before.first() == u"users" && before.size() == 1)
        g_completions = UserActions;
    else if (before.first() == u"processors" && before.size() == 1)
        g_completions = ProcessorActions;
    else if ((before.first() == u"export" || before.first() == u"import") && before.size() == 1)
        g_completions = TransferObjects;
    else
        g_completions = g_queueNames;
    rl_attempted_completion_over = 1; // no file names
    return rl_completion_matches(text, nextCompletion);
}

QString historyFile()
{
    QString state = qEnvironmentVariable("XDG_STATE_HOME");
    if (state.isEmpty())
        state = QDir::homePath() + QStringLiteral("/.local/state");
    return state + QStringLiteral("/brokerctl/history");
}

// Ctrl+C while a command runs: the signal handler only writes a byte to this pipe (all a handler
// may safely do); the event loop reads it and ends the command.
int g_interruptPipe[2] = {-1, -1};

void onInterrupt(int)
{
    const char byte = 1;
    [[maybe_unused]] const ssize_t written = ::write(g_interruptPipe[1], &byte, 1);
}

void drainInterrupts()
{
    char bytes[16];
    while (::read(g_interruptPipe[0], bytes, sizeof bytes) > 0) {
    }
}

} // namespace

Shell::Shell(ApiClient &client, Output::Format format) : m_client(client), m_output(format) {}

QStringList Shell::splitWords(const QString &line, QString *error)
{
    QStringList words;
    QString current;
    bool inWord = false;
    QChar quote;
    for (qsizetype i = 0; i < line.size(); ++i) {
        const QChar c = line[i];
        if (!quote.isNull()) {
            if (c == quote)
                quote = QChar();
            else if (c == u'\\' && quote == u'"' && i + 1 < line.size())
                current += line[++i];
            else
                current += c;
        } else if (c == u'\'' || c == u'"') {
            quote = c;
            inWord = true;
        } else if (c == u'\\' && i + 1 < line.size()) {
            current += line[++i];
            inWord = true;
        } else if (c.isSpace()) {
            if (inWord)
                words.append(current);
            current.clear();
            inWord = false;
        } else {
            current += c;
            inWord = true;
        }
    }
    if (!quote.isNull() && error)
        *error = QStringLiteral("unterminated quote");
    if (inWord)
        words.append(current);
    return words;
}

void Shell::refreshQueueNames()
{
    m_client.request("GET", QStringLiteral("/queues"), {}, [](const ApiResponse &response) {
        if (response.ok()) {
            g_queueNames.clear();
            for (const QJsonValue &queue : response.json()[QStringLiteral("queues")].toArray())
                g_queueNames.append(queue[QStringLiteral("name")].toString());
        }
        QCoreApplication::exit(0);
    });
    QCoreApplication::exec();
}

int Shell::runLine(const QStringList &words)
{
    QCommandLineParser parser;
    defineCommandOptions(parser);
    if (!parser.parse(QStringList{QStringLiteral("brokerctl")} + words)) {
        Output::error(parser.errorText());
        return UsageError;
    }
    int exitCode = Ok;
    Commands commands(m_client, m_output, parser, [&](int code) {
        exitCode = code;
        QCoreApplication::exit(code);
    });
    // Ctrl+C ends the command (consume --follow, a long import) and returns to the prompt; its
    // requests are cancelled, so no callback reaches `commands` after this function returns. At
    // the prompt itself, readline's own handling of Ctrl+C applies again.
    struct sigaction interrupt = {};
    struct sigaction previous = {};
    interrupt.sa_handler = onInterrupt;
    sigemptyset(&interrupt.sa_mask);
    interrupt.sa_flags = SA_RESTART;
    drainInterrupts();
    ::sigaction(SIGINT, &interrupt, &previous);
    QSocketNotifier notifier(g_interruptPipe[0], QSocketNotifier::Read);
    QObject::connect(&notifier, &QSocketNotifier::activated, &commands, [&] {
        drainInterrupts();
        m_client.cancelAll();
        Output::note(QStringLiteral("interrupted"));
        exitCode = Ok;
        QCoreApplication::exit(Ok);
    });
    // One command at a time: the event loop runs until it finishes, then returns to the prompt.
    QMetaObject::invokeMethod(
        &commands, [&] { commands.run(parser.positionalArguments()); }, Qt::QueuedConnection);
    QCoreApplication::exec();
    ::sigaction(SIGINT, &previous, nullptr);
    std::fflush(stdout);
    return exitCode;
}

int Shell::run()
{
    const bool interactive = ::isatty(STDIN_FILENO);
    if (g_interruptPipe[0] < 0 && ::pipe2(g_interruptPipe, O_NONBLOCK | O_CLOEXEC) != 0) {
        Output::error(QStringLiteral("cannot set up Ctrl+C handling"));
        return Failure;
    }
    const QByteArray history = historyFile().toLocal8Bit();
    if (interactive) {
        QDir().mkpath(QFileInfo(historyFile()).absolutePath());
        using_history();
        if (read_history(history.constData()) != 0)
            write_history(history.constData()); // creates it: append_history() needs an existing file
        rl_attempted_completion_function = complete;
        rl_readline_name = "brokerctl";
        refreshQueueNames();
        Output::note(QStringLiteral("brokerctl %1 on %2. 'help' lists the commands, 'exit' or Ctrl+D leaves.")
                         .arg(QStringLiteral(BROKER_VERSION), m_client.settings().url.toString()));
    }
    QTextStream input(stdin);
    int result = Ok;
    for (;;) {
        QString line;
        if (interactive) {
            char *raw = readline("brokerctl> ");
            if (!raw)
                break;
            line = QString::fromUtf8(raw);
            if (!line.trimmed().isEmpty()) {
                add_history(raw);
                append_history(1, history.constData());
            }
            ::free(raw);
        } else {
            if (input.atEnd())
                break;
            line = input.readLine();
        }
        QString error;
        const QStringList words = splitWords(line, &error);
        if (!error.isEmpty()) {
            Output::error(error);
            result = UsageError;
            continue;
        }
        if (words.isEmpty() || words.first().startsWith(u'#'))
            continue;
        if (words.first() == u"exit" || words.first() == u"quit")
            break;
        if (words.first() == u"help") {
            m_output.text(Commands::usage());
            continue;
        }
        const int code = runLine(words);
        if (code != Ok)
            result = code;
        if (interactive && (words.first() == u"queues" || words.first() == u"demo"))
            refreshQueueNames();
    }
    if (interactive)
        history_truncate_file(history.constData(), 1000);
    return result;
}

} // namespace BrokerCtl
