// SPDX-License-Identifier: GPL-3.0-or-later
#include "queuetyperegistry.h"

#include "storage/readysets.h"

namespace Broker {

QueueTypeRegistry::QueueTypeRegistry()
{
    m_types.emplace(QStringLiteral("list"), Entry{QueueKind::Ordered, QStringLiteral("First in, first out"),
                                                  [] { return std::make_unique<FifoReadySet>(); }, true});
    m_types.emplace(QStringLiteral("priority"),
                    Entry{QueueKind::Ordered, QStringLiteral("Higher priority first, FIFO within a priority"),
                          [] { return std::make_unique<PriorityReadySet>(); }, true});
    m_types.emplace(QStringLiteral("stream"),
                    Entry{QueueKind::Stream, QStringLiteral("Append-only log read by consumer groups"), {}, true});
}

bool QueueTypeRegistry::registerQueueType(const QString &name, const QString &description, ReadySetFactory factory)
{
    if (name.isEmpty() || !factory || m_types.contains(name))
        return false;
    m_types.emplace(name, Entry{QueueKind::Ordered, description, std::move(factory), false});
    return true;
}

Result<void> QueueTypeRegistry::check(const QString &type) const
{
    if (contains(type))
        return {};
    return Error{ErrorCode::InvalidArgument,
                 QStringLiteral("Unknown queue type '%1' (known: %2)").arg(type, names().join(QStringLiteral(", ")))};
}

QStringList QueueTypeRegistry::names() const
{
    QStringList names;
    for (const auto &[name, entry] : m_types)
        names.append(name);
    return names;
}

QString QueueTypeRegistry::description(const QString &type) const
{
    const auto it = m_types.find(type);
    return it == m_types.end() ? QString() : it->second.description;
}

bool QueueTypeRegistry::contains(const QString &type) const
{
    return m_types.contains(type);
}

QueueKind QueueTypeRegistry::kindOf(const QString &type) const
{
    const auto it = m_types.find(type);
    return it == m_types.end() ? QueueKind::Ordered : it->second.kind;
}

bool QueueTypeRegistry::isBuiltIn(const QString &type) const
{
    const auto it = m_types.find(type);
    return it != m_types.end() && it->second.builtIn;
}

std::unique_ptr<ReadySet> QueueTypeRegistry::createReadySet(const QString &type) const
{
    const auto it = m_types.find(type);
    if (it == m_types.end() || !it->second.factory)
        return std::make_unique<FifoReadySet>();
    return it->second.factory();
}

} // namespace Broker
