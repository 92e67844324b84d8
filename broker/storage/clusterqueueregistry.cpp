// SPDX-License-Identifier: GPL-3.0-or-later
#include "clusterqueueregistry.h"

#include <QRandomGenerator>

namespace Broker {

using Redis::CommandResult;
using Redis::RedisReply;

namespace {

Error unexpected(const char *what)
{
    return Error{ErrorCode::Internal, QStringLiteral("unexpected reply from the cluster registry (%1)").arg(QLatin1String(what))};
}

} // namespace

ClusterQueueRegistry::ClusterQueueRegistry(ResilientScriptRunner &runner, const RedisScripts::Set &scripts,
                                           const Clock &clock, QByteArray keyPrefix)
    : m_runner(runner), m_scripts(scripts), m_clock(clock), m_key(keyPrefix + "registry"),
      m_random(QRandomGenerator::global()->generate64())
{
}

void ClusterQueueRegistry::enroll(const QString &name, std::function<void(Result<QByteArray>)> done)
{
    const QByteArray generation =
        QByteArray::number(m_clock.nowMs()) + '-' + QByteArray::number(quint64(m_random()), 16);
    m_runner.command(
        {QByteArrayLiteral("HSET"), m_key, name.toUtf8(), generation},
        [generation, done = std::move(done)](CommandResult reply) {
            if (!reply)
                return done(reply.error());
            if (reply->isError())
                return done(unexpected("HSET"));
            done(generation);
        },
        m_key, true);
}

void ClusterQueueRegistry::withdraw(const QString &name, const QByteArray &generation,
                                    std::function<void(Result<void>)> done)
{
    m_runner.run(m_scripts.withdraw, {m_key}, {name.toUtf8(), generation}, ResilientScriptRunner::Retry::Never,
                 [done = std::move(done)](CommandResult reply) {
                     if (!reply)
                         return done(reply.error());
                     if (reply->isError())
                         return done(unexpected("withdraw"));
                     done({});
                 });
}

void ClusterQueueRegistry::entries(std::function<void(Result<QList<std::pair<QString, QByteArray>>>)> done)
{
    m_runner.command(
        {QByteArrayLiteral("HGETALL"), m_key},
        [done = std::move(done)](CommandResult reply) {
            if (!reply)
                return done(reply.error());
            if (reply->type != RedisReply::Type::Array || reply->elements.size() % 2 != 0)
                return done(unexpected("HGETALL"));
            QList<std::pair<QString, QByteArray>> out;
            out.reserve(reply->elements.size() / 2);
            for (qsizetype i = 0; i < reply->elements.size(); i += 2)
                out.append({QString::fromUtf8(reply->elements[i].string), reply->elements[i + 1].string});
            done(std::move(out));
        },
        m_key);
}

bool ClusterQueueRegistry::isLeftover(const QString &name, const QByteArray &generation)
{
    const qint64 now = m_clock.monotonicMs();
    Sighting &seen = m_leftovers[name];
    if (seen.generation != generation)
        seen = Sighting{generation, now};
    return now - seen.firstMs >= LeftoverAgeMs;
}

void ClusterQueueRegistry::keepLeftovers(const QSet<QString> &registered)
{
    m_leftovers.removeIf([&registered](const auto &entry) { return !registered.contains(entry.key()); });
}

} // namespace Broker
