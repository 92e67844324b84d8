// SPDX-License-Identifier: GPL-3.0-or-later
// For operators: health, metrics, errors, processors, events, and demo (a throughput run on a queue of its own).
#include "commands.h"

#include "commandsupport.h"

#include <QJsonArray>
#include <QRandomGenerator>

#include <cstdio>

namespace BrokerCtl {

void Commands::health()
{
    call("GET", QStringLiteral("/health"), {}, [this](const QJsonValue &json, const QByteArray &raw) {
        m_output.keyValues(pairsOf(json.toObject()), raw);
        m_finish(Ok);
    });
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

void Commands::errors()
{
    const QString limit = option("limit").isEmpty() ? QStringLiteral("50") : option("limit");
    call("GET", QStringLiteral("/errors?limit=") + encoded(limit), {},
         [this](const QJsonValue &json, const QByteArray &raw) {
             QList<QStringList> rows;
             for (const QJsonValue &error : json[QStringLiteral("errors")].toArray()) {
                 const QJsonObject e = error.toObject();
                 rows.append({Output::time(e[QStringLiteral("last_seen")]), e[QStringLiteral("severity")].toString(),
                              e[QStringLiteral("component")].toString(), Output::cell(e[QStringLiteral("count")]),
                              e[QStringLiteral("code")].toString(), e[QStringLiteral("message")].toString()});
             }
             m_output.table({QStringLiteral("LAST SEEN"), QStringLiteral("SEVERITY"), QStringLiteral("COMPONENT"),
                             QStringLiteral("COUNT"), QStringLiteral("CODE"), QStringLiteral("MESSAGE")},
                            rows, raw);
             m_finish(Ok);
         });
}

void Commands::processors(const QStringList &words)
{
    const QString action = words.value(1);
    if (!action.isEmpty() && action != u"list")
        return fail(UsageError, QStringLiteral("usage: brokerctl processors [list] [--queue Q]"));
    QString path = QStringLiteral("/processors");
    if (m_parser.isSet(QStringLiteral("queue")))
        path += QStringLiteral("?queue=") + encoded(option("queue"));
    call("GET", path, {}, [this](const QJsonValue &json, const QByteArray &raw) {
        QList<QStringList> rows;
        for (const QJsonValue &processor : json[QStringLiteral("processors")].toArray()) {
            const QJsonObject p = processor.toObject();
            // One word a person can scan for: a stopped processor is worse than a failing one.
            const QString state = !p[QStringLiteral("running")].toBool() ? QStringLiteral("stopped")
                : p[QStringLiteral("failing")].toBool()                  ? QStringLiteral("failing")
                                                                         : QStringLiteral("running");
            const QString target = p[QStringLiteral("target")].toString();
            rows.append({Output::cell(p[QStringLiteral("id")]), p[QStringLiteral("queue")].toString(),
                         p[QStringLiteral("kind")].toString(), target.isEmpty() ? QStringLiteral("-") : target, state,
                         QStringLiteral("%1/%2").arg(Output::cell(p[QStringLiteral("in_flight")]),
                                                     Output::cell(p[QStringLiteral("concurrency")])),
                         Output::cell(p[QStringLiteral("successes")]), Output::cell(p[QStringLiteral("failures")]),
                         Output::time(p[QStringLiteral("last_error_at")]),
                         p[QStringLiteral("last_error")].isNull() ? QStringLiteral("-")
                                                                  : p[QStringLiteral("last_error")].toString()});
        }
        m_output.table({QStringLiteral("ID"), QStringLiteral("QUEUE"), QStringLiteral("KIND"), QStringLiteral("TARGET"),
                        QStringLiteral("STATE"), QStringLiteral("IN FLIGHT"), QStringLiteral("SUCCESSES"),
                        QStringLiteral("FAILURES"), QStringLiteral("LAST ERROR AT"), QStringLiteral("LAST ERROR")},
                       rows, raw);
        m_finish(Ok);
    });
}

void Commands::events(const QStringList &words)
{
    if (!need(words, 2, "events QUEUE [ID] [--limit N]"))
        return;
    QString path = words.size() >= 3
        ? QStringLiteral("/messages/%1/%2/events").arg(encoded(words[1]), encoded(words[2]))
        : QStringLiteral("/queues/%1/events").arg(encoded(words[1]));
    if (m_parser.isSet(QStringLiteral("limit")) && words.size() < 3)
        path += QStringLiteral("?limit=") + encoded(option("limit"));
    call("GET", path, {}, [this](const QJsonValue &json, const QByteArray &raw) {
        QList<QStringList> rows;
        for (const QJsonValue &event : json[QStringLiteral("events")].toArray()) {
            const QJsonObject e = event.toObject();
            rows.append({Output::time(e[QStringLiteral("time")]), e[QStringLiteral("event")].toString(),
                         e[QStringLiteral("queue")].toString(), Output::cell(e[QStringLiteral("message_id")]),
                         Output::cell(e[QStringLiteral("delivery_count")]), Output::cell(e[QStringLiteral("user")]),
                         Output::cell(e[QStringLiteral("detail")])});
        }
        m_output.table({QStringLiteral("TIME"), QStringLiteral("EVENT"), QStringLiteral("QUEUE"),
                        QStringLiteral("MESSAGE"), QStringLiteral("DELIVERIES"), QStringLiteral("USER"),
                        QStringLiteral("DETAIL")},
                       rows, raw);
        m_finish(Ok);
    });
}

void Commands::demo()
{
    const int messages = option("messages").isEmpty() ? 10'000 : option("messages").toInt();
    const int batch = option("batch").isEmpty() ? 100 : qBound(1, option("batch").toInt(), 1000);
    if (messages <= 0)
        return fail(UsageError, QStringLiteral("--messages must be positive"));
    const QString queue =
        QStringLiteral("demo-%1").arg(QRandomGenerator::global()->generate(), 8, 16, QLatin1Char('0'));
    QJsonObject body{{QStringLiteral("name"), queue},
                     {QStringLiteral("options"), QJsonObject{{QStringLiteral("max_size"), messages}}}};
    Output::note(QStringLiteral("demo: queue %1, %2 messages in batches of %3").arg(queue).arg(messages).arg(batch));
    call("POST", QStringLiteral("/queues"), compact(body), [this, queue](const QJsonValue &, const QByteArray &) {
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
            items.append(QJsonObject{{QStringLiteral("n"), published + i},
                                     {QStringLiteral("text"), QStringLiteral("demo message")}});
        return call("POST", path + QStringLiteral("/batch"), compact(QJsonObject{{QStringLiteral("messages"), items}}),
                    [this, queue, published, n](const QJsonValue &, const QByteArray &) {
                        if (published + n >= property("demoMessages").toInt())
                            m_publishMs = m_timer.elapsed();
                        demoStep(queue, published + n, 0);
                    });
    }
    if (consumed < messages) {
        return call(
            "GET", path + QStringLiteral("?count=%1").arg(batch), {},
            [this, queue, published, consumed](const QJsonValue &json, const QByteArray &) {
                const int got = json.toObject().contains(QStringLiteral("message"))
                    ? 1
                    : int(json[QStringLiteral("messages")].toArray().size());
                demoStep(queue, published, consumed + got);
            },
            [this, queue] { fail(Failure, QStringLiteral("demo: queue %1 ran dry early").arg(queue)); });
    }
    const qint64 totalMs = qMax<qint64>(1, m_timer.elapsed());
    const qint64 consumeMs = qMax<qint64>(1, totalMs - m_publishMs);
    call("DELETE", QStringLiteral("/queues/") + queue, {},
         [this, messages, totalMs, consumeMs](const QJsonValue &, const QByteArray &) {
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
                                compact(result));
             m_finish(Ok);
         });
}

} // namespace BrokerCtl
