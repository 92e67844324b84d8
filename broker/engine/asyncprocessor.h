// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/message.h"

#include <QString>

#include <functional>

namespace Broker {

// An in-process consumer: returns true to acknowledge the message, false to nack it (it is then
// redelivered, and dead-lettered after max_deliveries). Runs in the engine's thread.
using Processor = std::function<bool(const Message &)>;

// How a processor finished with one message.
struct ProcessorOutcome
{
    bool acknowledged = false;
    QString error; // when not acknowledged, why: "HTTP 500", "exit status 3", "timed out after 5000 ms"

    static ProcessorOutcome ack() { return {true, {}}; }
    static ProcessorOutcome nack(QString why) { return {false, std::move(why)}; }
};
using ProcessorDone = std::function<void(ProcessorOutcome)>;

// A processor that may finish later: the engine leases a message to it, calls process(), and acks
// or nacks the message when `done` reports the outcome. Lives in the engine's thread and never
// blocks it. Deadlines are the processor's own (a webhook's or a command's timeout_ms).
class AsyncProcessor
{
public:
    virtual ~AsyncProcessor() = default;

    // Handles one leased message and calls `done` exactly once, at once or later, in the engine's
    // thread. Work still under way when the processor is destroyed is abandoned without calling
    // `done`: the message's lease runs out and it is delivered again.
    virtual void process(const Message &message, ProcessorDone done) = 0;
    // "callable", "webhook", "exec" (ProcessorStatus::kind).
    virtual QString kind() const = 0;
    // What the status may show of where messages go: never credentials, paths, secrets or arguments.
    virtual QString target() const { return {}; }
    // How long a lease on a message handed to it lasts: longer than its own deadline, so that a
    // message is not delivered twice while it is being worked on. 0: the queue's visibility timeout.
    virtual qint64 leaseMs() const { return 0; }
};

} // namespace Broker
