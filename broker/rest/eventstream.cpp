// SPDX-License-Identifier: GPL-3.0-or-later
#include "eventstream.h"

#include "eventcounters.h"
#include "serializers.h"

#include "engine/messagebroker.h"
#include "security/accesspolicy.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <algorithm>

namespace Broker::Rest {

namespace {

constexpr int RetryWhileBlockedMs = 100;
constexpr int MaxPeekableRemembered = 10'000;

QByteArray compact(const QJsonObject &json)
{
    return QJsonDocument(json).toJson(QJsonDocument::Compact);
}

} // namespace

bool EventSelection::includesQueue(const QString &queue) const
{
    if (queuePatterns.isEmpty())
        return true;
    return std::any_of(queuePatterns.cbegin(), queuePatterns.cend(),
                       [&](const QString &pattern) { return AccessPolicy::globMatch(pattern, queue); });
}

bool EventSelection::includesKind(MessageEventKind kind) const
{
    return kinds.isEmpty() || kinds.contains(kind);
}

EventStream::EventStream(ExchangePtr exchange, MessageBroker &broker, const AccessPolicy &policy, EventSelection selection,
                         Limits limits, QObject *parent)
    : QObject(parent),
      m_exchange(std::move(exchange)),
      m_broker(broker),
      m_policy(policy),
      m_selection(std::move(selection)),
      m_limits(limits),
      m_user(m_exchange->user.value_or(User{})),
      m_clientLabel(m_exchange->clientLabel())
{
    m_retry.setSingleShot(true);
    connect(&m_retry, &QTimer::timeout, this, [this] {
        if (m_counters)
            pump(*m_counters);
    });
    m_heartbeat.setSingleShot(true);
    connect(&m_heartbeat, &QTimer::timeout, this, &EventStream::heartbeat);
    if (m_selection.messages)
        m_broker.watchEvents(true);
}

EventStream::~EventStream()
{
    if (m_selection.messages)
        m_broker.watchEvents(false);
}

bool EventStream::start(quint64 position, const QString &gapReason)
{
    if (!m_exchange->startStream(200, "text/event-stream; charset=utf-8"))
        return false;
    m_exchange->whenClientLeaves(this, [this] { finish(); }); // ends the response: the connection can go
    m_position = position;
    m_pendingGap = gapReason;
    QJsonArray kinds;
    if (m_selection.messages)
        kinds.append(QStringLiteral("message"));
    if (m_selection.queues)
        kinds.append(QStringLiteral("queues"));
    if (m_selection.broker)
        kinds.append(QStringLiteral("broker"));
    QJsonObject ready{{QStringLiteral("epoch"), QString::fromLatin1(m_broker.eventEpoch())},
                      {QStringLiteral("last_event_id"), QString::fromLatin1(eventId(position))},
                      {QStringLiteral("heartbeat_seconds"), m_limits.heartbeatMs / 1000},
                      {QStringLiteral("events"), kinds},
                      {QStringLiteral("oldest_event_id"),
                       m_broker.oldestEventNumber() ? QJsonValue(QString::fromLatin1(eventId(m_broker.oldestEventNumber())))
                                                    : QJsonValue()}};
    // `retry`: how long an EventSource waits before it reconnects.
    send("retry: 2000\nid: " + eventId(position) + "\nevent: ready\ndata: " + compact(ready) + "\n\n");
    return true;
}

QByteArray EventStream::eventId(quint64 number) const
{
    return m_broker.eventEpoch() + '-' + QByteArray::number(number);
}

void EventStream::pump(const EventCounters &counters)
{
    m_counters = &counters;
    if (m_finished)
        return;
    if (m_exchange->unsentBytes() > m_limits.maxBufferedBytes) {
        if (!m_stalled.isValid()) {
            m_stalled.start();
        } else if (m_stalled.elapsed() >= m_limits.stallTimeoutMs) {
            m_dropped = true;
            finish();
            return;
        }
        m_retry.start(RetryWhileBlockedMs);
        return;
    }
    m_stalled.invalidate();
    QByteArray out;
    if (m_selection.messages)
        writeMessageEvents(out);
    if (!counters.empty()) {
        if (m_selection.queues)
            out += counters.queueEvents(m_countersTick, [this](const QString &queue) { return m_selection.includesQueue(queue); });
        if (m_selection.broker)
            out += counters.brokerEvent(m_countersTick);
        m_countersTick = counters.tick();
    }
    if (!out.isEmpty())
        send(out);
    if (m_selection.messages && m_position < m_broker.lastEventNumber())
        m_retry.start(0); // still catching up: the rest in a later pass, after the other readers
}

void EventStream::writeMessageEvents(QByteArray &out)
{
    const quint64 last = m_broker.lastEventNumber();
    if (!m_pendingGap.isEmpty()) {
        writeGap(out, m_pendingGap, -1, m_position);
        m_pendingGap.clear();
    }
    if (m_position >= last)
        return;
    const quint64 oldest = m_broker.oldestEventNumber();
    if (oldest > m_position + 1) {
        // The history has moved on past this reader: say how far, and go on from its start.
        writeGap(out, QStringLiteral("behind"), qint64(oldest - 1 - m_position), oldest - 1);
        m_position = oldest - 1;
    }
    const auto visible = [this](const QString &queue) { return mayPeek(queue); };
    for (const MessageEvent &event : m_broker.eventsAfter(m_position, EventsPerPump)) {
        m_position = event.number;
        if (!m_selection.includesKind(event.kind) || !m_selection.includesQueue(event.queue) || !mayPeek(event.queue))
            continue;
        out += "id: " + eventId(event.number) + "\nevent: message\ndata: " + compact(eventJson(event, visible)) + "\n\n";
    }
}

void EventStream::writeGap(QByteArray &out, const QString &reason, qint64 missed, quint64 resumeAfter)
{
    ++m_gaps;
    QJsonObject gap{{QStringLiteral("reason"), reason},
                    {QStringLiteral("missed"), missed >= 0 ? QJsonValue(missed) : QJsonValue()},
                    {QStringLiteral("resumes_after"), QString::fromLatin1(eventId(resumeAfter))}};
    out += "id: " + eventId(resumeAfter) + "\nevent: gap\ndata: " + compact(gap) + "\n\n";
}

bool EventStream::mayPeek(const QString &queue)
{
    if (const auto known = m_peekable.constFind(queue); known != m_peekable.cend())
        return *known;
    if (m_peekable.size() >= MaxPeekableRemembered)
        m_peekable.clear();
    const bool allowed = m_policy.allows(m_user.roles, QStringLiteral("peek:") + queue);
    m_peekable.insert(queue, allowed);
    return allowed;
}

void EventStream::send(const QByteArray &out)
{
    m_exchange->streamWrite(out);
    m_heartbeat.start(m_limits.heartbeatMs);
}

void EventStream::heartbeat()
{
    if (m_finished)
        return;
    if (m_exchange->unsentBytes() > m_limits.maxBufferedBytes) {
        if (m_counters)
            pump(*m_counters); // counts the stall, drops the reader when it lasts
        m_heartbeat.start(m_limits.heartbeatMs);
        return;
    }
    send(": heartbeat\n\n");
}

void EventStream::finish()
{
    if (m_finished)
        return;
    m_finished = true;
    m_retry.stop();
    m_heartbeat.stop();
    m_exchange->endStream();
    Q_EMIT closed(this);
}

} // namespace Broker::Rest
