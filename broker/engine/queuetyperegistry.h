// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/result.h"
#include "storage/readyset.h"

#include <QString>
#include <QStringList>

#include <functional>
#include <map>
#include <memory>

namespace Broker {

// The queue types a broker knows, and the one list of them: the engine checks every queue's type
// here, and the stores ask it what a type is. Built in: "list" (FIFO), "priority" (higher first,
// FIFO within a priority), "stream" (consumer groups); the Redis store's scripts implement these
// by name (resources/redis/lib.lua), so a new built-in type is added here and there. A type
// registered at run time supplies a factory for its ReadySet and runs on the memory store only;
// names are unique and cannot be replaced.
class QueueTypeRegistry final : public QueueTypeCatalog
{
public:
    using ReadySetFactory = std::function<std::unique_ptr<ReadySet>()>;

    QueueTypeRegistry(); // registers the built-in types

    // Returns false (and changes nothing) when the name is taken or the factory is empty.
    bool registerQueueType(const QString &name, const QString &description, ReadySetFactory factory);

    QStringList names() const;
    QString description(const QString &type) const;

    bool contains(const QString &type) const override;
    // The one check of a queue type name: "Unknown queue type 'x' (known: a, b)" when not registered.
    Result<void> check(const QString &type) const;
    QueueKind kindOf(const QString &type) const override;
    bool isBuiltIn(const QString &type) const override;
    std::unique_ptr<ReadySet> createReadySet(const QString &type) const override;

private:
    struct Entry
    {
        QueueKind kind = QueueKind::Ordered;
        QString description;
        ReadySetFactory factory; // empty for streams
        bool builtIn = false;
    };
    std::map<QString, Entry> m_types;
};

} // namespace Broker
