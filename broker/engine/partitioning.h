// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>
#include <QStringView>

#include <optional>

namespace Broker::Partitioning {

// Partition 0 of queue Q is the store queue Q itself, so that a queue keeps its messages when it
// becomes partitioned; partition i > 0 is the store queue "Q~i". '~' is never part of a queue
// name a client may use (QueueName::isValid), so these names cannot meet a client's queue, and
// on Redis each has a hash tag of its own: the partitions spread over a cluster's primaries.
QString storeQueue(const QString &queue, int partition);

struct StoreQueueName
{
    QString queue;     // the logical queue
    int partition = 0;
};
// The logical queue and partition of a store queue's name; a name without "~i" is partition 0.
StoreQueueName split(const QString &storeQueue);
// Whether `storeQueue` names a partition i > 0 ("Q~i"): what split() would find, without a copy.
bool isPartition(QStringView storeQueue);

// The partition of `key` among `partitions`: jump consistent hashing (Lamping and Veach) over a
// 64-bit FNV-1a hash of the key's UTF-8 bytes, the same in every broker and every run. When the
// count grows from n to m, a key keeps its partition or moves to one of the new ones, and only
// (m - n) / m of the keys move: the least any mapping can move.
int partitionOf(QStringView key, int partitions);

// Receipts of leases from partition i > 0 carry ".i", so that an ack or nack with its receipt
// goes straight to the partition that holds the message.
QString receiptWithPartition(const QString &receipt, int partition);
// The store's receipt and the partition it names (0 without a suffix).
std::pair<QString, int> splitReceipt(const QString &receipt);

} // namespace Broker::Partitioning
