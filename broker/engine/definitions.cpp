// SPDX-License-Identifier: GPL-3.0-or-later
#include "definitions.h"

#include "messagebroker.h"

#include "security/accesspolicy.h"
#include "security/userdirectory.h"

#include <QMap>
#include <QSet>

#include <algorithm>
#include <memory>

namespace Broker {

namespace {

// The options that differ, in the order of the requested ones.
QList<DefinitionsImport::Difference> differences(const QueueConfig &existing, const QueueConfig &requested)
{
    const QJsonObject have = existing.toJson();
    const QJsonObject want = requested.toJson();
    QList<DefinitionsImport::Difference> diff;
    for (auto it = want.begin(); it != want.end(); ++it) {
        if (have.value(it.key()) != *it)
            diff.append({it.key(), have.value(it.key()), *it});
    }
    return diff;
}

// Queues named as another's dead-letter queue come first, so that they are made with the options
// the document gives them rather than with the defaults the engine gives an implied one.
QList<DefinitionsDocument::Queue> creationOrder(QList<DefinitionsDocument::Queue> queues)
{
    QSet<QString> targets;
    for (const auto &queue : queues)
        targets.insert(queue.config.deadLetterQueue);
    std::stable_partition(queues.begin(), queues.end(),
                          [&](const auto &queue) { return targets.contains(queue.name); });
    return queues;
}

// An import in progress: the summary so far and the queues still to make (each create
// completes asynchronously, so the steps share this).
struct QueueImport
{
    QList<DefinitionsDocument::Queue> toCreate;
    qsizetype next = 0; // the index in toCreate of the next queue to make
    DefinitionsImport summary;
    Completion<DefinitionsImport> done;
    bool stepping = false; // a step runs (a completion that comes back inside it only asks again)
    bool again = false;
};

} // namespace

Definitions::Definitions(MessageBroker &broker, UserDirectory &users, const AccessPolicy &policy)
    : m_broker(broker), m_users(users), m_policy(policy)
{
}

void Definitions::exportDocument(Completion<DefinitionsDocument> done) const
{
    m_broker.listQueues([this, done = std::move(done)](Result<QList<QueueInfo>> queues) {
        if (!queues) {
            done(queues.error());
            return;
        }
        DefinitionsDocument document;
        for (const QueueInfo &queue : *queues)
            document.queues.append({queue.name, queue.config});
        // admin is built in and the same everywhere; every other role (built-in ones may be
        // redefined in the config) is listed with what it grants here.
        for (const QString &role : m_policy.roleNames()) {
            if (role != u"admin")
                document.roles.append({role, m_policy.patternsOf(role)});
        }
        for (const User &user : m_users.users())
            document.users.append({user.id, user.name, user.roles, user.disabled});
        done(std::move(document));
    });
}

Result<DefinitionsDocument> Definitions::read(const QJsonObject &json) const
{
    Result<DefinitionsDocument> document = DefinitionsDocument::parse(json, m_broker.options().queueDefaults);
    if (!document)
        return document;
    for (const DefinitionsDocument::Queue &queue : document->queues) {
        if (const Result<void> type = m_broker.checkQueueType(queue.config.type); !type) {
            return Error{ErrorCode::InvalidArgument, QStringLiteral("Invalid definitions"),
                         QStringLiteral("queue '%1': %2").arg(queue.name, type.error().message)};
        }
    }
    return document;
}

Result<void> Definitions::mayAddUsers(const QStringList &actorRoles, const DefinitionsDocument &document) const
{
    for (const DefinitionsDocument::UserEntry &user : document.users) {
        if (m_users.find(user.id))
            continue; // existing users are never changed
        const bool rolesKnown = std::all_of(user.roles.begin(), user.roles.end(),
                                            [&](const QString &role) { return m_policy.hasRole(role); });
        if (!rolesKnown)
            continue; // not added: reported as a conflict
        if (const Result<void> granted = m_users.mayGrant(actorRoles, user.roles); !granted)
            return granted;
    }
    return {};
}

void Definitions::import(const DefinitionsDocument &document, Completion<DefinitionsImport> done)
{
    m_broker.listQueues([this, document, done = std::move(done)](Result<QList<QueueInfo>> existing) mutable {
        if (!existing) {
            done(existing.error());
            return;
        }
        QMap<QString, QueueConfig> have;
        for (const QueueInfo &info : *existing)
            have.insert(info.name, info.config);
        auto queues = std::make_shared<QueueImport>();
        queues->done = std::move(done);
        for (const DefinitionsDocument::Queue &queue : creationOrder(document.queues)) {
            const auto found = have.constFind(queue.name);
            if (found == have.cend())
                queues->toCreate.append(queue);
            else if (*found == queue.config)
                queues->summary.queuesUnchanged.append(queue.name);
            else
                queues->summary.queueConflicts.append({queue.name,
                                                       QStringLiteral("exists with other options; not changed"),
                                                       differences(*found, queue.config)});
        }
        // Roles and users do not wait on storage; queues are made one after another, and the
        // summary goes out when the last one completed.
        importRoles(document, queues->summary);
        importUsers(document, queues->summary);
        // A trampoline: a store that completes at once (memory) comes back here before
        // createQueue() returns, and the loop goes on rather than recursing, so that a document
        // of 60,000 queues never deepens the stack; one that completes later (Redis) calls in again.
        auto step = std::make_shared<std::function<void()>>();
        *step = [this, queues, weakStep = std::weak_ptr<std::function<void()>>(step)] {
            if (queues->stepping) {
                queues->again = true;
                return;
            }
            queues->stepping = true;
            do {
                queues->again = false;
                if (queues->next == queues->toCreate.size()) {
                    queues->stepping = false;
                    queues->done(std::move(queues->summary));
                    return;
                }
                const DefinitionsDocument::Queue &queue = queues->toCreate.at(queues->next++);
                m_broker.createQueue(queue.name, queue.config,
                                     [queues, name = queue.name, step = weakStep.lock()](Result<QueueInfo> created) {
                                         if (created)
                                             queues->summary.queuesCreated.append(name);
                                         else
                                             queues->summary.queuesFailed.append({name, created.error().message});
                                         (*step)();
                                     });
            } while (queues->again);
            queues->stepping = false;
        };
        (*step)();
    });
}

void Definitions::importRoles(const DefinitionsDocument &document, DefinitionsImport &summary) const
{
    for (const DefinitionsDocument::Role &role : document.roles) {
        QStringList have = m_policy.patternsOf(role.name);
        QStringList want = role.permissions;
        have.sort();
        want.sort();
        if (m_policy.hasRole(role.name) && have == want) {
            summary.rolesPresent.append(role.name);
            continue;
        }
        const QString reason = m_policy.hasRole(role.name) ? QStringLiteral("defined here with other permissions")
                                                           : QStringLiteral("not defined here");
        summary.rolesNotImported.append(
            {role.name,
             reason
                 + QStringLiteral("; roles come from message_broker.yaml "
                                  "(security.roles.<name>.permissions) and take effect on restart")});
    }
}

void Definitions::importUsers(const DefinitionsDocument &document, DefinitionsImport &summary)
{
    for (const DefinitionsDocument::UserEntry &user : document.users) {
        if (const User *existing = m_users.find(user.id)) {
            if (existing->roles == user.roles && existing->disabled == user.disabled)
                summary.usersUnchanged.append(user.id);
            else
                summary.userConflicts.append({user.id,
                                              QStringLiteral("exists with other roles or state; not changed")});
            continue;
        }
        const auto unknown = std::find_if(user.roles.begin(), user.roles.end(),
                                          [&](const QString &role) { return !m_policy.hasRole(role); });
        if (unknown != user.roles.end()) {
            summary.userConflicts.append({user.id,
                                          QStringLiteral("role '%1' is not defined here; not added").arg(*unknown)});
            continue;
        }
        const Result<IssuedKey> issued = m_users.addUser(user.id, user.name, user.roles);
        if (!issued) {
            summary.userConflicts.append({user.id, issued.error().message});
            continue;
        }
        if (user.disabled) {
            if (const Result<void> disabled = m_users.changeUser(user.id, std::nullopt, true); !disabled)
                summary.userConflicts.append({user.id,
                                              QStringLiteral("added, but not disabled: ") + disabled.error().message});
        }
        summary.usersCreated.append({issued->userId, issued->apiKey, user.disabled});
    }
}

} // namespace Broker
