// SPDX-License-Identifier: GPL-3.0-or-later
#include "accesspolicy.h"

namespace Broker {

AccessPolicy::AccessPolicy()
{
    m_roles[QStringLiteral("admin")] = {QStringLiteral("*")};
    m_roles[QStringLiteral("publisher")] = {QStringLiteral("list_queues"), QStringLiteral("publish:*")};
    m_roles[QStringLiteral("consumer")] = {QStringLiteral("list_queues"), QStringLiteral("consume:*"),
                                           QStringLiteral("peek:*")};
}

Result<void> AccessPolicy::defineRole(const QString &name, const QStringList &patterns)
{
    if (name == QLatin1StringView("admin"))
        return Error{ErrorCode::InvalidArgument, QStringLiteral("The admin role cannot be redefined")};
    const auto printable = [](const QString &s) {
        if (s.trimmed().isEmpty())
            return false;
        for (QChar c : s) {
            if (!c.isPrint() || c.isSpace())
                return false;
        }
        return true;
    };
    if (!printable(name))
        return Error{ErrorCode::InvalidArgument, QStringLiteral("Invalid role name '%1'").arg(name)};
    for (const QString &pattern : patterns) {
        if (!printable(pattern))
            return Error{ErrorCode::InvalidArgument,
                         QStringLiteral("Invalid permission '%1' in role '%2'").arg(pattern, name)};
    }
    m_roles[name] = patterns;
    return {};
}

QStringList AccessPolicy::roleNames() const
{
    QStringList names;
    for (const auto &[name, patterns] : m_roles)
        names.append(name);
    return names;
}

QStringList AccessPolicy::patternsOf(const QString &role) const
{
    const auto it = m_roles.find(role);
    return it == m_roles.end() ? QStringList() : it->second;
}

bool AccessPolicy::allows(const QStringList &roles, const QString &permission) const
{
    for (const QString &role : roles) {
        const auto it = m_roles.find(role);
        if (it == m_roles.end())
            continue;
        for (const QString &pattern : it->second) {
            if (globMatch(pattern, permission))
                return true;
        }
    }
    return false;
}

bool AccessPolicy::globMatch(QStringView pattern, QStringView text)
{
    // Iterative matcher with one backtrack point: linear in practice, no recursion.
    qsizetype p = 0, t = 0, starP = -1, starT = 0;
    while (t < text.size()) {
        if (p < pattern.size() && (pattern[p] == u'?' || pattern[p] == text[t])) {
            ++p;
            ++t;
        } else if (p < pattern.size() && pattern[p] == u'*') {
            starP = p++;
            starT = t;
        } else if (starP >= 0) {
            p = starP + 1;
            t = ++starT;
        } else {
            return false;
        }
    }
    while (p < pattern.size() && pattern[p] == u'*')
        ++p;
    return p == pattern.size();
}

} // namespace Broker
