// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "apicontract.h"
#include "exchange.h"

#include <QHttpServerRequest>
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <QStringView>
#include <QVarLengthArray>

#include <functional>
#include <vector>

namespace Broker::Rest {

// One endpoint. The same table routes requests, answers 405 with Allow, and generates the
// OpenAPI document, so the three cannot disagree.
struct Route
{
    using Handler = std::function<void(const ExchangePtr &)>;

    QHttpServerRequest::Method method;
    QString pattern;          // "/queues/{name}/purge"
    QString summary;          // one line for the OpenAPI document
    QString permission;       // what the handler checks ("publish:{name}"); empty: any authenticated user
    bool authenticated = true;
    ApiContract contract;     // parameters, body and answers, for the OpenAPI document
    Handler handler;
};

class Router
{
public:
    void add(Route route);

    struct Match
    {
        const Route *route = nullptr;
        QStringList params;
        QStringList allowed;  // methods of routes whose pattern matched (for 405), "HEAD" for GET
    };
    // HEAD is routed as GET.
    Match match(QHttpServerRequest::Method method, const QString &path) const;
    const std::vector<Route> &routes() const { return m_routes; }

    static QString methodName(QHttpServerRequest::Method method);

private:
    struct Compiled
    {
        QStringList segments; // "{x}" marks a parameter
    };
    // The path's segments, decoded: views of the path, or of a segment's decoded copy.
    using Segments = QVarLengthArray<QStringView, 8>;
    // Compares without allocating; fills `params` only on a match.
    static bool matches(const Compiled &compiled, const Segments &segments, QStringList *params);

    std::vector<Route> m_routes;
    std::vector<Compiled> m_compiled;
};

} // namespace Broker::Rest
