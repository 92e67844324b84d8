// SPDX-License-Identifier: GPL-3.0-or-later
#include "orderedqueue.h"

#include "storeerrors.h"

#include "core/messageid.h"

namespace Broker {

OrderedQueue::OrderedQueue(QString name, QueueConfig config, qint64 createdMs, MemoryQueueHost &host,
                           std::unique_ptr<ReadySet> ready)
    : MemoryQueue(std::move(name), std::move(config), createdMs, host), m_ready(std::move(ready))
{
}

qint64 OrderedQueue::size() const
{
    return m_ready->size() + qint64(m_delayed.size()) + qint64(m_leases.size());
}

void OrderedQueue::add(StoredMessage &&message)
{
    if (message.notBeforeMs > m_host.nowMs()) {
        const qint64 due = message.notBeforeMs;
        m_delayed.emplace(due, std::move(message));
    } else {
        message.notBeforeMs = 0;
        m_ready->push(std::move(message));
    }
}

Result<QList<Message>> OrderedQueue::consume(const ConsumeRequest &request)
{
    const qint64 now = m_host.nowMs();
    const qint64 leaseMs = visibilityMs(request.visibilityTimeoutMs);
    QList<Message> delivered;
    delivered.reserve(request.count);
    StoredMessage message;
    while (delivered.size() < request.count && m_ready->pop(message)) {
        if (isExpired(message, now)) {
            expire(std::move(message));
            continue;
        }
        ++message.deliveryCount;
        ++counters().delivered;
        Message out = m_host.toMessage(*this, message);
        m_host.recordEvent(MessageEventKind::Delivered, *this, message, request.user);
        if (request.acknowledge) {
            ++counters().acked;
            m_host.recordEvent(MessageEventKind::Acked, *this, message, request.user);
        } else {
            const quint64 receipt = m_host.newReceipt();
            const qint64 deadline = now + leaseMs;
            out.receipt = formatReceipt(receipt);
            out.leaseDeadlineMs = deadline;
            const quint64 sequence = message.sequence;
            m_leaseDeadlines.emplace(deadline, sequence);
            m_leases.emplace(sequence, Lease{std::move(message), receipt, deadline});
        }
        delivered.append(std::move(out));
    }
    return delivered;
}

Result<OrderedQueue::LeaseTable::iterator> OrderedQueue::findLease(const MessageRef &ref)
{
    const std::optional<quint64> sequence = MessageId::parse(ref.id);
    if (!sequence)
        return StoreErrors::messageNotFound();
    const auto it = m_leases.find(*sequence);
    if (it == m_leases.end())
        return StoreErrors::messageNotFound();
    if (!ref.receipt.isEmpty()) {
        const Result<quint64> receipt = StoreErrors::parseReceipt(ref.receipt);
        if (!receipt)
            return receipt.error();
        if (*receipt != it->second.receipt)
            return StoreErrors::staleReceipt();
    }
    return it;
}

StoredMessage OrderedQueue::releaseLease(LeaseTable::iterator it)
{
    m_leaseDeadlines.erase({it->second.deadlineMs, it->first});
    StoredMessage message = std::move(it->second.message);
    m_leases.erase(it);
    return message;
}

Result<void> OrderedQueue::ack(const MessageRef &ref)
{
    const auto lease = findLease(ref);
    if (!lease)
        return lease.error();
    const StoredMessage message = releaseLease(*lease);
    ++counters().acked;
    m_host.recordEvent(MessageEventKind::Acked, *this, message, ref.user);
    return {};
}

bool OrderedQueue::giveBack(StoredMessage &&message, qint64 delayMs, const QString &reason)
{
    if (message.deliveryCount >= quint32(config().maxDeliveries)) {
        m_host.deadLetter(*this, std::move(message), reason);
        return false;
    }
    if (delayMs > 0) {
        message.notBeforeMs = m_host.nowMs() + delayMs;
        const qint64 due = message.notBeforeMs;
        m_delayed.emplace(due, std::move(message));
    } else {
        m_ready->requeue(std::move(message));
    }
    return true;
}

Result<NackResult> OrderedQueue::nack(const MessageRef &ref, qint64 delayMs)
{
    const auto lease = findLease(ref);
    if (!lease)
        return lease.error();
    StoredMessage message = releaseLease(*lease);
    ++counters().nacked;
    m_host.recordEvent(MessageEventKind::Nacked, *this, message, ref.user);
    NackResult result;
    result.requeued = giveBack(std::move(message), delayMs, QStringLiteral("max_deliveries"));
    result.deadLettered = !result.requeued && !config().deadLetterQueue.isEmpty();
    return result;
}

Result<qint64> OrderedQueue::extend(const MessageRef &ref, qint64 visibilityMs)
{
    const auto found = findLease(ref);
    if (!found)
        return found.error();
    const auto it = *found;
    m_leaseDeadlines.erase({it->second.deadlineMs, it->first});
    it->second.deadlineMs = m_host.nowMs() + visibilityMs;
    m_leaseDeadlines.emplace(it->second.deadlineMs, it->first);
    return it->second.deadlineMs;
}

BrowsePage OrderedQueue::browse(const BrowseQuery &query, const BrowseFilter &filter) const
{
    switch (query.state) {
    case MessageState::Ready:
    case MessageState::Dead: {
        BrowsePager pager(query, filter, m_ready->size());
        m_ready->forEach([&](const StoredMessage &message) {
            return pager.visit(filter.matches(message), [&] { return m_host.toMessage(*this, message); });
        });
        return pager.finish();
    }
    case MessageState::Delayed: {
        BrowsePager pager(query, filter, qint64(m_delayed.size()));
        for (const auto &[due, message] : m_delayed) {
            const bool more = pager.visit(filter.matches(message), [&, due = due] {
                Message out = m_host.toMessage(*this, message);
                out.dueMs = due;
                return out;
            });
            if (!more)
                break;
        }
        return pager.finish();
    }
    case MessageState::InFlight: {
        BrowsePager pager(query, filter, qint64(m_leases.size()));
        // By lease end: the next to come back first. The receipt stays with its consumer.
        for (const auto &[deadline, sequence] : m_leaseDeadlines) {
            const StoredMessage &message = m_leases.at(sequence).message;
            const bool more = pager.visit(filter.matches(message), [&, deadline = deadline] {
                Message out = m_host.toMessage(*this, message);
                out.leaseDeadlineMs = deadline;
                return out;
            });
            if (!more)
                break;
        }
        return pager.finish();
    }
    }
    return {};
}

qint64 OrderedQueue::purge()
{
    const qint64 removed = size();
    m_ready->clear();
    m_delayed.clear();
    m_leases.clear();
    m_leaseDeadlines.clear();
    return removed;
}

void OrderedQueue::takeDeadLettered(const QString &origin, qint64 limit, const QSet<quint64> *only,
                                    const std::function<bool(const QString &)> &returnable,
                                    std::vector<StoredMessage> &out)
{
    qint64 taken = 0;
    m_ready->removeIf(
        [&](const StoredMessage &message) {
            if ((limit > 0 && taken >= limit) || !message.extras || message.extras->originQueue.isEmpty())
                return false;
            if (!origin.isEmpty() && message.extras->originQueue != origin)
                return false;
            if ((only && !only->contains(message.sequence)) || !returnable(message.extras->originQueue))
                return false;
            ++taken;
            return true;
        },
        out);
}

void OrderedQueue::takeMessages(const QSet<quint64> &sequences, std::vector<StoredMessage> &out)
{
    if (sequences.isEmpty())
        return;
    for (const quint64 sequence : sequences) {
        const auto lease = m_leases.find(sequence);
        if (lease != m_leases.end())
            out.push_back(releaseLease(lease));
    }
    for (auto it = m_delayed.begin(); it != m_delayed.end();) {
        if (sequences.contains(it->second.sequence)) {
            out.push_back(std::move(it->second));
            it = m_delayed.erase(it);
        } else {
            ++it;
        }
    }
    if (qsizetype(out.size()) < sequences.size())
        m_ready->removeIf([&](const StoredMessage &message) { return sequences.contains(message.sequence); }, out);
}

void OrderedQueue::requeueMessages(const QSet<quint64> &sequences, const QString &user, QSet<quint64> &found)
{
    for (const quint64 sequence : sequences) {
        const auto lease = m_leases.find(sequence);
        if (lease == m_leases.end())
            continue;
        StoredMessage message = releaseLease(lease);
        m_host.recordEvent(MessageEventKind::Requeued, *this, message, user);
        found.insert(sequence);
        m_ready->requeue(std::move(message)); // back where it stood, as after a nack
    }
    for (auto it = m_delayed.begin(); it != m_delayed.end();) {
        if (!sequences.contains(it->second.sequence)) {
            ++it;
            continue;
        }
        StoredMessage message = std::move(it->second);
        it = m_delayed.erase(it);
        message.notBeforeMs = 0;
        m_host.recordEvent(MessageEventKind::Requeued, *this, message, user);
        found.insert(message.sequence);
        m_ready->push(std::move(message)); // as if its delay had just ended
    }
    m_ready->forEach([&](const StoredMessage &message) {
        if (sequences.contains(message.sequence))
            found.insert(message.sequence);
        return true;
    });
}

qint64 OrderedQueue::maintain(bool &becameAvailable)
{
    const qint64 now = m_host.nowMs();

    while (!m_leaseDeadlines.empty() && m_leaseDeadlines.begin()->first <= now) {
        const auto it = m_leases.find(m_leaseDeadlines.begin()->second);
        StoredMessage message = releaseLease(it);
        m_host.recordEvent(MessageEventKind::LeaseExpired, *this, message, {});
        becameAvailable |= giveBack(std::move(message), 0, QStringLiteral("max_deliveries"));
    }

    while (!m_delayed.empty() && m_delayed.begin()->first <= now) {
        StoredMessage message = std::move(m_delayed.begin()->second);
        m_delayed.erase(m_delayed.begin());
        message.notBeforeMs = 0;
        m_ready->push(std::move(message));
        becameAvailable = true;
    }

    std::vector<StoredMessage> expired;
    m_ready->takeExpired(now - ttlMs(), expired);
    for (StoredMessage &message : expired)
        expire(std::move(message));

    qint64 next = 0;
    if (!m_leaseDeadlines.empty())
        next = m_leaseDeadlines.begin()->first;
    if (!m_delayed.empty() && (next == 0 || m_delayed.begin()->first < next))
        next = m_delayed.begin()->first;
    return next;
}

void OrderedQueue::fillInfo(QueueInfo &info) const
{
    info.depth = m_ready->size();
    info.delayed = qint64(m_delayed.size());
    info.inFlight = qint64(m_leases.size());
}

void OrderedQueue::save(QDataStream &out) const
{
    // Ready messages in delivery order: pushing them back in that order rebuilds the same line.
    out << quint64(m_ready->size());
    m_ready->forEach([&out](const StoredMessage &message) {
        writeStoredMessage(out, message);
        return true;
    });
    out << quint64(m_delayed.size());
    for (const auto &[due, message] : m_delayed) {
        out << due;
        writeStoredMessage(out, message);
    }
    out << quint64(m_leases.size());
    // By deadline, so that the file does not depend on the hash table's order.
    for (const auto &[deadline, sequence] : m_leaseDeadlines) {
        const Lease &lease = m_leases.at(sequence);
        out << lease.receipt << lease.deadlineMs;
        writeStoredMessage(out, lease.message);
    }
}

void OrderedQueue::load(QDataStream &in)
{
    quint64 count = 0;
    in >> count;
    for (quint64 i = 0; i < count && in.status() == QDataStream::Ok; ++i)
        m_ready->push(readStoredMessage(in));
    in >> count;
    for (quint64 i = 0; i < count && in.status() == QDataStream::Ok; ++i) {
        qint64 due = 0;
        in >> due;
        m_delayed.emplace(due, readStoredMessage(in));
    }
    in >> count;
    for (quint64 i = 0; i < count && in.status() == QDataStream::Ok; ++i) {
        Lease lease;
        in >> lease.receipt >> lease.deadlineMs;
        lease.message = readStoredMessage(in);
        const quint64 sequence = lease.message.sequence;
        m_leaseDeadlines.emplace(lease.deadlineMs, sequence);
        m_leases.emplace(sequence, std::move(lease));
    }
}

} // namespace Broker
