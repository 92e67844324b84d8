// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

#include <optional>

// Storage choices as enums, with the spelling message_broker.yaml and the API use for them.
namespace Broker {

// When a journal's writes reach the disk (JournalWriter::Fsync).
enum class FsyncPolicy {
    Always,      // completions wait for fdatasync
    EverySecond, // completions wait for write(); a thread of its own syncs once a second
    Never,       // completions wait for write(); the kernel syncs when it likes
};
// What a journal does unless told otherwise (JournaledStore::Options, storage.memory.journal.fsync).
inline constexpr FsyncPolicy DefaultFsyncPolicy = FsyncPolicy::EverySecond;

enum class StorageBackend { Memory, Redis };

// What the store promises about an answered change: nothing (memory, Redis), or the journal's
// fsync policy. Shown by GET /queues/{name} and /metrics as none | everysec | always | no.
enum class Durability { None, JournalEverySecond, JournalAlways, JournalNoSync };

// "always" | "everysec" | "no"
QString fsyncPolicyName(FsyncPolicy policy);
std::optional<FsyncPolicy> fsyncPolicyFromName(const QString &name);
// "memory" | "redis"
QString storageBackendName(StorageBackend backend);
std::optional<StorageBackend> storageBackendFromName(const QString &name);
// "none" | "everysec" | "always" | "no"
QString durabilityName(Durability durability);
Durability journalDurability(FsyncPolicy policy);

} // namespace Broker
