// SPDX-License-Identifier: GPL-3.0-or-later
#include "storageoptions.h"

namespace Broker {

QString fsyncPolicyName(FsyncPolicy policy)
{
    switch (policy) {
    case FsyncPolicy::Always: return QStringLiteral("always");
    case FsyncPolicy::EverySecond: return QStringLiteral("everysec");
    case FsyncPolicy::Never: return QStringLiteral("no");
    }
    return {};
}

std::optional<FsyncPolicy> fsyncPolicyFromName(const QString &name)
{
    for (const FsyncPolicy policy : {FsyncPolicy::Always, FsyncPolicy::EverySecond, FsyncPolicy::Never}) {
        if (fsyncPolicyName(policy) == name)
            return policy;
    }
    return std::nullopt;
}

QString storageBackendName(StorageBackend backend)
{
    return backend == StorageBackend::Redis ? QStringLiteral("redis") : QStringLiteral("memory");
}

std::optional<StorageBackend> storageBackendFromName(const QString &name)
{
    for (const StorageBackend backend : {StorageBackend::Memory, StorageBackend::Redis}) {
        if (storageBackendName(backend) == name)
            return backend;
    }
    return std::nullopt;
}

QString durabilityName(Durability durability)
{
    switch (durability) {
    case Durability::None: return QStringLiteral("none");
    case Durability::JournalEverySecond: return fsyncPolicyName(FsyncPolicy::EverySecond);
    case Durability::JournalAlways: return fsyncPolicyName(FsyncPolicy::Always);
    case Durability::JournalNoSync: return fsyncPolicyName(FsyncPolicy::Never);
    }
    return {};
}

Durability journalDurability(FsyncPolicy policy)
{
    switch (policy) {
    case FsyncPolicy::Always: return Durability::JournalAlways;
    case FsyncPolicy::EverySecond: return Durability::JournalEverySecond;
    case FsyncPolicy::Never: return Durability::JournalNoSync;
    }
    return Durability::None;
}

} // namespace Broker
