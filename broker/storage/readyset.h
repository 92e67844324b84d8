// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "storedmessage.h"

#include <QString>

#include <functional>
#include <memory>
#include <vector>

namespace Broker {

// The order in which a queue type delivers its ready messages: the part of a queue type that
// differs between list (FIFO), priority and custom types. Leases, delays, TTL and dead-lettering
// are the store's business and the same for every type.
class ReadySet
{
public:
    virtual ~ReadySet() = default;

    // A message that became deliverable: published, delay over, redriven.
    virtual void push(StoredMessage &&message) = 0;
    // A message that comes back after a delivery (lease expired, nack): it goes back where it
    // stood in line, which for FIFO means the front.
    virtual void requeue(StoredMessage &&message) = 0;
    // Takes the next message to deliver; false when empty.
    virtual bool pop(StoredMessage &out) = 0;
    virtual qint64 size() const = 0;
    // Visits messages in delivery order until `visit` returns false.
    virtual void forEach(const std::function<bool(const StoredMessage &)> &visit) const = 0;
    // Removes every message for which `take` returns true, appending it to `out`.
    virtual void removeIf(const std::function<bool(const StoredMessage &)> &take,
                          std::vector<StoredMessage> &out) = 0;
    // Moves messages whose TTL clock started at or before `cutoffMs` to `out`. The default scans
    // everything; types whose order follows publish time can stop early.
    virtual void takeExpired(qint64 cutoffMs, std::vector<StoredMessage> &out)
    {
        removeIf([cutoffMs](const StoredMessage &m) { return m.ttlStartMs() <= cutoffMs; }, out);
    }
    virtual void clear() = 0;
};

// How a queue type keeps its messages.
enum class QueueKind {
    Ordered, // one ReadySet; each message is delivered to one consumer
    Stream,  // an append-only log read by consumer groups
};

// What the store needs to know about queue types; the engine's registry answers it.
class QueueTypeCatalog
{
public:
    virtual ~QueueTypeCatalog() = default;
    virtual bool contains(const QString &type) const = 0;
    virtual QueueKind kindOf(const QString &type) const = 0;
    // Built-in types are the same in every broker, so a store that several brokers share (Redis)
    // implements them itself, by name. A type added at run time exists only as its ReadySet in
    // this process, which only the memory store can run. False for unknown types.
    virtual bool isBuiltIn(const QString &type) const = 0;
    // Only for Ordered types.
    virtual std::unique_ptr<ReadySet> createReadySet(const QString &type) const = 0;
};

} // namespace Broker
