// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "messageevent.h"
#include "queueinfo.h"

#include <QList>
#include <QMetaType>
#include <QString>

namespace Broker {

enum class HealthStatus { Healthy, Degraded, Unhealthy };
const char *healthStatusName(HealthStatus status);

// Everything a UI or the API needs to draw the broker at one instant, as plain values. Taken in
// the engine's thread and safe to hand to any other thread.
struct BrokerSnapshot
{
    qint64 takenAtMs = 0;
    qint64 uptimeSeconds = 0;
    HealthStatus health = HealthStatus::Healthy;
    QString storage;           // "memory" or "redis"
    QList<QueueInfo> queues;   // sorted by name
    qint64 messagesTotal = 0;  // queued now: ready + delayed + in flight, over all queues
    qint64 messagesProcessed = 0; // acknowledged so far, over all queues
    QueueRates rates;          // whole broker
    QList<MessageEvent> recentEvents; // oldest first; only those after the requested event number
    quint64 lastEventNumber = 0;      // pass back to get only newer events next time
};

} // namespace Broker

Q_DECLARE_METATYPE(Broker::BrokerSnapshot)
