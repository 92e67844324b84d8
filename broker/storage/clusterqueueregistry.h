// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "redisscripts.h"
#include "resilientscriptrunner.h"

#include "core/clock.h"
#include "core/result.h"

#include <QHash>
#include <QSet>

#include <functional>
#include <random>

namespace Broker {

// The queue registry on a Redis Cluster. On one server the scripts keep the registry set in the
// same atomic step as the queue's own keys; on a cluster it sits in a slot of its own
// ("<prefix>registry", a HASH name -> generation) that a queue's script may not touch, so a
// create and a delete become two steps each, ordered so that a crash or a failover between them
// never hides a queue that exists:
//   create: enroll (the entry gets a new generation), then create.lua stores it in the meta hash;
//   delete: delete.lua answers the generation it deleted, then withdraw removes the entry only
//           while it still holds that generation (a queue made again meanwhile stays listed).
// A crash between the steps leaves at worst an entry without a queue: listing skips it (the
// queue's info answers not found), and listing and the reaper sweep it once this broker has found
// it without its queue, with the same generation, for LeftoverAgeMs of its own monotonic clock:
// long enough that no create can still be between its two steps. Not by the time in the
// generation: a broker whose clock is ahead of the enrolling broker's (or whose clock stepped)
// would sweep the entry of a create still between its steps, and the queue made by the second
// step would be listed nowhere (until someone tried to create it again: enrolling lists it).
// Generations are "<ms>-<64 random bits>": unique per creation.
class ClusterQueueRegistry
{
public:
    static constexpr qint64 LeftoverAgeMs = 60'000;

    // Nothing is owned; runner, scripts and clock must outlive the registry.
    ClusterQueueRegistry(ResilientScriptRunner &runner, const RedisScripts::Set &scripts, const Clock &clock,
                         QByteArray keyPrefix);

    QByteArray key() const { return m_key; }
    // Step 1 of a create: gives `name` a new generation in the registry.
    void enroll(const QString &name, std::function<void(Result<QByteArray>)> done);
    // The last step of a delete: forgets `name` if its entry still holds `generation`.
    void withdraw(const QString &name, const QByteArray &generation, std::function<void(Result<void>)> done);
    // Every entry, name -> generation.
    void entries(std::function<void(Result<QList<std::pair<QString, QByteArray>>>)> done);
    // Whether an entry found without its queue is a leftover of a crash, safe to sweep: it was
    // found so, with this generation, LeftoverAgeMs ago or more. Remembers when it was first found.
    bool isLeftover(const QString &name, const QByteArray &generation);
    // After a pass over the registry: forgets what it remembers of entries no longer in it. (An
    // entry whose queue came keeps its sighting: it is asked about only when its queue is missing
    // again, and a create in between would have given it a new generation.)
    void keepLeftovers(const QSet<QString> &registered);

private:
    ResilientScriptRunner &m_runner;
    const RedisScripts::Set &m_scripts;
    const Clock &m_clock;
    const QByteArray m_key;
    std::mt19937_64 m_random;
    struct Sighting
    {
        QByteArray generation;
        qint64 firstMs = 0;
    };
    QHash<QString, Sighting> m_leftovers;
};

} // namespace Broker
