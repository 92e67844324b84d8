// SPDX-License-Identifier: GPL-3.0-or-later
#include "router.h"

#include <QUrl>

namespace Broker::Rest {

QString Router::methodName(QHttpServerRequest::Method method)
{
    switch (method) {
    case QHttpServerRequest::Method::Get: return QStringLiteral("GET");
    case QHttpServerRequest::Method::Put: return QStringLiteral("PUT");
    case QHttpServerRequest::Method::Delete: return QStringLiteral("DELETE");
    case QHttpServerRequest::Method::Post: return QStringLiteral("POST");
    case QHttpServerRequest::Method::Head: return QStringLiteral("HEAD");
    case QHttpServerRequest::Method::Options: return QStringLiteral("OPTIONS");
    case QHttpServerRequest::Method::Patch: return QStringLiteral("PATCH");
    default: return QStringLiteral("UNKNOWN");
    }
}

void Router::add(Route route)
{
    Compiled compiled;
    compiled.segments = route.pattern.split(QLatin1Char('/'), Qt::SkipEmptyParts);
    m_compiled.push_back(std::move(compiled));
    m_routes.push_back(std::move(route));
}

bool Router::matches(const Compiled &compiled, const Segments &segments, QStringList *params)
{
    if (compiled.segments.size() != segments.size())
        return false;
    for (qsizetype i = 0; i < segments.size(); ++i) {
        const QString &expected = compiled.segments[i];
        if (!expected.startsWith(QLatin1Char('{')) && expected != segments[i])
            return false;
    }
    if (params) {
        params->clear();
        for (qsizetype i = 0; i < segments.size(); ++i) {
            if (compiled.segments[i].startsWith(QLatin1Char('{')))
                params->append(segments[i].toString());
        }
    }
    return true;
}

Router::Match Router::match(QHttpServerRequest::Method method, const QString &path) const
{
    // Segments are compared decoded; a parameter keeps whatever the client encoded in it
    // ("%2F" stays inside one segment and is then refused by name validation). Only a segment
    // with a '%' is decoded into a string of its own; the others are views of `path`.
    // (A view of a decoded copy stays valid while the list grows: the list moves QString
    // objects, not the characters they hold.)
    Segments segments;
    QStringList decoded;
    for (qsizetype start = 0; start <= path.size();) {
        qsizetype end = path.indexOf(QLatin1Char('/'), start);
        if (end < 0)
            end = path.size();
        const QStringView raw = QStringView(path).sliced(start, end - start);
        if (raw.contains(QLatin1Char('%'))) {
            decoded.append(QUrl::fromPercentEncoding(raw.toUtf8()));
            segments.append(decoded.last());
        } else if (!raw.isEmpty()) {
            segments.append(raw);
        }
        start = end + 1;
    }
    const QHttpServerRequest::Method wanted =
        method == QHttpServerRequest::Method::Head ? QHttpServerRequest::Method::Get : method;

    Match result;
    for (std::size_t i = 0; i < m_routes.size(); ++i) {
        if (m_routes[i].method == wanted && matches(m_compiled[i], segments, &result.params)) {
            result.route = &m_routes[i];
            return result;
        }
    }
    // No route for this method: which methods would the path take (for 405 and Allow)?
    for (std::size_t i = 0; i < m_routes.size(); ++i) {
        if (!matches(m_compiled[i], segments, nullptr))
            continue;
        const QString name = methodName(m_routes[i].method);
        if (!result.allowed.contains(name))
            result.allowed.append(name);
        if (m_routes[i].method == QHttpServerRequest::Method::Get)
            result.allowed.append(QStringLiteral("HEAD"));
    }
    return result;
}

} // namespace Broker::Rest
