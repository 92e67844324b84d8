// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "accesspolicy.h"

#include "core/clock.h"
#include "core/user.h"
#include "core/result.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

#include <map>
#include <optional>

namespace Broker {

// The users of the broker and their API keys, kept in users.yaml. Reads gCore's format
// (users: <id>: {role, api_key}) plus roles: [...], api_key_sha256, key_prefix, name, disabled,
// created. Placeholder keys (empty or containing "-example") are replaced by fresh keys on load;
// whenever the directory writes the file it writes hashes only, atomically, with mode 0600.
//
// Rules every caller gets (REST, the desktop, definitions import):
// - every user's key is its own: a file where two users share a key is refused, and no change
//   makes two users share one;
// - the last enabled user with full power ("*", the admin role) cannot be removed, disabled or
//   given lesser roles (Conflict "Cannot remove the last admin");
// - what a user holding manage_users may do to others is answered by mayGrant/mayManage (the
//   directory's own change methods act for the local operator, who has full power).
// Not thread-safe: lives in the engine's thread.
class UserDirectory
{
public:
    UserDirectory(const AccessPolicy &policy, const Clock &clock);

    // When the hashes of keys made by load() reach the file. Later: only on saveNewKeys() (or the
    // next change), so that a caller whose start fails after the load never leaves a hash behind
    // whose key nobody saw; the next load makes fresh keys instead.
    enum class NewKeys { SavedAtOnce, SavedLater };

    // Reads `path`. Returns the keys it generated for placeholders (the caller shows them once);
    // when there were any, the file is written back with their hashes (at once, or by
    // saveNewKeys()). A missing file is an error unless `createIfMissing`, in which case a
    // directory with one admin user is created.
    Result<QList<IssuedKey>> load(const QString &path, bool createIfMissing = false, NewKeys newKeys = NewKeys::SavedAtOnce);
    Result<void> save() const;
    // Writes the file if load() made keys that are not in it yet; a no-op otherwise.
    Result<void> saveNewKeys();
    bool hasUnsavedKeys() const { return m_unsavedKeys; }
    const QString &path() const { return m_path; }
    // What the last load found worth an operator's attention (also logged): plaintext keys in a
    // file others may read.
    const QStringList &loadWarnings() const { return m_loadWarnings; }

    // The enabled user holding `key`, or null. Every user's hash is compared, in constant time
    // each, so timing tells nothing about which user (if any) matched.
    const User *authenticate(const QString &key);
    // Changes whenever users, keys, roles or the disabled flags may have changed (every load and
    // change), so that whoever remembers "this key is that user" knows when to forget it.
    quint64 generation() const { return m_generation; }
    // The enabled user `id` again, for a key that authenticated as it while generation() was
    // `generation`; null when the directory changed since. Counts as a use, as authenticate() does.
    const User *reauthenticate(const QString &id, quint64 generation);

    QList<User> users() const;
    const User *find(const QString &id) const;

    // Changes below are written to the file at once; when writing fails nothing changes.
    Result<IssuedKey> addUser(const QString &id, const QString &name, const QStringList &roles);
    Result<void> removeUser(const QString &id);
    Result<IssuedKey> rotateKey(const QString &id);
    Result<void> setRoles(const QString &id, const QStringList &roles);
    Result<void> setDisabled(const QString &id, bool disabled);
    // Both at once, all or nothing; a missing optional leaves that part as it is.
    Result<void> changeUser(const QString &id, const std::optional<QStringList> &roles, std::optional<bool> disabled);

    // PermissionDenied unless a user with `actorRoles` may give out `roles` (create a user with
    // them, change a user to them): it must hold every permission they grant.
    Result<void> mayGrant(const QStringList &actorRoles, const QStringList &roles) const;
    // PermissionDenied unless a user with `actorRoles` may act on user `id` (change, rotate,
    // disable, delete): it must hold every permission that user holds. NotFound for no such user.
    Result<void> mayManage(const QStringList &actorRoles, const QString &id) const;

    static const QString &lastAdminMessage();

private:
    Result<void> checkRoles(const QStringList &roles) const;
    // Refuses a set of users that breaks a rule of the directory (shared keys, no admin left).
    Result<void> checkInvariants(const std::map<QString, User> &changed) const;
    Result<void> commit(std::map<QString, User> changed);
    User withNewKey(User user, QString &key) const;
    int enabledAdmins(const std::map<QString, User> &users) const;
    void warnAboutPlaintextKeys(const QString &path, const QStringList &plaintextUsers);

    const AccessPolicy &m_policy;
    const Clock &m_clock;
    QString m_path;
    std::map<QString, User> m_users;
    QStringList m_loadWarnings;
    bool m_unsavedKeys = false;
    quint64 m_generation = 1;
};

} // namespace Broker
