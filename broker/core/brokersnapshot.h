// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "messageevent.h"
#include "processorstatus.h"
#include "queueinfo.h"
#include "webhookstatus.h"

#include <QList>
#include <QMetaType>
#include <QString>

#include <optional>

namespace Broker {

enum class HealthStatus { Healthy, Degraded, Unhealthy };
const char *healthStatusName(HealthStatus status);

// How the storage backend is doing beyond healthy or not. The memory store leaves it empty; the
// Redis store fills in its circuit breaker, connection pool and publish spool.
// One node of a Redis/Valkey Cluster as this broker sees it (StoreStatus::nodes).
struct StoreNodeStatus
{
    QString address;          // host:port
    bool primary = false;
    QString health;           // "online", "failed", "loading"; empty when the server did not say
    int slotCount = 0;        // slots it serves as primary
    int connections = 0;      // primaries: the pool this broker keeps to it
    int connectionsReady = 0;
    qint64 movedRedirects = 0; // its replies that sent a command to another node
    qint64 askRedirects = 0;
};

struct StoreStatus
{
    QString breaker;             // "closed", "open", "half_open"; empty: the backend has none
    qint64 breakerOpened = 0;    // times the breaker opened since start
    qint64 breakerRetryAtMs = 0; // while open: when the next probe may go out
    int connectionsReady = 0;
    int connections = 0;         // 0: the backend keeps no connections
    qint64 reconnects = 0;
    qint64 spooledMessages = 0;  // accepted while the backend was out of reach, not yet delivered to it
    qint64 spooledBytes = 0;     // their stored size
    qint64 spoolMaxMessages = 0; // the spool's bounds (0: none); publishes beyond them are refused (503)
    qint64 spoolMaxBytes = 0;
    qint64 queuesRecreated = 0;  // queues missing when the spool drained (the backend lost its data), created again
    qint64 spoolDiscarded = 0;   // spooled messages of queues deleted on purpose meanwhile: gone with their queue
    QString spoolBlocked;        // why the spool cannot deliver its oldest batch (it stays); empty: it can
    qint64 scriptReloads = 0;    // scripts Redis had forgotten (restart, SCRIPT FLUSH) and got again
    QString scriptCalls;         // how scripts run: "functions" (FCALL), "eval" (EVALSHA), empty: none ran yet
    QString lastError;           // why the backend was last out of reach; safe to show
    // Redis/Valkey Cluster: its nodes, and whether every slot has a primary this broker reaches.
    bool cluster = false;
    bool allSlotsServed = true;
    QList<StoreNodeStatus> nodes;
    // Wake-ups from other brokers sharing the backend (RedisWakeups): the node subscribed to
    // (empty while not subscribed) and the wake-ups heard so far.
    QString wakeupNode;
    QString wakeupError;         // while not subscribed: why (safe to show)
    qint64 wakeupsReceived = 0;
    // False while changes are refused because the store cannot make them durable (a journal write
    // or sync failed: full disk, I/O error). Reads still work; the store retries by itself.
    bool writable = true;
    QString readOnlyReason;      // why changes are refused; safe to show (no paths)
};

// Everything a UI or the API needs to draw the broker at one instant, as plain values. Taken in
// the engine's thread and safe to hand to any other thread.
struct BrokerSnapshot
{
    qint64 takenAtMs = 0;
    qint64 uptimeSeconds = 0;
    HealthStatus health = HealthStatus::Healthy;
    QString storage;           // "memory" or "redis"
    StoreStatus storeStatus;
    QList<QueueInfo> queues;   // sorted by name
    qint64 messagesTotal = 0;  // queued now: ready + delayed + in flight, over all queues
    qint64 messagesProcessed = 0; // acknowledged so far, over all queues
    QueueRates rates;          // whole broker
    QList<MessageEvent> recentEvents; // oldest first; only those after the requested event number
    quint64 lastEventNumber = 0;      // pass back to get only newer events next time
    std::optional<WebhookStatus> notificationWebhook; // when error.webhook_url is set
    ProcessorStatusList processors;   // by id
};

} // namespace Broker

Q_DECLARE_METATYPE(Broker::BrokerSnapshot)
