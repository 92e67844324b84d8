// SPDX-License-Identifier: GPL-3.0-or-later
#include "partitioning.h"

namespace Broker::Partitioning {

namespace {
constexpr QChar Separator = u'~';
constexpr QChar ReceiptSeparator = u'.';

// The index after `separator` at the end of `text`, when it is a partition number (1 or more,
// no leading zero); -1 otherwise.
qsizetype suffixStart(QStringView text, QChar separator)
{
    // Most names have no suffix at all: a name that does not end in a digit is answered without
    // searching it (every queue's events and wake-ups pass through here).
    if (text.isEmpty() || text.back().unicode() < u'0' || text.back().unicode() > u'9')
        return -1;
    const qsizetype at = text.lastIndexOf(separator);
    if (at < 1 || at + 1 >= text.size() || text[at + 1] == u'0')
        return -1;
    for (qsizetype i = at + 1; i < text.size(); ++i) {
        if (!text[i].isDigit() || text[i].unicode() > 127)
            return -1;
    }
    return at;
}

quint64 fnv1a(const QByteArray &bytes)
{
    quint64 hash = 14695981039346656037ULL;
    for (const char c : bytes) {
        hash ^= quint8(c);
        hash *= 1099511628211ULL;
    }
    return hash;
}
} // namespace

QString storeQueue(const QString &queue, int partition)
{
    return partition == 0 ? queue : queue + Separator + QString::number(partition);
}

StoreQueueName split(const QString &storeQueue)
{
    const qsizetype at = suffixStart(storeQueue, Separator);
    if (at < 0)
        return {storeQueue, 0};
    return {storeQueue.left(at), QStringView(storeQueue).mid(at + 1).toInt()};
}

bool isPartition(QStringView storeQueue)
{
    return suffixStart(storeQueue, Separator) >= 0;
}

int partitionOf(QStringView key, int partitions)
{
    quint64 state = fnv1a(key.toUtf8());
    qint64 bucket = -1;
    qint64 next = 0;
    while (next < partitions) {
        bucket = next;
        state = state * 2862933555777941757ULL + 1;
        next = qint64(double(bucket + 1) * (double(1LL << 31) / double((state >> 33) + 1)));
    }
    return int(bucket);
}

QString receiptWithPartition(const QString &receipt, int partition)
{
    if (partition == 0 || receipt.isEmpty())
        return receipt;
    return receipt + ReceiptSeparator + QString::number(partition);
}

std::pair<QString, int> splitReceipt(const QString &receipt)
{
    const qsizetype at = suffixStart(receipt, ReceiptSeparator);
    if (at < 0)
        return {receipt, 0};
    return {receipt.left(at), QStringView(receipt).mid(at + 1).toInt()};
}

} // namespace Broker::Partitioning
