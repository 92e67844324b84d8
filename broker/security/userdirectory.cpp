// SPDX-License-Identifier: GPL-3.0-or-later
#include "userdirectory.h"

#include "apikey.h"

#include "config/yamlsection.h"
#include "errors/logging.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

#include <optional>
#include <utility>

namespace Broker {

namespace {

Error invalid(const QString &message)
{
    return Error{ErrorCode::InvalidArgument, message};
}

Error notFound(const QString &id)
{
    return Error{ErrorCode::NotFound, QStringLiteral("User '%1' not found").arg(id)};
}

// The file's path stays in the detail: REST does not put the detail of a server error on the wire.
Error cannotWrite(const QString &path, const QString &reason)
{
    return Error{ErrorCode::Internal, QStringLiteral("Cannot write the users file"),
                 QStringLiteral("%1: %2").arg(path, reason)};
}

// Two users whose keys have one hash, or {} when every key is a user's own.
std::optional<std::pair<QString, QString>> sharedKey(const std::map<QString, User> &users)
{
    std::map<QByteArray, QString> owners;
    for (const auto &[id, user] : users) {
        if (user.keyHash.isEmpty())
            continue;
        const auto [it, inserted] = owners.emplace(user.keyHash, id);
        if (!inserted)
            return std::make_pair(it->second, id);
    }
    return std::nullopt;
}

} // namespace

UserDirectory::UserDirectory(const AccessPolicy &policy, const Clock &clock) : m_policy(policy), m_clock(clock) {}

const QString &UserDirectory::lastAdminMessage()
{
    static const QString message = QStringLiteral("Cannot remove the last admin");
    return message;
}

int UserDirectory::enabledAdmins(const std::map<QString, User> &users) const
{
    int admins = 0;
    for (const auto &[id, user] : users) {
        if (!user.disabled && m_policy.grantsEverything(user.roles))
            ++admins;
    }
    return admins;
}

Result<void> UserDirectory::checkInvariants(const std::map<QString, User> &changed) const
{
    if (sharedKey(changed))
        return Error{ErrorCode::Conflict, QStringLiteral("Another user has this API key")};
    // A directory that never had an admin (a file without one) is left as it is; one that has
    // one keeps one, whoever asks.
    if (enabledAdmins(m_users) > 0 && enabledAdmins(changed) == 0)
        return Error{ErrorCode::Conflict, lastAdminMessage(),
                     QStringLiteral("At least one enabled user keeps the admin role")};
    return {};
}

Result<void> UserDirectory::mayGrant(const QStringList &actorRoles, const QStringList &roles) const
{
    if (const QString missing = m_policy.firstUncovered(actorRoles, roles); !missing.isEmpty())
        return Error{ErrorCode::PermissionDenied,
                     QStringLiteral("You may grant only roles whose permissions you hold yourself ('%1' is not yours)")
                         .arg(missing)};
    return {};
}

Result<void> UserDirectory::mayManage(const QStringList &actorRoles, const QString &id) const
{
    const User *user = find(id);
    if (!user)
        return notFound(id);
    if (const QString missing = m_policy.firstUncovered(actorRoles, user->roles); !missing.isEmpty())
        return Error{ErrorCode::PermissionDenied,
                     QStringLiteral("User '%1' holds permissions you do not ('%2')").arg(id, missing)};
    return {};
}

void UserDirectory::warnAboutPlaintextKeys(const QString &path, const QStringList &plaintextUsers)
{
    if (plaintextUsers.isEmpty())
        return;
    const QFileDevice::Permissions others = QFileDevice::ReadGroup | QFileDevice::ReadOther;
    if (!(QFileInfo(path).permissions() & others))
        return;
    const QString warning =
        QStringLiteral("SECURITY: %1 can be read by other users of this machine and holds plaintext API keys "
                       "(users: %2). Restrict it (chmod 600 %1), or replace each api_key with api_key_sha256 (the "
                       "key's SHA-256 in hex, e.g. printf %3 KEY | sha256sum).")
            .arg(path, plaintextUsers.join(QStringLiteral(", ")), QStringLiteral("%s"));
    m_loadWarnings.append(warning);
    qCWarning(lcSecurity).noquote() << warning;
}

Result<void> UserDirectory::checkRoles(const QStringList &roles) const
{
    if (roles.isEmpty())
        return invalid(QStringLiteral("A user needs at least one role"));
    for (const QString &role : roles) {
        if (!m_policy.hasRole(role))
            return invalid(QStringLiteral("Unknown role '%1' (known: %2)").arg(role, m_policy.roleNames().join(QStringLiteral(", "))));
    }
    return {};
}

User UserDirectory::withNewKey(User user, QString &key) const
{
    key = ApiKey::generate();
    user.keyHash = ApiKey::hash(key);
    user.keyPrefix = ApiKey::displayPrefix(key);
    return user;
}

Result<QList<IssuedKey>> UserDirectory::load(const QString &path, bool createIfMissing, NewKeys newKeys)
{
    m_path = path;
    m_users.clear();
    ++m_generation;
    m_loadWarnings.clear();
    m_unsavedKeys = false;
    QList<IssuedKey> issued;
    QStringList plaintextUsers;

    if (!QFileInfo::exists(path)) {
        if (!createIfMissing)
            return invalid(QStringLiteral("%1: users file not found").arg(path));
        QString key;
        User admin = withNewKey(User{QStringLiteral("admin"), QStringLiteral("Administrator"), {QStringLiteral("admin")},
                                     {}, {}, false, m_clock.nowMs(), 0},
                                key);
        m_users.emplace(admin.id, admin);
        issued.append(IssuedKey{admin.id, key});
        m_unsavedKeys = true;
        if (newKeys == NewKeys::SavedAtOnce) {
            if (const Result<void> saved = saveNewKeys(); !saved)
                return saved.error();
        }
        return issued;
    }

    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return invalid(QStringLiteral("%1: cannot read: %2").arg(path, file.errorString()));
    YamlContext context(path);
    const YAML::Node root = context.parse(file.readAll());
    bool rewrite = false;
    if (!context.failed()) {
        YamlSection top(context, root, QString());
        YamlSection users = top.section("users");
        if (!users.isDefined())
            context.fail(top.mark(), QStringLiteral("expected a 'users' mapping"));
        for (const QString &id : users.keys()) {
            YamlSection entry = users.section(id.toStdString());
            if (!Broker::isValidUserId(id)) {
                context.fail(entry.mark(), QStringLiteral("invalid user id '%1' (letters, digits and _ . - @; at most 64)").arg(id));
                break;
            }
            User user;
            user.id = id;
            QString role;
            QString key;
            QString hashHex;
            qint64 created = 0;
            entry.string("role", role);
            entry.stringList("roles", user.roles);
            entry.string("name", user.name);
            entry.boolean("disabled", user.disabled);
            entry.string("api_key", key);
            entry.string("api_key_sha256", hashHex);
            entry.string("key_prefix", user.keyPrefix);
            entry.integer("created", created, 0, std::numeric_limits<qint64>::max() / 1000);
            entry.finish();
            if (context.failed())
                break;
            if (!role.isEmpty() && !user.roles.contains(role))
                user.roles.prepend(role);
            if (const Result<void> roles = checkRoles(user.roles); !roles) {
                context.fail(entry.mark(), QStringLiteral("user '%1': %2").arg(id, roles.error().message));
                break;
            }
            if (!key.isEmpty() && !hashHex.isEmpty()) {
                context.fail(entry.mark(), QStringLiteral("user '%1': give api_key or api_key_sha256, not both").arg(id));
                break;
            }
            user.createdMs = created > 0 ? created * 1000 : m_clock.nowMs();
            if (!hashHex.isEmpty()) {
                const QByteArray hash = QByteArray::fromHex(hashHex.toLatin1());
                if (hashHex.size() != 64 || hash.size() != 32) {
                    context.fail(entry.mark(), QStringLiteral("user '%1': api_key_sha256 must be 64 hex digits").arg(id));
                    break;
                }
                user.keyHash = hash;
            } else if (ApiKey::isPlaceholder(key)) {
                QString fresh;
                user = withNewKey(user, fresh);
                issued.append(IssuedKey{id, fresh});
                rewrite = true;
            } else {
                user.keyHash = ApiKey::hash(key);
                user.keyPrefix = ApiKey::displayPrefix(key);
                plaintextUsers.append(id);
            }
            // A stored prefix is shown by the same rule as a fresh one (older files kept more).
            if (!hashHex.isEmpty())
                user.keyPrefix = ApiKey::displayPrefix(user.keyPrefix);
            m_users.emplace(id, user);
        }
        users.finish();
        top.finish();
    }
    if (context.failed()) {
        m_users.clear();
        return invalid(context.error());
    }
    // Otherwise the key would log in as whichever of them sorts last. Names the users, never the key.
    if (const auto shared = sharedKey(m_users)) {
        m_users.clear();
        return invalid(QStringLiteral("%1: users '%2' and '%3' have the same API key; give each user a key of its own")
                           .arg(path, shared->first, shared->second));
    }
    for (const QString &warning : context.warnings())
        qCWarning(lcSecurity).noquote() << warning;
    if (rewrite) {
        // The file is written back with hashes only: no plaintext key is left in it.
        m_unsavedKeys = true;
        if (newKeys == NewKeys::SavedAtOnce) {
            if (const Result<void> saved = saveNewKeys(); !saved)
                return saved.error();
        }
    } else {
        warnAboutPlaintextKeys(path, plaintextUsers);
    }
    return issued;
}

Result<void> UserDirectory::save() const
{
    YAML::Emitter out;
    out << YAML::BeginMap << YAML::Key << "users" << YAML::Value << YAML::BeginMap;
    for (const auto &[id, user] : m_users) {
        out << YAML::Key << id.toStdString() << YAML::Value << YAML::BeginMap;
        if (!user.name.isEmpty())
            out << YAML::Key << "name" << YAML::Value << user.name.toStdString();
        out << YAML::Key << "roles" << YAML::Value << YAML::Flow << YAML::BeginSeq;
        for (const QString &role : user.roles)
            out << role.toStdString();
        out << YAML::EndSeq;
        out << YAML::Key << "api_key_sha256" << YAML::Value << user.keyHash.toHex().toStdString();
        out << YAML::Key << "key_prefix" << YAML::Value << user.keyPrefix.toStdString();
        out << YAML::Key << "created" << YAML::Value << user.createdMs / 1000;
        if (user.disabled)
            out << YAML::Key << "disabled" << YAML::Value << true;
        out << YAML::EndMap;
    }
    out << YAML::EndMap << YAML::EndMap;

    QSaveFile file(m_path);
    if (!QDir().mkpath(QFileInfo(m_path).absolutePath()) || !file.open(QIODevice::WriteOnly))
        return cannotWrite(m_path, file.errorString());
    // Restrict before any content is written: QSaveFile writes to a temporary file first.
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    const QByteArray header = "# BrokerDesk users. API keys are stored as SHA-256 hashes only.\n"
                              "# Add a user with a plaintext api_key (or an empty one for a generated key);\n"
                              "# the broker replaces it with its hash when it next writes this file.\n";
    file.write(header);
    file.write(out.c_str());
    file.write("\n");
    if (!file.commit())
        return cannotWrite(m_path, file.errorString());
    return {};
}

Result<void> UserDirectory::saveNewKeys()
{
    if (!m_unsavedKeys)
        return {};
    if (const Result<void> saved = save(); !saved)
        return saved;
    m_unsavedKeys = false;
    return {};
}

const User *UserDirectory::authenticate(const QString &key)
{
    if (key.isEmpty())
        return nullptr;
    const QByteArray hash = ApiKey::hash(key);
    User *match = nullptr;
    for (auto &[id, user] : m_users) {
        if (ApiKey::constantTimeEquals(user.keyHash, hash))
            match = &user;
    }
    if (!match || match->disabled)
        return nullptr;
    match->lastUsedMs = m_clock.nowMs();
    return match;
}

const User *UserDirectory::reauthenticate(const QString &id, quint64 generation)
{
    if (generation != m_generation)
        return nullptr;
    const auto it = m_users.find(id);
    if (it == m_users.end() || it->second.disabled)
        return nullptr;
    it->second.lastUsedMs = m_clock.nowMs();
    return &it->second;
}

QList<User> UserDirectory::users() const
{
    QList<User> out;
    for (const auto &[id, user] : m_users)
        out.append(user);
    return out;
}

const User *UserDirectory::find(const QString &id) const
{
    const auto it = m_users.find(id);
    return it == m_users.end() ? nullptr : &it->second;
}

Result<void> UserDirectory::commit(std::map<QString, User> changed)
{
    if (const Result<void> allowed = checkInvariants(changed); !allowed)
        return allowed;
    std::swap(m_users, changed);
    ++m_generation;
    if (const Result<void> saved = save(); !saved) {
        std::swap(m_users, changed); // back to what was
        return saved;
    }
    m_unsavedKeys = false; // the file now holds every hash
    return {};
}

Result<IssuedKey> UserDirectory::addUser(const QString &id, const QString &name, const QStringList &roles)
{
    if (!Broker::isValidUserId(id))
        return invalid(QStringLiteral("Invalid user id (letters, digits and _ . - @; at most 64)"));
    if (m_users.contains(id))
        return Error{ErrorCode::Conflict, QStringLiteral("User already exists")};
    if (const Result<void> check = checkRoles(roles); !check)
        return check.error();
    QString key;
    std::map<QString, User> changed = m_users;
    changed.emplace(id, withNewKey(User{id, name, roles, {}, {}, false, m_clock.nowMs(), 0}, key));
    if (const Result<void> saved = commit(std::move(changed)); !saved)
        return saved.error();
    return IssuedKey{id, key};
}

Result<void> UserDirectory::removeUser(const QString &id)
{
    if (!m_users.contains(id))
        return notFound(id);
    std::map<QString, User> changed = m_users;
    changed.erase(id);
    return commit(std::move(changed));
}

Result<IssuedKey> UserDirectory::rotateKey(const QString &id)
{
    const auto it = m_users.find(id);
    if (it == m_users.end())
        return notFound(id);
    QString key;
    std::map<QString, User> changed = m_users;
    changed[id] = withNewKey(it->second, key);
    if (const Result<void> saved = commit(std::move(changed)); !saved)
        return saved.error();
    return IssuedKey{id, key};
}

Result<void> UserDirectory::setRoles(const QString &id, const QStringList &roles)
{
    return changeUser(id, roles, std::nullopt);
}

Result<void> UserDirectory::setDisabled(const QString &id, bool disabled)
{
    return changeUser(id, std::nullopt, disabled);
}

Result<void> UserDirectory::changeUser(const QString &id, const std::optional<QStringList> &roles,
                                       std::optional<bool> disabled)
{
    if (!m_users.contains(id))
        return notFound(id);
    if (roles) {
        if (const Result<void> check = checkRoles(*roles); !check)
            return check;
    }
    std::map<QString, User> changed = m_users;
    if (roles)
        changed[id].roles = *roles;
    if (disabled)
        changed[id].disabled = *disabled;
    return commit(std::move(changed));
}

} // namespace Broker
