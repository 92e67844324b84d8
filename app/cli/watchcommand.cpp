// SPDX-License-Identifier: GPL-3.0-or-later
// watch: the broker's event stream (GET /events) printed live, reconnecting with Last-Event-ID
// (so that nothing inside the broker's history is missed) until interrupted.
#include "commands.h"

#include "commandsupport.h"

#include "core/eventstreamparser.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTimer>

#include <cstdio>

namespace BrokerCtl {

namespace {

constexpr int HeartbeatSeconds = 15;
constexpr int FirstRetryMs = 1000;
constexpr int LongestRetryMs = 30'000;

} // namespace

struct Commands::WatchState
{
    QString path;
    Broker::EventStreamParser parser;
    int failures = 0;     // connections in a row that ended without an event
    bool announced = false;
};

void Commands::watch(const QStringList &words)
{
    auto state = std::make_shared<WatchState>();
    QStringList query{QStringLiteral("events=message") + (m_parser.isSet(QStringLiteral("counters")) ? QStringLiteral(",queues") : QString()),
                      QStringLiteral("heartbeat=%1").arg(HeartbeatSeconds)};
    if (words.size() > 1)
        query << QStringLiteral("queues=") + encoded(words.mid(1).join(QLatin1Char(',')));
    if (m_parser.isSet(QStringLiteral("kinds")))
        query << QStringLiteral("kinds=") + encoded(option("kinds"));
    state->path = QStringLiteral("/events?") + query.join(QLatin1Char('&'));
    watchConnect(state);
}

void Commands::watchConnect(const std::shared_ptr<WatchState> &state)
{
    QList<QPair<QByteArray, QByteArray>> headers;
    if (!state->parser.lastEventId().isEmpty())
        headers.append({"Last-Event-ID", state->parser.lastEventId()});
    state->parser.reset();
    // Three heartbeats missed: the connection is taken as lost.
    m_client.stream(state->path, headers, 3 * HeartbeatSeconds * 1000,
        [this, state](const QByteArray &bytes) {
            for (const Broker::StreamEvent &event : state->parser.feed(bytes)) {
                state->failures = 0;
                printStreamEvent(event);
            }
            std::fflush(stdout);
        },
        [this, state](const ApiResponse &response) {
            // Refusals are final (a wrong key, a bad filter); a broker that is gone or overloaded
            // is tried again with a growing pause, as an EventSource would.
            if (response.status >= 400 && response.status != 429 && response.status < 500)
                return fail(HttpError, response.describeError());
            const int delay = qMin(LongestRetryMs, (state->parser.retryMs() > 0 ? state->parser.retryMs() : FirstRetryMs)
                                                       << qMin(state->failures, 5));
            ++state->failures;
            Output::note(QStringLiteral("%1; reconnecting in %2 s")
                             .arg(response.connectionFailed() ? response.networkError
                                  : response.ok()             ? QStringLiteral("the broker ended the stream")
                                                              : response.describeError())
                             .arg(delay / 1000.0));
            QTimer::singleShot(delay, this, [this, state] { watchConnect(state); });
        });
}

void Commands::printStreamEvent(const Broker::StreamEvent &event)
{
    const QByteArray &type = event.type;
    const QJsonObject json = QJsonDocument::fromJson(event.data).object();
    if (type == "ready")
        Output::note(QStringLiteral("watching %1 (Ctrl+C stops)").arg(m_client.settings().url.toString()));
    if (m_output.format() == Output::Format::Json) {
        // One line per event: its type, the stream's last id, its data.
        m_output.json(QJsonDocument(QJsonObject{{QStringLiteral("type"), QString::fromUtf8(type)},
                                                {QStringLiteral("id"), QString::fromUtf8(event.lastEventId)},
                                                {QStringLiteral("data"), json}})
                          .toJson(QJsonDocument::Compact));
        return;
    }
    if (type == "message") {
        QStringList fields{Output::time(json[QStringLiteral("time")]), json[QStringLiteral("event")].toString(),
                           json[QStringLiteral("queue")].toString(), json[QStringLiteral("message_id")].toString(),
                           Output::cell(json[QStringLiteral("delivery_count")]), json[QStringLiteral("user")].toString(),
                           json[QStringLiteral("detail")].toString()};
        for (QString &field : fields) {
            if (field.isEmpty())
                field = QStringLiteral("-");
        }
        if (m_output.format() == Output::Format::Text)
            return m_output.text(fields.join(QLatin1Char('\t')));
        return m_output.text(QStringLiteral("%1  %2  %3  %4  %5  %6  %7")
                                 .arg(fields[0], -20).arg(fields[1], -13).arg(fields[2], -20).arg(fields[3], -20)
                                 .arg(fields[4], 3).arg(fields[5], -12).arg(fields[6]));
    }
    if (type == "queues") {
        for (const QJsonValue &queue : json[QStringLiteral("queues")].toArray()) {
            const QJsonObject q = queue.toObject();
            m_output.text(QStringLiteral("queue %1: %2 ready, %3 in flight, %4 delayed")
                              .arg(q[QStringLiteral("name")].toString(), Output::cell(q[QStringLiteral("message_count")]),
                                   Output::cell(q[QStringLiteral("in_flight")]), Output::cell(q[QStringLiteral("delayed")])));
        }
        for (const QJsonValue &name : json[QStringLiteral("removed")].toArray())
            m_output.text(QStringLiteral("queue %1: deleted").arg(name.toString()));
        return;
    }
    if (type == "gap") {
        const QJsonValue missed = json[QStringLiteral("missed")];
        Output::note(json[QStringLiteral("reason")].toString() == u"restarted"
                         ? QStringLiteral("the broker restarted: events before its history are not known")
                         : QStringLiteral("missed %1 events: the broker's history had moved on").arg(Output::cell(missed)));
        return;
    }
}

} // namespace BrokerCtl
