// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QList>
#include <QString>

namespace Broker {

// How one processor (an in-process consumer of a queue: a C++ callable, or a webhook or exec
// processor from the config's `processors:` list) is doing. What /health, /metrics, GET /processors,
// the desktop and brokerctl show: never a webhook URL's credentials, path or query, never a
// secret, never a header's value, never an exec command's arguments.
struct ProcessorStatus
{
    int id = 0;                  // unique while the broker runs
    QString name;                // the config entry's `name`; may be empty
    QString queue;
    QString kind;                // "callable", "webhook", "exec"
    QString target;              // webhook: scheme://host[:port]; exec: the program's file name; callable: empty
    int concurrency = 1;         // messages it may hold at once
    int inFlight = 0;            // messages leased to it now
    bool running = true;         // false: stopped (its queue is gone, or it is being removed)
    qint64 successes = 0;        // messages it acknowledged
    qint64 failures = 0;         // messages it failed (nacked, or timed out); dead-lettering follows max_deliveries
    QString lastError;           // of the latest failure ("HTTP 500", "exit status 3", "timed out after 5000 ms")
    qint64 lastErrorAtMs = 0;
    qint64 lastSuccessAtMs = 0;
    // The latest delivery failed and none succeeded since: /health says degraded.
    bool failing = false;
};

using ProcessorStatusList = QList<ProcessorStatus>;

} // namespace Broker
