// SPDX-License-Identifier: GPL-3.0-or-later
#include "clustertransfers.h"

#include "rediseventrelay.h"

#include "errors/logging.h"

namespace Broker {

using Redis::CommandResult;
using Redis::RedisReply;

namespace {

constexpr int BatchSize = 100; // outbox entries read per round trip

} // namespace

ClusterTransfers::ClusterTransfers(ResilientScriptRunner &runner, const RedisScripts::Set &scripts,
                                   ClusterQueueRegistry &registry, RedisEventRelay &events, QByteArray keyPrefix,
                                   RunScript runScript)
    : m_runner(runner), m_scripts(scripts), m_registry(registry), m_events(events), m_prefix(std::move(keyPrefix)),
      m_run(std::move(runScript))
{
}

void ClusterTransfers::deliver(const QString &queue, RoundDone then)
{
    // A round under way may have read the outbox before the caller's transfers got there: the
    // caller waits for the round that follows it.
    if (m_running.contains(queue)) {
        QList<RoundDone> &next = m_next[queue]; // the entry itself means "another round follows"
        if (then)
            next.append(std::move(then));
        return;
    }
    QList<RoundDone> &callers = m_running[queue];
    if (then)
        callers.append(std::move(then));
    fetch(queue);
}

void ClusterTransfers::fetch(const QString &queue)
{
    const QByteArray key = outbox(queue);
    m_runner.command(
        {QByteArrayLiteral("LRANGE"), key, QByteArrayLiteral("0"), QByteArray::number(BatchSize - 1)},
        [this, queue](CommandResult reply) {
            if (!reply)
                return finish(queue, false, reply.error().message);
            QList<Entry> entries;
            for (const RedisReply &item : reply->elements) {
                // kind \n target \n transfer \n message \n original
                const QList<QByteArray> parts = item.string.split('\n');
                if (parts.size() != 5) {
                    qCWarning(lcStorage) << "Dropping a malformed transfer entry from the outbox of" << queue;
                    m_runner.command({QByteArrayLiteral("LREM"), outbox(queue), QByteArrayLiteral("1"), item.string},
                                     [](CommandResult) {}, outbox(queue));
                    continue;
                }
                entries.append(Entry{item.string, parts[0], parts[1], parts[2], parts[3]});
            }
            if (entries.isEmpty())
                return finish(queue, true);
            handOver(queue, std::move(entries), 0);
        },
        key);
}

void ClusterTransfers::handOver(const QString &queue, QList<Entry> entries, qsizetype next)
{
    if (next < entries.size())
        return receive(queue, std::move(entries), next, {});
    if (entries.size() == BatchSize && !m_next.contains(queue))
        m_next.insert(queue, {}); // a full batch: there may be more, in a round of its own
    finish(queue, false);
}

void ClusterTransfers::receive(const QString &queue, QList<Entry> entries, qsizetype next, const QByteArray &generation)
{
    const Entry &entry = entries[next];
    const QString target = QString::fromUtf8(entry.target);
    m_run(m_scripts.receive, target, {entry.kind, entry.transfer, entry.message, generation},
          [this, queue, target, entries, next, generation](Result<RedisReply> reply) mutable {
              if (reply) {
                  m_events.available(target);
                  return remove(queue, std::move(entries), next);
              }
              if (reply.error().detail == RedisScripts::NotEnrolled && generation.isEmpty()) {
                  // A dead-letter queue to be made: the registry knows it first.
                  return m_registry.enroll(target, [this, queue, entries = std::move(entries), next](
                                                       Result<QByteArray> enrolled) mutable {
                      if (!enrolled)
                          return finish(queue, false, enrolled.error().message);
                      receive(queue, std::move(entries), next, *enrolled);
                  });
              }
              if (reply.error().code == ErrorCode::NotFound) // TARGET_NOT_FOUND
                  return giveBack(queue, std::move(entries), next);
              finish(queue, false, reply.error().message);
          });
}

void ClusterTransfers::remove(const QString &queue, QList<Entry> entries, qsizetype next)
{
    const QByteArray key = outbox(queue);
    m_runner.command(
        {QByteArrayLiteral("LREM"), key, QByteArrayLiteral("1"), entries[next].raw},
        [this, queue, entries, next](CommandResult reply) mutable {
            if (!reply)
                return finish(queue, false, reply.error().message);
            if (reply->isError()) // a node refusing writes (MISCONF, OOM, NOREPLICAS): try later
                return finish(queue, false, QString::fromUtf8(reply->string));
            ++m_handedOver;
            handOver(queue, std::move(entries), next + 1);
        },
        key, true);
}

void ClusterTransfers::giveBack(const QString &queue, QList<Entry> entries, qsizetype next)
{
    m_run(m_scripts.giveback, queue, {entries[next].raw}, [this, queue, entries, next](Result<RedisReply> reply) mutable {
        if (!reply)
            return finish(queue, false, reply.error().message);
        m_givenBack += RedisScripts::integerOf(*reply); // 0: it had left the outbox, or its queue is gone
        m_events.available(queue);
        handOver(queue, std::move(entries), next + 1);
    });
}

void ClusterTransfers::finish(const QString &queue, bool emptied, const QString &failure)
{
    if (!failure.isEmpty())
        qCInfo(lcStorage) << "Transfers out of" << queue << "wait for a later round:" << failure;
    const QList<RoundDone> callers = m_running.take(queue);
    if (const auto next = m_next.find(queue); next != m_next.end()) {
        QList<RoundDone> following = std::move(*next);
        m_next.erase(next);
        if (failure.isEmpty()) {
            m_running.insert(queue, std::move(following));
            fetch(queue);
        } else {
            // Redis failed: the next round would fail as well. Its callers are answered now;
            // the reaper comes back to what is left.
            for (const RoundDone &then : following)
                then(false);
        }
    }
    for (const RoundDone &then : callers)
        then(emptied);
}

} // namespace Broker
