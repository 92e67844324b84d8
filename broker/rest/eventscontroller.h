// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "controller.h"
#include "eventcounters.h"
#include "eventstream.h"

#include <QObject>
#include <QTimer>

#include <vector>

namespace Broker::Rest {

// GET /events: the broker live, as Server-Sent Events (text/event-stream). Message events as they
// happen (each needs peek:{queue}), queue and broker counters when they change (list_queues), at
// most once per api.events.update_interval_ms; `id:` on every message event, and a reader that
// reconnects with Last-Event-ID resumes after it from the broker's event history. Heartbeat
// comments keep idle streams open through proxies. Streams are bounded per user and per client
// address, and each reader's unsent output is bounded (EventStream). Streams end when the server
// stops, and when their key is revoked or disabled. Lives in the engine's thread.
class EventsController final : public QObject, public Controller
{
    Q_OBJECT
public:
    EventsController(RestContext &context, Router &router);
    ~EventsController() override;

    struct Stats
    {
        int open = 0;
        qint64 opened = 0;  // since start
        qint64 dropped = 0; // readers that took nothing for stall_timeout_seconds while over their bound
        qint64 gaps = 0;    // `gap` events sent: readers told they missed events
    };
    Stats stats() const;
    // Ends every stream (the server stops).
    void finishAll();

private:
    void open(const ExchangePtr &exchange);
    Result<EventSelection> selection(const ExchangePtr &exchange, bool seesCounters) const;
    void streamClosed(EventStream *stream);
    void tick();
    void counted(BrokerSnapshot snapshot);
    void pumpAll();
    void checkUsers();
    bool wantsCounters() const;

    std::vector<EventStream *> m_streams; // owned (children of this object)
    EventCounters m_counters;
    QTimer m_ticker;                      // runs while any stream is open
    bool m_countsPending = false;         // a snapshot is on its way
    quint64 m_usersGeneration = 0;
    Stats m_closedStats;                  // of streams already gone
    qint64 m_opened = 0;
};

} // namespace Broker::Rest
