// SPDX-License-Identifier: GPL-3.0-or-later
#include "accesspolicy.h"

#include <algorithm>
#include <vector>

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

bool AccessPolicy::covers(const QStringList &holder, const QStringList &granted) const
{
    return firstUncovered(holder, granted).isEmpty();
}

QString AccessPolicy::firstUncovered(const QStringList &holder, const QStringList &granted) const
{
    QStringList held;
    for (const QString &role : holder)
        held += patternsOf(role);
    for (const QString &role : granted) {
        for (const QString &pattern : patternsOf(role)) {
            const bool covered = std::any_of(held.cbegin(), held.cend(),
                                             [&](const QString &outer) { return globCovers(outer, pattern); });
            if (!covered)
                return pattern;
        }
    }
    return {};
}

bool AccessPolicy::globCovers(QStringView outer, QStringView inner)
{
    // covered[i][j]: outer[i..] covers inner[j..]. An outer '*' takes any run of inner tokens
    // (wildcards included); an outer '?' takes one inner token that matches exactly one character
    // (a literal or '?', never '*'); a literal takes only the same literal. Patterns are short.
    const qsizetype n = outer.size(), m = inner.size();
    std::vector<std::vector<char>> covered(size_t(n + 1), std::vector<char>(size_t(m + 1), 0));
    covered[size_t(n)][size_t(m)] = 1;
    for (qsizetype i = n - 1; i >= 0; --i) {
        for (qsizetype j = m; j >= 0; --j) {
            const QChar o = outer[i];
            bool result = false;
            if (o == u'*') {
                result = covered[size_t(i + 1)][size_t(j)] || (j < m && covered[size_t(i)][size_t(j + 1)]);
            } else if (j < m) {
                const QChar c = inner[j];
                const bool one = o == u'?' ? c != u'*' : (c == o && c != u'*' && c != u'?');
                result = one && covered[size_t(i + 1)][size_t(j + 1)];
            }
            covered[size_t(i)][size_t(j)] = result;
        }
    }
    return covered[0][0];
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
