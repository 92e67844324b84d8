// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <functional>

namespace Broker {

// What a producer hands to the engine. `data` is compact JSON text of any value but null.
struct NewMessage
{
    QByteArray data;
    QJsonObject headers;
    int priority = 0;     // higher is delivered first on priority queues; ignored elsewhere
    qint64 delayMs = 0;   // not deliverable before publish time + delay
    QString key;          // partitioned queues: messages with one key go to one partition, in order
};

// A message as the engine hands it out (consume, browse). A value: copying it never touches
// engine state.
struct Message
{
    QString id;
    QString queue;
    QByteArray data;          // compact JSON text
    QJsonObject headers;
    QString publisher;        // user id of the publisher
    double timestamp = 0;     // publish time, unix seconds with fraction
    int priority = 0;
    int deliveryCount = 0;    // deliveries so far, this one included
    QString receipt;          // set for leased deliveries (acknowledge=false); proves the lease
    qint64 leaseDeadlineMs = 0; // when an unacknowledged lease expires (0: not leased)
    qint64 dueMs = 0;         // browsing delayed messages: when it becomes deliverable (0: not delayed)
    QString group;            // consumer group (stream queues)
    // Set on messages that were dead-lettered: where they came from and why.
    QString originQueue;
    QString deadLetterReason;
    double deadLetteredAt = 0;
};

struct PublishResult
{
    // The new messages' ids by their numbers (MessageId::format gives the text): an answer
    // writes them without making a string for each.
    QList<quint64> messageSequences;
    qint64 queueSize = 0; // ready + delayed + in flight after the publish

    QString messageId(qsizetype index) const; // empty when out of range
    QList<QString> messageIds() const;
};

struct ConsumeRequest
{
    int count = 1;
    bool acknowledge = true;      // true: remove on delivery; false: lease
    qint64 visibilityTimeoutMs = 0; // lease length; 0 = the queue's default
    QString group;                // stream queues: consumer group ("" = "default")
    QString consumer;             // stream queues: consumer name within the group
    QString user;                 // who consumes, for the event log
    // Asked before a waiting consumer is given messages: false when nobody would receive them
    // (the client went away), so that nothing is taken from the queue for nobody. Empty: always.
    std::function<bool()> stillWanted;
};

struct NackResult
{
    bool requeued = false;
    bool deadLettered = false;
};

struct BrowsePage
{
    QList<Message> messages;
    // Unfiltered: messages in the state. Filtered: the matches among those examined (a lower
    // bound when `truncated`).
    qint64 total = 0;
    qint64 nextOffset = -1; // -1 when there is nothing after this page
    qint64 scanned = 0;     // messages examined to answer
    bool truncated = false; // a filtered browse stopped at BrowseQuery::MaxScan with messages left unexamined
};

} // namespace Broker
