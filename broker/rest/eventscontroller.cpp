// SPDX-License-Identifier: GPL-3.0-or-later
#include "eventscontroller.h"

#include "core/messageevent.h"
#include "engine/messagebroker.h"

#include <QPointer>
#include <QRegularExpression>

#include <algorithm>

namespace Broker::Rest {

using Method = QHttpServerRequest::Method;

namespace {

constexpr int MaxQueuePatterns = 32;

// The values of a list parameter, given comma-separated, repeated, or both.
QStringList listParameter(const QueryParameters &query, QByteArrayView name)
{
    QStringList values;
    for (const QString &item : query.values(name)) {
        for (const QString &value : item.split(u',', Qt::SkipEmptyParts))
            values.append(value.trimmed());
    }
    return values;
}

QString kindNames()
{
    QStringList names;
    for (MessageEventKind kind : AllMessageEventKinds)
        names.append(QString::fromLatin1(messageEventKindName(kind)));
    return names.join(u", ");
}

} // namespace

EventsController::EventsController(RestContext &context, Router &router) : Controller(context)
{
    using namespace Api;
    const QString tag = QStringLiteral("operations");
    router.add({Method::Get, QStringLiteral("/events"),
                QStringLiteral("The broker live, as Server-Sent Events: message events, queue and broker counters"), {}, true,
                {QStringLiteral("streamEvents"), tag, {}, false,
                 {text(QStringLiteral("queues"), QStringLiteral("Comma-separated queue name globs (`orders*,billing`); default: every queue")),
                  text(QStringLiteral("events"), QStringLiteral("Comma-separated: `message`, `queues`, `broker`; default: all the key may see")),
                  text(QStringLiteral("kinds"), QStringLiteral("Comma-separated message event kinds; default: every kind")),
                  integer(QStringLiteral("heartbeat"), 1, 300, context.options.events.heartbeatSeconds,
                          QStringLiteral("Seconds between heartbeat comments on an idle stream")),
                  text(QStringLiteral("last_event_id"),
                       QStringLiteral("Resume after this event id (as the Last-Event-ID header does, for clients that cannot send it)"))},
                 {{200, QStringLiteral("EventStream"),
                   QStringLiteral("An open stream of `ready`, `message`, `queues`, `broker` and `gap` events and heartbeat comments"),
                   "text/event-stream"},
                  problem(400, QStringLiteral("`Invalid queues filter: ...`, `Invalid events: ...`, `Invalid kinds: ...`, "
                                              "`Invalid heartbeat: ...`, `Invalid Last-Event-ID`")),
                  problem(403, QStringLiteral("`Unauthorized`: `queues` or `broker` asked for by a key without `list_queues`")),
                  problem(429, QStringLiteral("`Too many event streams`: the user's or the address's open streams are at their limit"))},
                 false},
                [this](const ExchangePtr &exchange) { open(exchange); }});
    m_ticker.setInterval(m_context.options.events.updateIntervalMs);
    connect(&m_ticker, &QTimer::timeout, this, &EventsController::tick);
    connect(&m_context.broker, &MessageBroker::eventsAppended, this, &EventsController::pumpAll);
}

EventsController::~EventsController()
{
    finishAll();
}

Result<EventSelection> EventsController::selection(const ExchangePtr &exchange, bool seesCounters) const
{
    const QueryParameters &query = exchange->query();
    EventSelection selection;
    static const QRegularExpression pattern(QStringLiteral("^[A-Za-z0-9_.*?-]{1,128}$"));
    selection.queuePatterns = listParameter(query, "queues");
    if (selection.queuePatterns.size() > MaxQueuePatterns)
        return Error{ErrorCode::InvalidArgument, QStringLiteral("Invalid queues filter: at most %1 patterns").arg(MaxQueuePatterns)};
    for (const QString &glob : std::as_const(selection.queuePatterns)) {
        if (!pattern.match(glob).hasMatch())
            return Error{ErrorCode::InvalidArgument, QStringLiteral("Invalid queues filter: '%1'").arg(glob.left(64)),
                         QStringLiteral("Queue names and the wildcards * and ?, comma-separated")};
    }

    const QStringList types = listParameter(query, "events");
    if (!types.isEmpty()) {
        selection.messages = selection.queues = selection.broker = false;
        for (const QString &type : types) {
            if (type == u"message")
                selection.messages = true;
            else if (type == u"queues")
                selection.queues = true;
            else if (type == u"broker")
                selection.broker = true;
            else
                return Error{ErrorCode::InvalidArgument, QStringLiteral("Invalid events: '%1'").arg(type.left(64)),
                             QStringLiteral("One or more of message, queues, broker")};
        }
        if ((selection.queues || selection.broker) && !seesCounters)
            return Error{ErrorCode::PermissionDenied, QStringLiteral("queue and broker counters need the list_queues permission")};
    } else if (!seesCounters) {
        selection.queues = selection.broker = false;
    }

    for (const QString &name : listParameter(query, "kinds")) {
        const std::optional<MessageEventKind> kind = messageEventKindFromName(name);
        if (!kind)
            return Error{ErrorCode::InvalidArgument, QStringLiteral("Invalid kinds: '%1'").arg(name.left(64)),
                         QStringLiteral("One or more of %1").arg(kindNames())};
        selection.kinds.append(*kind);
    }
    return selection;
}

void EventsController::open(const ExchangePtr &exchange)
{
    if (exchange->isHead())
        return exchange->sendText(200, "text/event-stream; charset=utf-8", {});
    const User &user = *exchange->user;
    const bool seesCounters = m_context.policy.allows(user.roles, QStringLiteral("list_queues"));
    Result<EventSelection> selected = selection(exchange, seesCounters);
    if (!check(exchange, selected))
        return;

    int heartbeatSeconds = m_context.options.events.heartbeatSeconds;
    if (const QString value = exchange->query().value("heartbeat"); !value.isEmpty()) {
        bool ok = false;
        heartbeatSeconds = value.toInt(&ok);
        if (!ok || heartbeatSeconds < 1 || heartbeatSeconds > 300)
            return exchange->sendProblem(400, QStringLiteral("Invalid heartbeat: %1").arg(value.left(32)),
                                         QStringLiteral("Seconds, 1 to 300"));
    }

    // Where to start: after the event the reader saw last, when it is one of this broker's.
    MessageBroker &broker = m_context.broker;
    quint64 position = broker.lastEventNumber();
    QString gapReason;
    QByteArray lastId = exchange->header("last-event-id").toByteArray().trimmed();
    if (lastId.isEmpty())
        lastId = exchange->query().value("last_event_id").toLatin1();
    if (!lastId.isEmpty()) {
        static const QRegularExpression idPattern(QStringLiteral("^([a-z0-9]{1,16})-([0-9]{1,19})$"));
        const QRegularExpressionMatch match = idPattern.match(QString::fromLatin1(lastId));
        bool numberOk = false;
        const quint64 number = match.hasMatch() ? match.captured(2).toULongLong(&numberOk) : 0;
        if (!match.hasMatch() || !numberOk)
            return exchange->sendProblem(400, QStringLiteral("Invalid Last-Event-ID"),
                                         QStringLiteral("An id of this broker's events: EPOCH-NUMBER"));
        if (match.captured(1).toLatin1() == broker.eventEpoch() && number <= broker.lastEventNumber()) {
            position = number;
        } else {
            // Another run of the broker (or another broker): everything this one still has is new.
            gapReason = QStringLiteral("restarted");
            position = broker.oldestEventNumber() > 0 ? broker.oldestEventNumber() - 1 : broker.lastEventNumber();
        }
    }

    const EventStreamOptions &limits = m_context.options.events;
    const QString label = exchange->clientLabel();
    const auto perUser = std::count_if(m_streams.cbegin(), m_streams.cend(),
                                       [&](const EventStream *s) { return s->user().id == user.id; });
    const auto perAddress = std::count_if(m_streams.cbegin(), m_streams.cend(),
                                          [&](const EventStream *s) { return s->clientLabel() == label; });
    if (perUser >= limits.maxStreamsPerUser || perAddress >= limits.maxStreamsPerAddress) {
        exchange->addHeader("Retry-After", "5");
        return exchange->sendProblem(
            429, QStringLiteral("Too many event streams"),
            perUser >= limits.maxStreamsPerUser
                ? QStringLiteral("At most %1 open streams per user").arg(limits.maxStreamsPerUser)
                : QStringLiteral("At most %1 open streams per client address").arg(limits.maxStreamsPerAddress));
    }

    auto *stream = new EventStream(exchange, broker, m_context.policy, std::move(selected.value()),
                                   {limits.maxBufferedBytes, limits.stallTimeoutMs, heartbeatSeconds * 1000}, this);
    if (!stream->start(position, gapReason)) {
        delete stream;
        return;
    }
    connect(stream, &EventStream::closed, this, &EventsController::streamClosed);
    m_streams.push_back(stream);
    ++m_opened;
    if (m_streams.size() == 1) {
        m_usersGeneration = m_context.users.generation();
        m_ticker.start();
    }
    if (stream->selection().queues || stream->selection().broker) {
        if (m_counters.empty())
            tick(); // the first counters now, not an interval later
        else
            stream->pump(m_counters);
    } else {
        stream->pump(m_counters);
    }
}

void EventsController::streamClosed(EventStream *stream)
{
    const auto it = std::find(m_streams.begin(), m_streams.end(), stream);
    if (it == m_streams.end())
        return;
    m_streams.erase(it);
    m_closedStats.dropped += stream->dropped() ? 1 : 0;
    m_closedStats.gaps += stream->gapsSent();
    stream->deleteLater();
    if (m_streams.empty())
        m_ticker.stop();
}

bool EventsController::wantsCounters() const
{
    return std::any_of(m_streams.cbegin(), m_streams.cend(),
                       [](const EventStream *s) { return s->selection().queues || s->selection().broker; });
}

void EventsController::tick()
{
    checkUsers();
    if (!wantsCounters()) {
        pumpAll(); // readers over their bound look again; heartbeats are their own
        return;
    }
    if (m_countsPending)
        return; // a slow store: one snapshot at a time, however many intervals pass
    m_countsPending = true;
    QPointer<EventsController> self(this);
    m_context.broker.snapshot(m_context.broker.lastEventNumber(), [self](Result<BrokerSnapshot> snapshot) {
        if (!self)
            return;
        self->m_countsPending = false;
        if (snapshot)
            self->counted(std::move(snapshot.value()));
    });
}

void EventsController::counted(BrokerSnapshot snapshot)
{
    m_counters.update(snapshot);
    pumpAll();
}

void EventsController::pumpAll()
{
    // A copy: a stream may close (and leave the list) while it writes.
    const std::vector<EventStream *> streams = m_streams;
    for (EventStream *stream : streams)
        stream->pump(m_counters);
}

void EventsController::checkUsers()
{
    if (m_context.users.generation() == m_usersGeneration)
        return;
    m_usersGeneration = m_context.users.generation();
    const std::vector<EventStream *> streams = m_streams;
    for (EventStream *stream : streams) {
        // A key that was replaced, or a user disabled or removed, ends its streams; changed roles
        // apply from the next event on.
        const User *user = m_context.users.find(stream->user().id);
        if (!user || user->disabled || user->keyHash != stream->user().keyHash)
            stream->finish();
        else
            stream->setUser(*user);
    }
}

void EventsController::finishAll()
{
    const std::vector<EventStream *> streams = m_streams;
    for (EventStream *stream : streams)
        stream->finish();
}

EventsController::Stats EventsController::stats() const
{
    Stats stats = m_closedStats;
    stats.open = int(m_streams.size());
    stats.opened = m_opened;
    for (const EventStream *stream : m_streams)
        stats.gaps += stream->gapsSent();
    return stats;
}

} // namespace Broker::Rest
