// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QList>
#include <QString>

namespace Broker::Rest {

// What a route promises, for the OpenAPI document: the same Route that routes a request carries
// its contract, so the document is generated from the table that serves. Schemas are named
// components (ApiSchemas); a route names them.

// A query parameter with the type and bounds its handler enforces.
struct ApiParameter
{
    QString name;
    QString description;
    QJsonObject schema;
};

// One answer of a route. Errors (>= 400) are problem documents unless `schema` says otherwise.
struct ApiResponse
{
    int status = 200;
    QString schema;      // a components/schemas name; empty for a success: no body
    QString description; // when it is answered, with gCore's error strings; empty: the reason phrase
    QByteArray mediaType = "application/json";
};

struct ApiContract
{
    QString operationId; // stable, for generated clients: createQueue, publishMessage, ...
    QString tag;         // one of ApiSchemas::tags()
    QString requestBody; // components/schemas name of the JSON body; empty: the route reads none
    bool bodyRequired = false;
    QList<ApiParameter> query;
    QList<ApiResponse> responses; // 400 (a key in the query), 401 and 429 are added for every route
    bool serverErrors = true;     // may answer 500/503/504 (the store failed, is out of reach or read-only)
};

namespace Api {

ApiParameter integer(const QString &name, qint64 min, qint64 max, qint64 fallback, const QString &description);
ApiParameter number(const QString &name, double min, double max, double fallback, const QString &description);
ApiParameter boolean(const QString &name, bool fallback, const QString &description);
ApiParameter text(const QString &name, const QString &description, const QStringList &values = {});

inline ApiResponse ok(const QString &schema, const QString &description = {})
{
    return {200, schema, description, "application/json"};
}
inline ApiResponse problem(int status, const QString &description)
{
    return {status, {}, description, "application/problem+json"};
}

} // namespace Api

} // namespace Broker::Rest
