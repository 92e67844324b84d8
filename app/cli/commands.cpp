// SPDX-License-Identifier: GPL-3.0-or-later
#include "commands.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QTextStream>
#include <QTimer>
#include <QUrl>

#include <cstdio>

namespace BrokerCtl {

namespace {

QString encoded(const QString &segment)
{
    return QString::fromLatin1(QUrl::toPercentEncoding(segment));
}

QByteArray compact(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

// Text given as a message: JSON when it is JSON, otherwise a JSON string.
QJsonValue messageValue(const QString &text)
{
    const QJsonDocument wrapped = QJsonDocument::fromJson("[" + text.toUtf8() + "]");
    if (wrapped.isArray() && wrapped.array().size() == 1)
        return wrapped.array().at(0);
    return QJsonValue(text);
}

QList<QPair<QString, QString>> pairsOf(const QJsonObject &object, const QString &prefix = {})
{
    QList<QPair<QString, QString>> pairs;
    for (auto it = object.begin(); it != object.end(); ++it) {
        if (it->isObject())
            pairs += pairsOf(it->toObject(), prefix + it.key() + QLatin1Char('.'));
        else
            pairs.append({prefix + it.key(), Output::cell(*it)});
    }
    return pairs;
}

} // namespace

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

void Commands::health()
{
    call("GET", QStringLiteral("/health"), {}, [this](const QJsonValue &json) {
        m_output.keyValues(pairsOf(json.toObject()), json);
        m_finish(Ok);
    });
}

void Commands::queues(const QStringList &words)
{
    const QString action = words.value(1);
    if (action == u"list" || action.isEmpty()) {
        return call("GET", QStringLiteral("/queues"), {}, [this](const QJsonValue &json) {
            QList<QStringList> rows;
            for (const QJsonValue &queue : json[QStringLiteral("queues")].toArray()) {
                const QJsonObject q = queue.toObject();
                const QJsonObject config = q[QStringLiteral("config")].toObject();
                rows.append({q[QStringLiteral("name")].toString(), config[QStringLiteral("type")].toString(),
                             Output::cell(q[QStringLiteral("message_count")]),
                             Output::cell(q[QStringLiteral("stats")][QStringLiteral("publish_count")]),
                             Output::cell(q[QStringLiteral("stats")][QStringLiteral("consume_count")]),
                             Output::cell(config[QStringLiteral("dead_letter_queue")])});
            }
            m_output.table({QStringLiteral("NAME"), QStringLiteral("TYPE"), QStringLiteral("MESSAGES"),
                            QStringLiteral("PUBLISHED"), QStringLiteral("CONSUMED"), QStringLiteral("DEAD-LETTER QUEUE")},
                           rows, json);
            m_finish(Ok);
        });
    }
    if (!need(words, 3, "queues create|info|delete|purge|browse|redrive NAME"))
        return;
    const QString name = words[2];
    const QString path = QStringLiteral("/queues/") + encoded(name);
    if (action == u"create") {
        QJsonObject options;
        if (m_parser.isSet(QStringLiteral("type")))
            options.insert(QStringLiteral("type"), option("type"));
        for (const auto &[flag, key] : {std::pair{"max-size", "max_size"}, std::pair{"ttl", "ttl"},
                                        std::pair{"visibility", "visibility_timeout"},
                                        std::pair{"max-deliveries", "max_deliveries"}}) {
            if (m_parser.isSet(QString::fromLatin1(flag)))
                options.insert(QString::fromLatin1(key), option(flag).toLongLong());
        }
        if (m_parser.isSet(QStringLiteral("dlq"))) {
            const QString dlq = option("dlq");
            options.insert(QStringLiteral("dead_letter_queue"), dlq == u"true" ? QJsonValue(true) : QJsonValue(dlq));
        }
        QJsonObject body{{QStringLiteral("name"), name}, {QStringLiteral("options"), options}};
        return call("POST", QStringLiteral("/queues"), compact(body), [this](const QJsonValue &json) {
            m_output.keyValues(pairsOf(json.toObject()), json);
            m_finish(Ok);
        });
    }
    const auto showAndFinish = [this](const QJsonValue &json) {
        m_output.keyValues(pairsOf(json.toObject()), json);
        m_finish(Ok);
    };
    if (action == u"info")
        return call("GET", path, {}, showAndFinish);
    if (action == u"delete")
        return call("DELETE", path, {}, showAndFinish);
    if (action == u"purge")
        return call("POST", path + QStringLiteral("/purge"), {}, showAndFinish);
    if (action == u"redrive") {
        QJsonObject body;
        if (m_parser.isSet(QStringLiteral("limit")))
            body.insert(QStringLiteral("limit"), option("limit").toLongLong());
        return call("POST", path + QStringLiteral("/redrive"), compact(body), showAndFinish);
    }
    if (action == u"browse") {
        const QString query = QStringLiteral("?offset=%1&limit=%2")
                                  .arg(option("offset").isEmpty() ? QStringLiteral("0") : option("offset"),
                                       option("limit").isEmpty() ? QStringLiteral("50") : option("limit"));
        return call("GET", path + QStringLiteral("/messages") + query, {}, [this](const QJsonValue &json) {
            QList<QStringList> rows;
            for (const QJsonValue &message : json[QStringLiteral("messages")].toArray()) {
                const QJsonObject m = message.toObject();
                rows.append({m[QStringLiteral("id")].toString(), Output::cell(m[QStringLiteral("priority")]),
                             m[QStringLiteral("publisher")].toString(), Output::cell(m[QStringLiteral("data")])});
            }
            m_output.table({QStringLiteral("ID"), QStringLiteral("PRIORITY"), QStringLiteral("PUBLISHER"),
                            QStringLiteral("DATA")},
                           rows, json);
            m_finish(Ok);
        });
    }
    fail(UsageError, QStringLiteral("unknown queues action '%1'").arg(action));
}

void Commands::publish(const QStringList &words)
{
    if (!need(words, 2, "publish QUEUE [MESSAGE] [--file F] [--lines]"))
        return;
    QString text;
    if (words.size() >= 3) {
        text = words.mid(2).join(QLatin1Char(' '));
    } else {
        QFile file;
        const bool fromFile = m_parser.isSet(QStringLiteral("file"));
        if (fromFile)
            file.setFileName(option("file"));
        if (fromFile ? !file.open(QIODevice::ReadOnly) : !file.open(stdin, QIODevice::ReadOnly))
            return fail(Failure, QStringLiteral("cannot read %1: %2").arg(fromFile ? option("file") : QStringLiteral("stdin"), file.errorString()));
        text = QString::fromUtf8(file.readAll());
    }
    QJsonObject base;
    if (m_parser.isSet(QStringLiteral("priority")))
        base.insert(QStringLiteral("priority"), option("priority").toInt());
    if (m_parser.isSet(QStringLiteral("delay")))
        base.insert(QStringLiteral("delay"), option("delay").toDouble());
    const QString path = QStringLiteral("/messages/") + encoded(words[1]);

    if (!m_parser.isSet(QStringLiteral("lines"))) {
        QJsonObject body = base;
        body.insert(QStringLiteral("message"), messageValue(text.trimmed()));
        return call("POST", path, compact(body), [this](const QJsonValue &json) {
            m_output.keyValues(pairsOf(json.toObject()), json);
            m_finish(Ok);
        });
    }
    // One message per non-empty line, in batches of up to 1000 (all or nothing per batch).
    auto batches = std::make_shared<QList<QJsonArray>>();
    for (const QString &line : text.split(QLatin1Char('\n'))) {
        if (line.trimmed().isEmpty())
            continue;
        if (batches->isEmpty() || batches->last().size() >= 1000)
            batches->append(QJsonArray{});
        batches->last().append(messageValue(line.trimmed()));
    }
    if (batches->isEmpty())
        return fail(UsageError, QStringLiteral("no messages to publish"));
    auto ids = std::make_shared<QJsonArray>();
    // Each request's callback holds the chain; the chain refers to itself only weakly.
    auto next = std::make_shared<std::function<void()>>();
    *next = [this, path, base, batches, ids, weakNext = std::weak_ptr<std::function<void()>>(next)] {
        if (batches->isEmpty()) {
            QJsonObject result{{QStringLiteral("success"), true}, {QStringLiteral("message_ids"), *ids},
                               {QStringLiteral("count"), ids->size()}};
            if (m_output.format() == Output::Format::Json)
                m_output.json(result);
            else
                m_output.text(QStringLiteral("published %1 messages").arg(ids->size()));
            m_finish(Ok);
            return;
        }
        QJsonObject body = base;
        body.insert(QStringLiteral("messages"), batches->takeFirst());
        call("POST", path + QStringLiteral("/batch"), compact(body), [ids, next = weakNext.lock()](const QJsonValue &json) {
            for (const QJsonValue &id : json[QStringLiteral("message_ids")].toArray())
                ids->append(id);
            (*next)();
        });
    };
    (*next)();
}

void Commands::consume(const QStringList &words)
{
    if (!need(words, 2, "consume QUEUE [--count N] [--lease] [--wait S] [--follow]"))
        return;
    const bool lease = m_parser.isSet(QStringLiteral("lease"));
    const bool follow = m_parser.isSet(QStringLiteral("follow"));
    QStringList query{QStringLiteral("acknowledge=%1").arg(lease ? QStringLiteral("false") : QStringLiteral("true"))};
    const QString count = option("count").isEmpty() ? QStringLiteral("1") : option("count");
    query << QStringLiteral("count=") + count;
    // --follow waits as long as the broker allows on each round.
    const QString wait = option("wait").isEmpty() ? (follow ? QStringLiteral("20") : QString()) : option("wait");
    if (!wait.isEmpty())
        query << QStringLiteral("wait=") + wait;
    for (const auto &[flag, key] : {std::pair{"visibility", "visibility_timeout"}, std::pair{"group", "group"},
                                    std::pair{"consumer", "consumer"}}) {
        if (m_parser.isSet(QString::fromLatin1(flag)))
            query << QString::fromLatin1(key) + QLatin1Char('=') + encoded(option(flag));
    }
    const QString path = QStringLiteral("/messages/") + encoded(words[1]) + QLatin1Char('?') + query.join(QLatin1Char('&'));
    auto round = std::make_shared<std::function<void()>>();
    *round = [this, path, follow, weakRound = std::weak_ptr<std::function<void()>>(round)] {
        const std::shared_ptr<std::function<void()>> self = weakRound.lock();
        const auto printed = [this, follow, self](const QJsonValue &json) {
            QJsonArray messages = json[QStringLiteral("messages")].toArray();
            if (json.toObject().contains(QStringLiteral("message")))
                messages.append(json[QStringLiteral("message")]);
            for (const QJsonValue &message : messages) {
                if (m_output.format() == Output::Format::Json) {
                    m_output.json(message);
                } else {
                    const QJsonObject m = message.toObject();
                    QString line = m[QStringLiteral("id")].toString() + QLatin1Char(' ') + Output::cell(m[QStringLiteral("data")]);
                    if (!m[QStringLiteral("receipt")].isNull())
                        line += QStringLiteral("  (receipt %1)").arg(m[QStringLiteral("receipt")].toString());
                    m_output.text(line);
                }
            }
            std::fflush(stdout);
            if (follow)
                return (*self)();
            m_finish(Ok);
        };
        call("GET", path, {}, printed, [this, follow, self] {
            if (follow)
                return (*self)();
            if (m_output.format() == Output::Format::Table)
                Output::note(QStringLiteral("no message"));
            m_finish(Ok);
        });
    };
    (*round)();
}

void Commands::settle(const QStringList &words)
{
    if (!need(words, 3, "ack|nack|extend QUEUE ID [--receipt R]"))
        return;
    const QString action = words[0];
    QJsonObject body;
    if (m_parser.isSet(QStringLiteral("receipt")))
        body.insert(QStringLiteral("receipt"), option("receipt"));
    if (m_parser.isSet(QStringLiteral("group")))
        body.insert(QStringLiteral("group"), option("group"));
    QString path = QStringLiteral("/messages/") + encoded(words[1]) + QLatin1Char('/') + encoded(words[2]);
    QByteArray method = "PUT";
    if (action == u"nack") {
        method = "POST";
        path += QStringLiteral("/nack");
        if (m_parser.isSet(QStringLiteral("delay")))
            body.insert(QStringLiteral("delay"), option("delay").toDouble());
    } else if (action == u"extend") {
        if (!m_parser.isSet(QStringLiteral("visibility")))
            return fail(UsageError, QStringLiteral("usage: brokerctl extend QUEUE ID --visibility S [--receipt R]"));
        method = "POST";
        path += QStringLiteral("/extend");
        body.insert(QStringLiteral("visibility_timeout"), option("visibility").toLongLong());
    }
    call(method, path, compact(body), [this](const QJsonValue &json) {
        m_output.keyValues(pairsOf(json.toObject()), json);
        m_finish(Ok);
    });
}

void Commands::users(const QStringList &words)
{
    const QString action = words.value(1);
    if (action == u"list" || action.isEmpty()) {
        return call("GET", QStringLiteral("/users"), {}, [this](const QJsonValue &json) {
            QList<QStringList> rows;
            for (const QJsonValue &user : json[QStringLiteral("users")].toArray()) {
                const QJsonObject u = user.toObject();
                QStringList roles;
                for (const QJsonValue &role : u[QStringLiteral("roles")].toArray())
                    roles << role.toString();
                rows.append({u[QStringLiteral("id")].toString(), u[QStringLiteral("name")].toString(),
                             roles.join(QLatin1Char(',')), u[QStringLiteral("key_prefix")].toString(),
                             Output::cell(u[QStringLiteral("disabled")])});
            }
            m_output.table({QStringLiteral("ID"), QStringLiteral("NAME"), QStringLiteral("ROLES"),
                            QStringLiteral("KEY"), QStringLiteral("DISABLED")},
                           rows, json);
            m_finish(Ok);
        });
    }
    if (!need(words, 3, "users add|rotate|delete ID"))
        return;
    const QString id = words[2];
    const auto showKey = [this](const QJsonValue &json) {
        if (m_output.format() == Output::Format::Table)
            Output::note(QStringLiteral("The new API key is shown once; store it now."));
        m_output.keyValues(pairsOf(json.toObject()), json);
        m_finish(Ok);
    };
    if (action == u"add") {
        if (!m_parser.isSet(QStringLiteral("roles")))
            return fail(UsageError, QStringLiteral("usage: brokerctl users add ID --roles R[,R] [--name N]"));
        QJsonObject body{{QStringLiteral("id"), id},
                         {QStringLiteral("roles"), QJsonArray::fromStringList(option("roles").split(QLatin1Char(','), Qt::SkipEmptyParts))}};
        if (m_parser.isSet(QStringLiteral("name")))
            body.insert(QStringLiteral("name"), option("name"));
        return call("POST", QStringLiteral("/users"), compact(body), showKey);
    }
    if (action == u"rotate")
        return call("POST", QStringLiteral("/users/") + encoded(id) + QStringLiteral("/rotate"), {}, showKey);
    if (action == u"delete") {
        return call("DELETE", QStringLiteral("/users/") + encoded(id), {}, [this](const QJsonValue &json) {
            m_output.keyValues(pairsOf(json.toObject()), json);
            m_finish(Ok);
        });
    }
    fail(UsageError, QStringLiteral("unknown users action '%1'").arg(action));
}

void Commands::metrics()
{
    m_client.request("GET", QStringLiteral("/metrics"), {}, [this](const ApiResponse &response) {
        if (response.connectionFailed())
            return fail(ConnectionError, response.describeError());
        if (!response.ok())
            return fail(HttpError, response.describeError());
        std::fwrite(response.body.constData(), 1, std::size_t(response.body.size()), stdout);
        m_finish(Ok);
    });
}

void Commands::demo()
{
    const int messages = option("messages").isEmpty() ? 10'000 : option("messages").toInt();
    const int batch = option("batch").isEmpty() ? 100 : qBound(1, option("batch").toInt(), 1000);
    if (messages <= 0)
        return fail(UsageError, QStringLiteral("--messages must be positive"));
    const QString queue = QStringLiteral("demo-%1").arg(QRandomGenerator::global()->generate(), 8, 16, QLatin1Char('0'));
    QJsonObject body{{QStringLiteral("name"), queue},
                     {QStringLiteral("options"), QJsonObject{{QStringLiteral("max_size"), messages}}}};
    Output::note(QStringLiteral("demo: queue %1, %2 messages in batches of %3").arg(queue).arg(messages).arg(batch));
    call("POST", QStringLiteral("/queues"), compact(body), [this, queue](const QJsonValue &) {
        m_timer.start();
        demoStep(queue, 0, 0);
    });
    setProperty("demoMessages", messages);
    setProperty("demoBatch", batch);
}

void Commands::demoStep(const QString &queue, int published, int consumed)
{
    const int messages = property("demoMessages").toInt();
    const int batch = property("demoBatch").toInt();
    const QString path = QStringLiteral("/messages/") + queue;
    if (published < messages) {
        const int n = qMin(batch, messages - published);
        QJsonArray items;
        for (int i = 0; i < n; ++i)
            items.append(QJsonObject{{QStringLiteral("n"), published + i}, {QStringLiteral("text"), QStringLiteral("demo message")}});
        return call("POST", path + QStringLiteral("/batch"), compact(QJsonObject{{QStringLiteral("messages"), items}}),
                    [this, queue, published, n](const QJsonValue &) {
                        if (published + n >= property("demoMessages").toInt())
                            m_publishMs = m_timer.elapsed();
                        demoStep(queue, published + n, 0);
                    });
    }
    if (consumed < messages) {
        return call("GET", path + QStringLiteral("?count=%1").arg(batch), {},
                    [this, queue, published, consumed](const QJsonValue &json) {
                        const int got = json.toObject().contains(QStringLiteral("message"))
                            ? 1
                            : int(json[QStringLiteral("messages")].toArray().size());
                        demoStep(queue, published, consumed + got);
                    },
                    [this, queue] { fail(Failure, QStringLiteral("demo: queue %1 ran dry early").arg(queue)); });
    }
    const qint64 totalMs = qMax<qint64>(1, m_timer.elapsed());
    const qint64 consumeMs = qMax<qint64>(1, totalMs - m_publishMs);
    call("DELETE", QStringLiteral("/queues/") + queue, {}, [this, messages, totalMs, consumeMs](const QJsonValue &) {
        const double publishRate = double(messages) * 1000.0 / double(qMax<qint64>(1, m_publishMs));
        const double consumeRate = double(messages) * 1000.0 / double(consumeMs);
        const QJsonObject result{{QStringLiteral("messages"), messages},
                                 {QStringLiteral("publish_per_second"), qRound64(publishRate)},
                                 {QStringLiteral("consume_per_second"), qRound64(consumeRate)},
                                 {QStringLiteral("elapsed_ms"), totalMs}};
        m_output.keyValues({{QStringLiteral("messages"), QString::number(messages)},
                            {QStringLiteral("publish"), QStringLiteral("%1 msg/s").arg(qRound64(publishRate))},
                            {QStringLiteral("consume"), QStringLiteral("%1 msg/s").arg(qRound64(consumeRate))},
                            {QStringLiteral("elapsed"), QStringLiteral("%1 ms").arg(totalMs)}},
                           result);
        m_finish(Ok);
    });
}

} // namespace BrokerCtl
