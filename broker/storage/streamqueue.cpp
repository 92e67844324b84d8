// SPDX-License-Identifier: GPL-3.0-or-later
#include "streamqueue.h"

#include "storeerrors.h"

#include "core/messageid.h"

#include <algorithm>

namespace Broker {

StreamQueue::StreamQueue(QString name, QueueConfig config, qint64 createdMs, MemoryQueueHost &host)
    : MemoryQueue(std::move(name), std::move(config), createdMs, host)
{
}

qint64 StreamQueue::size() const
{
    return qint64(m_log.size()) - m_removedCount;
}

Result<void> StreamQueue::checkPublish(const NewMessage &message) const
{
    if (message.delayMs > 0)
        return StoreErrors::delayOnStream();
    return {};
}

void StreamQueue::add(StoredMessage &&message)
{
    message.notBeforeMs = 0;
    m_positionOf.emplace(message.sequence, m_nextPosition);
    m_log.push_back(Entry{m_nextPosition++, std::move(message), false});
}

const StreamQueue::Entry *StreamQueue::entryAt(quint64 position) const
{
    if (m_log.empty() || position < m_log.front().position || position >= m_nextPosition)
        return nullptr;
    const Entry &entry = m_log[std::size_t(position - m_log.front().position)];
    return entry.removed ? nullptr : &entry;
}

qint64 StreamQueue::lag(const Group &group) const
{
    if (m_log.empty())
        return 0;
    const quint64 first = std::max(group.lastDelivered + 1, m_log.front().position);
    return first >= m_nextPosition ? 0 : qint64(m_nextPosition - first);
}

void StreamQueue::deliver(Group &group, const QString &groupName, quint64 position, Pending &pending,
                          const ConsumeRequest &request, qint64 leaseMs, QList<Message> &out)
{
    const Entry &entry = *entryAt(position);
    const qint64 now = m_host.nowMs();
    ++pending.deliveryCount;
    ++counters().delivered;
    Message message = m_host.toMessage(*this, entry.message);
    message.deliveryCount = int(pending.deliveryCount);
    message.group = groupName;
    m_host.recordEvent(MessageEventKind::Delivered, *this, entry.message, request.user, groupName);
    pending.consumer = request.consumer.isEmpty() ? request.user : request.consumer;
    group.consumers.insert(pending.consumer);
    pending.receipt = m_host.newReceipt();
    pending.deadlineMs = now + leaseMs;
    group.deadlines.emplace(pending.deadlineMs, position);
    message.receipt = formatReceipt(pending.receipt);
    message.leaseDeadlineMs = pending.deadlineMs;
    out.append(std::move(message));
}

Result<QList<Message>> StreamQueue::consume(const ConsumeRequest &request)
{
    const qint64 now = m_host.nowMs();
    const qint64 leaseMs = visibilityMs(request.visibilityTimeoutMs);
    const QString groupName = request.group.isEmpty() ? defaultGroup() : request.group;
    Group &group = m_groups[groupName];
    QList<Message> out;

    // Entries whose lease ran out come first, oldest first (XAUTOCLAIM, then XREADGROUP >).
    while (out.size() < request.count && !group.claimable.empty()) {
        const quint64 position = *group.claimable.begin();
        group.claimable.erase(group.claimable.begin());
        const auto it = group.pending.find(position);
        if (it == group.pending.end())
            continue;
        if (!entryAt(position)) { // trimmed by TTL or redriven meanwhile
            group.pending.erase(it);
            continue;
        }
        deliver(group, groupName, position, it->second, request, leaseMs, out);
    }

    while (out.size() < request.count && !m_log.empty()) {
        const quint64 position = std::max(group.lastDelivered + 1, m_log.front().position);
        if (position >= m_nextPosition)
            break;
        group.lastDelivered = position;
        const Entry *entry = entryAt(position);
        if (!entry || isExpired(entry->message, now))
            continue; // expired entries are counted once, by the TTL sweep
        const auto pending = group.pending.emplace(position, Pending{}).first;
        deliver(group, groupName, position, pending->second, request, leaseMs, out);
        if (request.acknowledge) {
            ++counters().acked;
            m_host.recordEvent(MessageEventKind::Acked, *this, entry->message, request.user, groupName);
            out.last().receipt.clear();
            out.last().leaseDeadlineMs = 0;
            forgetPending(group, pending);
        }
    }
    trim();
    return out;
}

Result<std::pair<StreamQueue::Group *, std::map<quint64, StreamQueue::Pending>::iterator>>
StreamQueue::findPending(const MessageRef &ref)
{
    const std::optional<quint64> sequence = MessageId::parse(ref.id);
    const auto positionIt = sequence ? m_positionOf.find(*sequence) : m_positionOf.end();
    if (positionIt == m_positionOf.end())
        return StoreErrors::messageNotFound();
    const quint64 position = positionIt->second;

    std::optional<quint64> receipt;
    if (!ref.receipt.isEmpty()) {
        const Result<quint64> parsed = StoreErrors::parseReceipt(ref.receipt);
        if (!parsed)
            return parsed.error();
        receipt = *parsed;
    }

    Group *found = nullptr;
    std::map<quint64, Pending>::iterator foundIt;
    int holders = 0;
    for (auto &[name, group] : m_groups) {
        if (!ref.group.isEmpty() && name != ref.group)
            continue;
        const auto it = group.pending.find(position);
        if (it == group.pending.end())
            continue;
        if (receipt && it->second.receipt != *receipt) {
            if (!ref.group.isEmpty())
                return StoreErrors::staleReceipt();
            continue;
        }
        found = &group;
        foundIt = it;
        ++holders;
    }
    if (holders == 0)
        return receipt && ref.group.isEmpty() ? StoreErrors::staleReceipt() : StoreErrors::messageNotFound();
    if (holders > 1)
        return StoreErrors::pendingInSeveralGroups();
    if (receipt && foundIt->second.deadlineMs == 0)
        return StoreErrors::staleReceipt(); // the lease ran out; the entry waits for its next consumer
    return std::make_pair(found, foundIt);
}

void StreamQueue::forgetPending(Group &group, std::map<quint64, Pending>::iterator it)
{
    if (it->second.deadlineMs != 0)
        group.deadlines.erase({it->second.deadlineMs, it->first});
    group.claimable.erase(it->first);
    group.pending.erase(it);
}

Result<void> StreamQueue::ack(const MessageRef &ref)
{
    const auto found = findPending(ref);
    if (!found)
        return found.error();
    auto [group, it] = *found;
    ++counters().acked;
    m_host.recordEvent(MessageEventKind::Acked, *this, entryAt(it->first)->message, ref.user);
    forgetPending(*group, it);
    trim();
    return {};
}

void StreamQueue::deadLetterFromGroup(Group &group, std::map<quint64, Pending>::iterator it, const QString &reason)
{
    StoredMessage copy = entryAt(it->first)->message.clone();
    copy.deliveryCount = it->second.deliveryCount;
    forgetPending(group, it);
    m_host.deadLetter(*this, std::move(copy), reason);
}

Result<NackResult> StreamQueue::nack(const MessageRef &ref, qint64 delayMs)
{
    const auto found = findPending(ref);
    if (!found)
        return found.error();
    auto [group, it] = *found;
    ++counters().nacked;
    m_host.recordEvent(MessageEventKind::Nacked, *this, entryAt(it->first)->message, ref.user);
    NackResult result;
    if (it->second.deliveryCount >= quint32(config().maxDeliveries)) {
        result.deadLettered = !config().deadLetterQueue.isEmpty();
        deadLetterFromGroup(*group, it, QStringLiteral("max_deliveries"));
        trim();
        return result;
    }
    group->deadlines.erase({it->second.deadlineMs, it->first});
    if (delayMs > 0) {
        // Stays pending, owned by nobody, until the delay is over; then any consumer may claim it.
        it->second.deadlineMs = m_host.nowMs() + delayMs;
        it->second.receipt = m_host.newReceipt();
        group->deadlines.emplace(it->second.deadlineMs, it->first);
    } else {
        it->second.deadlineMs = 0;
        group->claimable.insert(it->first);
    }
    result.requeued = true;
    return result;
}

Result<qint64> StreamQueue::extend(const MessageRef &ref, qint64 visibilityMs)
{
    const auto found = findPending(ref);
    if (!found)
        return found.error();
    auto [group, it] = *found;
    if (it->second.deadlineMs == 0)
        return StoreErrors::messageNotFound(); // claimable: no lease to extend
    group->deadlines.erase({it->second.deadlineMs, it->first});
    it->second.deadlineMs = m_host.nowMs() + visibilityMs;
    group->deadlines.emplace(it->second.deadlineMs, it->first);
    return it->second.deadlineMs;
}

BrowsePage StreamQueue::browse(const BrowseQuery &query, const BrowseFilter &filter) const
{
    if (query.state == MessageState::Delayed) // streams take no delays
        return BrowsePager(query, filter, 0).finish();
    if (query.state == MessageState::InFlight) {
        // Entries on a lease in some consumer group, group by group, each by lease end.
        qint64 leased = 0;
        for (const auto &[name, group] : m_groups)
            leased += qint64(group.deadlines.size());
        BrowsePager pager(query, filter, leased);
        for (const auto &[name, group] : m_groups) {
            for (const auto &[deadline, position] : group.deadlines) {
                const Entry *entry = entryAt(position);
                if (!entry)
                    continue;
                const Pending &pending = group.pending.at(position);
                const bool more = pager.visit(filter.matches(entry->message), [&, deadline = deadline] {
                    Message out = m_host.toMessage(*this, entry->message);
                    out.leaseDeadlineMs = deadline;
                    out.deliveryCount = int(pending.deliveryCount);
                    out.group = name;
                    return out;
                });
                if (!more)
                    return pager.finish();
            }
        }
        return pager.finish();
    }
    BrowsePager pager(query, filter, size());
    for (const Entry &entry : m_log) {
        if (entry.removed)
            continue;
        if (!pager.visit(filter.matches(entry.message), [&] { return m_host.toMessage(*this, entry.message); }))
            break;
    }
    return pager.finish();
}

qint64 StreamQueue::purge()
{
    const qint64 removed = size();
    m_log.clear();
    m_positionOf.clear();
    m_removedCount = 0;
    for (auto &[name, group] : m_groups) {
        group.pending.clear();
        group.deadlines.clear();
        group.claimable.clear();
        group.lastDelivered = m_nextPosition - 1;
    }
    return removed;
}

void StreamQueue::takeDeadLettered(const QString &origin, qint64 limit, const QSet<quint64> *only,
                                   const std::function<bool(const QString &)> &returnable,
                                   std::vector<StoredMessage> &out)
{
    qint64 taken = 0;
    for (Entry &entry : m_log) {
        if (limit > 0 && taken >= limit)
            break;
        const MessageExtras *extras = entry.message.extras.get();
        if (entry.removed || !extras || extras->originQueue.isEmpty()
            || (!origin.isEmpty() && extras->originQueue != origin)
            || (only && !only->contains(entry.message.sequence)) || !returnable(extras->originQueue)) {
            continue;
        }
        removeEntry(entry, out);
        ++taken;
    }
    trim();
}

void StreamQueue::removeEntry(Entry &entry, std::vector<StoredMessage> &out)
{
    for (auto &[name, group] : m_groups) {
        const auto it = group.pending.find(entry.position);
        if (it != group.pending.end())
            forgetPending(group, it);
    }
    m_positionOf.erase(entry.message.sequence);
    out.push_back(std::move(entry.message));
    entry.removed = true;
    ++m_removedCount;
}

void StreamQueue::takeMessages(const QSet<quint64> &sequences, std::vector<StoredMessage> &out)
{
    for (const quint64 sequence : sequences) {
        const auto position = m_positionOf.find(sequence);
        if (position == m_positionOf.end())
            continue;
        if (entryAt(position->second)) // in the log and not removed
            removeEntry(m_log[std::size_t(position->second - m_log.front().position)], out);
    }
    trim();
}

void StreamQueue::requeueMessages(const QSet<quint64> &sequences, const QString &user, QSet<quint64> &found)
{
    // An entry stays in the log; in every group that holds it on a lease, the lease ends and the
    // entry is claimable at once (as after a nack).
    for (const quint64 sequence : sequences) {
        const auto position = m_positionOf.find(sequence);
        if (position == m_positionOf.end() || !entryAt(position->second))
            continue;
        found.insert(sequence);
        for (auto &[name, group] : m_groups) {
            const auto it = group.pending.find(position->second);
            if (it == group.pending.end() || it->second.deadlineMs == 0)
                continue;
            group.deadlines.erase({it->second.deadlineMs, it->first});
            it->second.deadlineMs = 0;
            group.claimable.insert(it->first);
            m_host.recordEvent(MessageEventKind::Requeued, *this, entryAt(position->second)->message, user, name);
        }
    }
}

qint64 StreamQueue::maintain(bool &becameAvailable)
{
    const qint64 now = m_host.nowMs();
    qint64 next = 0;
    for (auto &[name, group] : m_groups) {
        while (!group.deadlines.empty() && group.deadlines.begin()->first <= now) {
            const quint64 position = group.deadlines.begin()->second;
            group.deadlines.erase(group.deadlines.begin());
            const auto it = group.pending.find(position);
            if (it == group.pending.end())
                continue;
            const Entry *entry = entryAt(position);
            if (!entry) {
                group.pending.erase(it);
                continue;
            }
            it->second.deadlineMs = 0;
            m_host.recordEvent(MessageEventKind::LeaseExpired, *this, entry->message, {}, name);
            if (it->second.deliveryCount >= quint32(config().maxDeliveries)) {
                deadLetterFromGroup(group, it, QStringLiteral("max_deliveries"));
            } else {
                group.claimable.insert(position);
                becameAvailable = true;
            }
        }
        if (!group.deadlines.empty() && (next == 0 || group.deadlines.begin()->first < next))
            next = group.deadlines.begin()->first;
    }

    // The log is in publish order, so expired entries are at its front.
    while (!m_log.empty() && (m_log.front().removed || isExpired(m_log.front().message, now))) {
        Entry entry = std::move(m_log.front());
        m_log.pop_front();
        if (entry.removed) {
            --m_removedCount;
            continue;
        }
        m_positionOf.erase(entry.message.sequence);
        for (auto &[name, group] : m_groups) {
            const auto it = group.pending.find(entry.position);
            if (it != group.pending.end())
                forgetPending(group, it);
        }
        expire(std::move(entry.message));
    }
    trim();
    return next;
}

void StreamQueue::trim()
{
    if (m_groups.empty())
        return;
    quint64 safe = m_nextPosition - 1; // everything at or before `safe` is done for every group
    for (const auto &[name, group] : m_groups) {
        safe = std::min(safe, group.lastDelivered);
        if (!group.pending.empty())
            safe = std::min(safe, group.pending.begin()->first - 1);
    }
    while (!m_log.empty() && (m_log.front().position <= safe || m_log.front().removed)) {
        if (m_log.front().removed)
            --m_removedCount;
        else
            m_positionOf.erase(m_log.front().message.sequence);
        m_log.pop_front();
    }
}

void StreamQueue::fillInfo(QueueInfo &info) const
{
    info.depth = m_groups.empty() ? size() : 0;
    for (const auto &[name, group] : m_groups) {
        ConsumerGroupInfo groupInfo;
        groupInfo.name = name;
        groupInfo.pending = qint64(group.pending.size());
        groupInfo.lag = lag(group);
        groupInfo.consumers = QList<QString>(group.consumers.begin(), group.consumers.end());
        info.depth = std::max(info.depth, groupInfo.lag + qint64(group.claimable.size()));
        info.inFlight += groupInfo.pending - qint64(group.claimable.size());
        info.groups.append(groupInfo);
    }
}

void StreamQueue::save(QDataStream &out) const
{
    out << m_nextPosition << quint64(m_log.size());
    for (const Entry &entry : m_log) {
        out << entry.position << entry.removed;
        writeStoredMessage(out, entry.message);
    }
    out << quint64(m_groups.size());
    for (const auto &[name, group] : m_groups) {
        out << name << group.lastDelivered << quint64(group.pending.size());
        for (const auto &[position, pending] : group.pending)
            out << position << pending.consumer << pending.deliveryCount << pending.deadlineMs << pending.receipt;
        out << quint64(group.claimable.size());
        for (const quint64 position : group.claimable)
            out << position;
        out << quint64(group.consumers.size());
        for (const QString &consumer : group.consumers)
            out << consumer;
    }
}

void StreamQueue::load(QDataStream &in)
{
    quint64 count = 0;
    in >> m_nextPosition >> count;
    for (quint64 i = 0; i < count && in.status() == QDataStream::Ok; ++i) {
        Entry entry;
        in >> entry.position >> entry.removed;
        entry.message = readStoredMessage(in);
        if (entry.removed)
            ++m_removedCount;
        else
            m_positionOf.emplace(entry.message.sequence, entry.position);
        m_log.push_back(std::move(entry));
    }
    in >> count;
    for (quint64 g = 0; g < count && in.status() == QDataStream::Ok; ++g) {
        QString name;
        quint64 pendingCount = 0;
        in >> name;
        Group &group = m_groups[name];
        in >> group.lastDelivered >> pendingCount;
        for (quint64 i = 0; i < pendingCount && in.status() == QDataStream::Ok; ++i) {
            quint64 position = 0;
            Pending pending;
            in >> position >> pending.consumer >> pending.deliveryCount >> pending.deadlineMs >> pending.receipt;
            if (pending.deadlineMs != 0)
                group.deadlines.emplace(pending.deadlineMs, position);
            group.pending.emplace(position, std::move(pending));
        }
        quint64 n = 0;
        in >> n;
        for (quint64 i = 0; i < n && in.status() == QDataStream::Ok; ++i) {
            quint64 position = 0;
            in >> position;
            group.claimable.insert(position);
        }
        in >> n;
        for (quint64 i = 0; i < n && in.status() == QDataStream::Ok; ++i) {
            QString consumer;
            in >> consumer;
            group.consumers.insert(consumer);
        }
    }
}

} // namespace Broker
