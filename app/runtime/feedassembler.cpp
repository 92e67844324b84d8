// SPDX-License-Identifier: GPL-3.0-or-later
#include "feedassembler.h"

#include "apijson.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <utility>

namespace Broker {

FeedAssembler::FeedAssembler(int intervalMs, QObject *parent) : QObject(parent), m_timer(this)
{
    qRegisterMetaType<Broker::BrokerSnapshot>();
    m_timer.setSingleShot(true);
    m_timer.setInterval(intervalMs);
    connect(&m_timer, &QTimer::timeout, this, [this] { emitSnapshot(false); });
}

void FeedAssembler::feed(const QByteArray &bytes)
{
    for (const StreamEvent &event : m_parser.feed(bytes))
        handle(event);
}

void FeedAssembler::restart()
{
    m_parser.reset();
    m_incomingTable.clear();
    m_receivingTable = false;
}

void FeedAssembler::flush()
{
    m_timer.stop();
    emitSnapshot(true);
}

void FeedAssembler::handle(const StreamEvent &event)
{
    const QJsonObject json = QJsonDocument::fromJson(event.data).object();
    if (event.type == "message") {
        if (std::optional<MessageEvent> message = ApiJson::messageEvent(json)) {
            m_broker.lastEventNumber = message->number;
            m_newEvents.append(std::move(*message));
            if (m_newEvents.size() > MaxEventsPerSnapshot)
                m_newEvents.removeFirst();
        }
    } else if (event.type == "queues") {
        readQueues(json);
        if (m_receivingTable)
            return; // the table is shown once it is whole
    } else if (event.type == "broker") {
        ApiJson::applyBrokerCounters(json, m_broker);
    } else if (event.type == "gap") {
        m_eventsMissed += qMax<qint64>(0, json.value(u"missed").toInteger());
    } else {
        return;
    }
    if (!m_timer.isActive())
        m_timer.start();
}

void FeedAssembler::readQueues(const QJsonObject &json)
{
    const bool full = json.value(u"full").toBool();
    if (full && !m_receivingTable) {
        m_incomingTable.clear();
        m_receivingTable = true;
    }
    QMap<QString, QueueInfo> &target = m_receivingTable ? m_incomingTable : m_queues;
    for (const QJsonValue &name : json.value(u"removed").toArray())
        target.remove(name.toString());
    for (const QJsonValue &value : json.value(u"queues").toArray()) {
        if (std::optional<QueueInfo> queue = ApiJson::queueInfo(value.toObject()))
            target.insert(queue->name, std::move(*queue));
    }
    if (m_receivingTable && !json.value(u"more").toBool()) {
        m_queues = std::exchange(m_incomingTable, {});
        m_receivingTable = false;
    }
}

void FeedAssembler::emitSnapshot(bool flushed)
{
    BrokerSnapshot out = m_broker;
    out.queues = m_queues.values(); // QMap: sorted by name
    out.takenAtMs = QDateTime::currentMSecsSinceEpoch();
    out.recentEvents = std::exchange(m_newEvents, {});
    Q_EMIT assembled(out, m_parser.lastEventId(), m_eventsMissed, flushed);
}

} // namespace Broker
