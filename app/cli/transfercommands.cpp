// SPDX-License-Identifier: GPL-3.0-or-later
// export|import definitions (GET/POST /definitions) and messages (JSON Lines: browse page by page
// out, batch publish in chunks in). Messages are streamed: one page or one batch in memory at a time.
#include "commands.h"

#include "commandsupport.h"
#include "rawjson.h"

#include <QDateTime>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>

#include <cmath>
#include <cstdio>
#include <memory>

namespace BrokerCtl {

namespace {

constexpr int DefaultChunk = 500;
// Below the broker's default 1 MiB request body limit, with room for the batch's own members.
constexpr qsizetype MaxBatchBytes = 768 * 1024;

// `name` opened for writing, or stdout when it is empty or "-".
std::shared_ptr<QFile> openOutput(const QString &name, QString *error)
{
    auto file = std::make_shared<QFile>();
    const bool toStdout = name.isEmpty() || name == u"-";
    if (!toStdout)
        file->setFileName(name);
    if (toStdout ? !file->open(stdout, QIODevice::WriteOnly)
                 : !file->open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        *error =
            QStringLiteral("cannot write %1: %2").arg(toStdout ? QStringLiteral("stdout") : name, file->errorString());
        return nullptr;
    }
    return file;
}

// What one exported line publishes: its data as written, and the options a batch shares.
struct ImportLine
{
    QByteArray data;
    QByteArray options; // compact JSON object text of priority, headers and delay ("{}" for none)
};

// The states `export messages --state` takes; "all" is every one a message of the queue itself is in.
const QStringList ExportStates{QStringLiteral("ready"), QStringLiteral("delayed"), QStringLiteral("in_flight"),
                               QStringLiteral("dead")};

// Reads one exported message line. Lines are the messages `export messages` writes (objects with
// at least "data"); the payload is taken as its text, so it is published byte for byte.
bool readImportLine(const QByteArray &line, ImportLine &out, QString *error)
{
    const QJsonDocument document = QJsonDocument::fromJson(line);
    if (!document.isObject() || !document.object().contains(QStringLiteral("data"))) {
        *error = QStringLiteral("not an exported message (a JSON object with \"data\")");
        return false;
    }
    const QJsonObject message = document.object();
    QJsonObject options;
    if (message.value(QStringLiteral("priority")).toInt() != 0)
        options.insert(QStringLiteral("priority"), message.value(QStringLiteral("priority")));
    if (message.value(QStringLiteral("headers")).isObject())
        options.insert(QStringLiteral("headers"), message.value(QStringLiteral("headers")));
    // A delayed message keeps its due time, to the second: the rest of its delay, rounded up (so
    // that messages due within one second still share a batch).
    if (message.value(QStringLiteral("state")).toString() == u"delayed") {
        const double remaining =
            message.value(QStringLiteral("visible_at")).toDouble() - double(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
        if (remaining > 0)
            options.insert(QStringLiteral("delay"), std::ceil(remaining));
    }
    out.data = RawJson::member(line, u"data");
    out.options = compact(options);
    return true;
}

// The state of one import: the file, the batch being built, how far it got.
struct MessageImport
{
    QFile file;
    QString path;
    int chunk = DefaultChunk;
    qint64 lineNumber = 0;
    qint64 imported = 0;
    std::optional<ImportLine> pending; // read, but for the next batch (other options)
};

} // namespace

void Commands::transfer(const QStringList &words)
{
    const QString direction = words.value(0);
    const QString what = words.value(1);
    if (direction == u"export" && what == u"definitions")
        return exportDefinitions(words.value(2));
    if (direction == u"import" && what == u"definitions") {
        if (!need(words, 3, "import definitions FILE"))
            return;
        return importDefinitions(words[2]);
    }
    if (direction == u"export" && what == u"messages") {
        if (!need(words, 3, "export messages QUEUE [FILE] [--state S]"))
            return;
        return exportMessages(words[2], words.value(3));
    }
    if (direction == u"import" && what == u"messages") {
        if (!need(words, 4, "import messages QUEUE FILE [--batch N]"))
            return;
        return importMessages(words[2], words[3]);
    }
    fail(UsageError,
         QStringLiteral("usage: brokerctl export definitions [FILE] | import definitions FILE | "
                        "export messages QUEUE [FILE] [--state S] | import messages QUEUE FILE"));
}

void Commands::exportDefinitions(const QString &file)
{
    QString error;
    const std::shared_ptr<QFile> out = openOutput(file, &error);
    if (!out)
        return fail(Failure, error);
    call("GET", QStringLiteral("/definitions"), {}, [this, out, file](const QJsonValue &json, const QByteArray &raw) {
        if (out->write(raw.trimmed() + '\n') < 0 || !out->flush())
            return fail(Failure, QStringLiteral("cannot write %1: %2").arg(file, out->errorString()));
        if (!file.isEmpty() && file != u"-") {
            Output::note(QStringLiteral("exported %1 queues, %2 roles, %3 users to %4")
                             .arg(json[QStringLiteral("queues")].toArray().size())
                             .arg(json[QStringLiteral("roles")].toArray().size())
                             .arg(json[QStringLiteral("users")].toArray().size())
                             .arg(file));
        }
        m_finish(Ok);
    });
}

void Commands::importDefinitions(const QString &file)
{
    QFile in(file);
    if (!in.open(QIODevice::ReadOnly))
        return fail(Failure, QStringLiteral("cannot read %1: %2").arg(file, in.errorString()));
    const QByteArray document = in.readAll();
    QJsonParseError parseError;
    if (!QJsonDocument::fromJson(document, &parseError).isObject())
        return fail(UsageError, QStringLiteral("%1 is not a JSON object: %2").arg(file, parseError.errorString()));
    call("POST", QStringLiteral("/definitions"), document, [this](const QJsonValue &json, const QByteArray &raw) {
        const QJsonObject summary = json.toObject();
        if (m_output.format() != Output::Format::Json
            && !summary[QStringLiteral("users")][QStringLiteral("created")].toArray().isEmpty())
            Output::note(QStringLiteral("The new users' API keys are shown once; store them now."));
        m_output.keyValues(pairsOf(summary), raw);
        const qsizetype conflicts = summary[QStringLiteral("queues")][QStringLiteral("conflicts")].toArray().size()
            + summary[QStringLiteral("users")][QStringLiteral("conflicts")].toArray().size();
        if (conflicts > 0)
            Output::note(QStringLiteral("%1 conflict(s): left as they are on the broker").arg(conflicts));
        m_finish(summary[QStringLiteral("success")].toBool() ? Ok : Failure);
    });
}

void Commands::exportMessages(const QString &queue, const QString &file)
{
    QString error;
    const std::shared_ptr<QFile> out = openOutput(file, &error);
    if (!out)
        return fail(Failure, error);
    const QString asked = option("state").isEmpty() ? QStringLiteral("ready") : option("state");
    if (asked != u"all" && !ExportStates.contains(asked))
        return fail(UsageError, QStringLiteral("unknown state '%1' (expected: %2, all)").arg(asked, ExportStates.join(u", ")));
    // "all": what is the queue's own; its dead-lettered messages are in its dead-letter queue.
    const QStringList states = asked == u"all" ? ExportStates.mid(0, 3) : QStringList{asked};
    const int page = option("batch").isEmpty() ? DefaultChunk : qBound(1, option("batch").toInt(), 1000);
    const QString path = QStringLiteral("/queues/%1/messages?limit=%2&state=").arg(encoded(queue)).arg(page);
    auto written = std::make_shared<qint64>(0);
    // One page at a time, state after state: each answer's messages are written out, as the
    // broker wrote them (with their state), before the next page is asked for.
    auto next = std::make_shared<std::function<void(qsizetype, qint64)>>();
    *next = [this, out, path, states, file, written,
             weakNext = std::weak_ptr<std::function<void(qsizetype, qint64)>>(next)](qsizetype stateIndex, qint64 offset) {
        const QString url = path + states[stateIndex] + QStringLiteral("&offset=") + QString::number(offset);
        call("GET", url, {},
             [this, out, file, written, stateIndex, last = stateIndex + 1 == states.size(),
              next = weakNext.lock()](const QJsonValue &json, const QByteArray &raw) {
                 for (const QByteArray &message : RawJson::elements(RawJson::member(raw, u"messages"))) {
                     if (out->write(message + '\n') < 0)
                         return fail(Failure, QStringLiteral("cannot write %1: %2").arg(file, out->errorString()));
                     ++*written;
                 }
                 out->flush();
                 const QJsonValue nextOffset = json[QStringLiteral("next_offset")];
                 Output::note(QStringLiteral("export: %1 messages (%2 %3)")
                                  .arg(*written)
                                  .arg(json[QStringLiteral("total")].toInteger())
                                  .arg(json[QStringLiteral("state")].toString()));
                 if (nextOffset.isDouble() && nextOffset.toInteger() > 0)
                     return (*next)(stateIndex, nextOffset.toInteger());
                 if (!last)
                     return (*next)(stateIndex + 1, 0);
                 m_finish(Ok);
             });
    };
    (*next)(0, 0);
}

void Commands::importMessages(const QString &queue, const QString &file)
{
    auto state = std::make_shared<MessageImport>();
    state->file.setFileName(file);
    state->path = QStringLiteral("/messages/") + encoded(queue) + QStringLiteral("/batch");
    if (!option("batch").isEmpty())
        state->chunk = qBound(1, option("batch").toInt(), 1000);
    if (!state->file.open(QIODevice::ReadOnly))
        return fail(Failure, QStringLiteral("cannot read %1: %2").arg(file, state->file.errorString()));

    // Batches hold consecutive lines with the same options (priority, headers, delay), at most `chunk`
    // messages and MaxBatchBytes, so the order of the file is the order of the queue.
    auto next = std::make_shared<std::function<void()>>();
    *next = [this, state, weakNext = std::weak_ptr<std::function<void()>>(next)] {
        QByteArray messages;
        QByteArray options;
        int count = 0;
        while (count < state->chunk) {
            ImportLine line;
            if (state->pending) {
                line = *std::exchange(state->pending, std::nullopt);
            } else {
                if (state->file.atEnd())
                    break;
                const QByteArray text = state->file.readLine().trimmed();
                ++state->lineNumber;
                if (text.isEmpty())
                    continue;
                QString error;
                if (!readImportLine(text, line, &error)) {
                    return fail(UsageError,
                                QStringLiteral("%1 line %2: %3; stopped after %4 imported messages")
                                    .arg(state->file.fileName())
                                    .arg(state->lineNumber)
                                    .arg(error)
                                    .arg(state->imported));
                }
            }
            if (count > 0 && (line.options != options || messages.size() + line.data.size() > MaxBatchBytes)) {
                state->pending = line;
                break;
            }
            options = line.options;
            messages += (count++ > 0 ? "," : "") + line.data;
        }
        if (count == 0) {
            if (m_output.format() == Output::Format::Json)
                m_output.json(compact(QJsonObject{{QStringLiteral("success"), true},
                                                  {QStringLiteral("imported"), state->imported}}));
            else
                m_output.text(QStringLiteral("imported %1 messages").arg(state->imported));
            return m_finish(Ok);
        }
        const QByteArray body = withMember(options, "messages", '[' + messages + ']');
        m_client.request("POST", state->path, body,
                         [this, state, count, next = weakNext.lock()](const ApiResponse &response) {
                             if (!response.ok()) {
                                 return fail(response.connectionFailed() ? ConnectionError : HttpError,
                                             QStringLiteral("import stopped after %1 messages: %2")
                                                 .arg(state->imported)
                                                 .arg(response.describeError()));
                             }
                             state->imported += count;
                             Output::note(QStringLiteral("import: %1 messages").arg(state->imported));
                             (*next)();
                         });
    };
    (*next)();
}

} // namespace BrokerCtl
