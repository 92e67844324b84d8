// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "accesspolicy.h"

#include "core/clock.h"
#include "core/result.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

#include <map>

namespace Broker {

struct User
{
    QString id;
    QString name;
    QStringList roles;
    QByteArray keyHash;  // SHA-256 of the API key; the key itself is never kept
    QString keyPrefix;   // the key's first characters, to tell keys apart in lists
    bool disabled = false;
    qint64 createdMs = 0;
    qint64 lastUsedMs = 0; // in memory only; 0 = not used since start
};

// A key the directory just made. Shown to a person once; only its hash is stored.
struct IssuedKey
{
    QString userId;
    QString apiKey;
};

// The users of the broker and their API keys, kept in users.yaml. Reads gCore's format
// (users: <id>: {role, api_key}) plus roles: [...], api_key_sha256, key_prefix, name, disabled,
// created. Placeholder keys (empty or containing "-example") are replaced by fresh keys on load;
// whenever the directory writes the file it writes hashes only, atomically, with mode 0600.
// Not thread-safe: lives in the engine's thread.
class UserDirectory
{
public:
    UserDirectory(const AccessPolicy &policy, const Clock &clock);

    // Reads `path`. Returns the keys it generated for placeholders (the caller shows them once);
    // when there were any, the file has been written back with their hashes. A missing file is an
    // error unless `createIfMissing`, in which case a directory with one admin user is created.
    Result<QList<IssuedKey>> load(const QString &path, bool createIfMissing = false);
    Result<void> save() const;
    const QString &path() const { return m_path; }

    // The enabled user holding `key`, or null. Every user's hash is compared, in constant time
    // each, so timing tells nothing about which user (if any) matched.
    const User *authenticate(const QString &key);

    QList<User> users() const;
    const User *find(const QString &id) const;

    // Changes below are written to the file at once; when writing fails nothing changes.
    Result<IssuedKey> addUser(const QString &id, const QString &name, const QStringList &roles);
    Result<void> removeUser(const QString &id);
    Result<IssuedKey> rotateKey(const QString &id);
    Result<void> setRoles(const QString &id, const QStringList &roles);
    Result<void> setDisabled(const QString &id, bool disabled);

    static bool isValidUserId(const QString &id);

private:
    Result<void> checkRoles(const QStringList &roles) const;
    Result<void> commit(std::map<QString, User> changed);
    User withNewKey(User user, QString &key) const;

    const AccessPolicy &m_policy;
    const Clock &m_clock;
    QString m_path;
    std::map<QString, User> m_users;
};

} // namespace Broker
