// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/result.h"

#include <QString>
#include <QStringList>

#include <map>

namespace Broker {

// Roles and what they may do. A permission is a string such as "publish:orders"; a role grants
// glob patterns over them ("publish:*", "consume:orders.*", "*"). Built in: admin ("*", a superset
// of every role), publisher (list_queues, publish:*), consumer (list_queues, consume:*, peek:*).
// Custom roles come from message_broker.yaml (security.roles.<name>.permissions).
class AccessPolicy
{
public:
    AccessPolicy();

    // Adds or replaces a role. "admin" cannot be redefined; names and patterns must be
    // non-empty and printable.
    Result<void> defineRole(const QString &name, const QStringList &patterns);
    bool hasRole(const QString &name) const { return m_roles.contains(name); }
    QStringList roleNames() const;
    QStringList patternsOf(const QString &role) const;

    // True when any of `roles` grants `permission`. Unknown roles grant nothing.
    bool allows(const QStringList &roles, const QString &permission) const;

    // True when every permission `granted` stands for is one `holder` has as well: a user may
    // hand out (create users with, change users to) only roles it could act as itself. Judged on
    // the patterns, so "publish:*" covers "publish:orders.*" but not "*".
    bool covers(const QStringList &holder, const QStringList &granted) const;
    // The first pattern of `granted` that `holder` does not cover; empty when it covers them all.
    QString firstUncovered(const QStringList &holder, const QStringList &granted) const;
    // True when `roles` grant everything ("*"): what an admin is.
    bool grantsEverything(const QStringList &roles) const { return covers(roles, {QStringLiteral("admin")}); }

    // Shell-style glob: '*' matches any run of characters (also none), '?' exactly one.
    static bool globMatch(QStringView pattern, QStringView text);
    // True when every text `inner` matches is matched by `outer` too (glob inclusion; the
    // wildcards of `inner` stand for what they match, not for themselves).
    static bool globCovers(QStringView outer, QStringView inner);

    // The permission strings of the API (see API.md).
    static QString publish(const QString &queue) { return QStringLiteral("publish:") + queue; }
    static QString consume(const QString &queue) { return QStringLiteral("consume:") + queue; }
    static QString peek(const QString &queue) { return QStringLiteral("peek:") + queue; }
    static QString purge(const QString &queue) { return QStringLiteral("purge_queue:") + queue; }

private:
    std::map<QString, QStringList> m_roles;
};

} // namespace Broker
