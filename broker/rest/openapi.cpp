// SPDX-License-Identifier: GPL-3.0-or-later
#include "openapi.h"

#include "definitionscontroller.h"
#include "processorreport.h"
#include "rawresponse.h"

#include <QJsonArray>
#include <QRegularExpression>

namespace Broker::Rest {

namespace {

QJsonObject response(int status)
{
    QJsonObject json;
    json.insert(QStringLiteral("description"), QString::fromLatin1(reasonPhrase(status)));
    if (status >= 400) {
        json.insert(QStringLiteral("content"),
                    QJsonObject{{QStringLiteral("application/problem+json"),
                                 QJsonObject{{QStringLiteral("schema"),
                                              QJsonObject{{QStringLiteral("$ref"),
                                                           QStringLiteral("#/components/schemas/Problem")}}}}}});
    } else if (status == 200) {
        json.insert(QStringLiteral("content"),
                    QJsonObject{{QStringLiteral("application/json"),
                                 QJsonObject{{QStringLiteral("schema"), QJsonObject{{QStringLiteral("type"), QStringLiteral("object")}}}}}});
    }
    return json;
}

QJsonObject problemSchema()
{
    QJsonObject properties;
    for (const char *name : {"error", "title", "detail", "request_id"})
        properties.insert(QString::fromLatin1(name), QJsonObject{{QStringLiteral("type"), QStringLiteral("string")}});
    properties.insert(QStringLiteral("status"), QJsonObject{{QStringLiteral("type"), QStringLiteral("integer")}});
    return QJsonObject{{QStringLiteral("type"), QStringLiteral("object")},
                       {QStringLiteral("required"), QJsonArray{QStringLiteral("error"), QStringLiteral("status")}},
                       {QStringLiteral("properties"), properties}};
}

QJsonObject schemaRef(const QString &name)
{
    return QJsonObject{{QStringLiteral("$ref"), QStringLiteral("#/components/schemas/") + name}};
}

// Bodies with a schema of their own in the components section: "METHOD pattern" -> {request, response}.
struct NamedBodies
{
    const char *route;
    const char *request;
    const char *response;
};
constexpr NamedBodies NamedBodySchemas[] = {
    {"GET /definitions", "", "Definitions"},
    {"POST /definitions", "Definitions", "DefinitionsImport"},
    {"GET /processors", "", "ProcessorList"},
};

const NamedBodies *namedBodies(const Route &route)
{
    const QString key = Router::methodName(route.method) + QLatin1Char(' ') + route.pattern;
    for (const NamedBodies &bodies : NamedBodySchemas) {
        if (key == QLatin1StringView(bodies.route))
            return &bodies;
    }
    return nullptr;
}

void setContentSchema(QJsonObject &holder, const QJsonObject &schema)
{
    holder.insert(QStringLiteral("content"),
                  QJsonObject{{QStringLiteral("application/json"), QJsonObject{{QStringLiteral("schema"), schema}}}});
}

} // namespace

QJsonObject openApiDocument(const Router &router, const QString &version)
{
    static const QRegularExpression parameter(QStringLiteral("\\{([a-z_]+)\\}"));
    QJsonObject paths;
    for (const Route &route : router.routes()) {
        QJsonObject operation;
        operation.insert(QStringLiteral("summary"), route.summary);
        operation.insert(QStringLiteral("operationId"),
                         Router::methodName(route.method).toLower() + QString(route.pattern).replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9]+")), QStringLiteral("_")));
        if (!route.permission.isEmpty())
            operation.insert(QStringLiteral("description"), QStringLiteral("Permission: `%1`").arg(route.permission));
        QJsonArray parameters;
        auto matches = parameter.globalMatch(route.pattern);
        while (matches.hasNext()) {
            const QString name = matches.next().captured(1);
            parameters.append(QJsonObject{{QStringLiteral("name"), name},
                                          {QStringLiteral("in"), QStringLiteral("path")},
                                          {QStringLiteral("required"), true},
                                          {QStringLiteral("schema"), QJsonObject{{QStringLiteral("type"), QStringLiteral("string")}}}});
        }
        for (const QString &name : route.queryParameters) {
            parameters.append(QJsonObject{{QStringLiteral("name"), name},
                                          {QStringLiteral("in"), QStringLiteral("query")},
                                          {QStringLiteral("required"), false},
                                          {QStringLiteral("schema"), QJsonObject{{QStringLiteral("type"), QStringLiteral("string")}}}});
        }
        if (!parameters.isEmpty())
            operation.insert(QStringLiteral("parameters"), parameters);
        const NamedBodies *named = namedBodies(route);
        if (route.method == QHttpServerRequest::Method::Post || route.method == QHttpServerRequest::Method::Put
            || route.method == QHttpServerRequest::Method::Patch) {
            const bool namedRequest = named && *named->request;
            const QJsonObject schema = !route.requestSchema.isEmpty() ? route.requestSchema
                : namedRequest ? schemaRef(QString::fromLatin1(named->request))
                                : QJsonObject{{QStringLiteral("type"), QStringLiteral("object")}};
            QJsonObject requestBody{
                {QStringLiteral("required"), namedRequest || route.method == QHttpServerRequest::Method::Patch}};
            setContentSchema(requestBody, schema);
            operation.insert(QStringLiteral("requestBody"), requestBody);
        }
        QJsonObject responses;
        QList<int> statuses = route.statuses;
        if (route.authenticated)
            statuses << 401 << 429;
        std::sort(statuses.begin(), statuses.end());
        for (int status : statuses) {
            QJsonObject answer = response(status);
            if (status == 200 && named && *named->response)
                setContentSchema(answer, schemaRef(QString::fromLatin1(named->response)));
            responses.insert(QString::number(status), answer);
        }
        operation.insert(QStringLiteral("responses"), responses);
        if (!route.authenticated)
            operation.insert(QStringLiteral("security"), QJsonArray{});

        QJsonObject item = paths.value(route.pattern).toObject();
        item.insert(Router::methodName(route.method).toLower(), operation);
        paths.insert(route.pattern, item);
    }

    QJsonObject components;
    components.insert(QStringLiteral("securitySchemes"),
                      QJsonObject{{QStringLiteral("ApiKey"), QJsonObject{{QStringLiteral("type"), QStringLiteral("apiKey")},
                                                                         {QStringLiteral("in"), QStringLiteral("header")},
                                                                         {QStringLiteral("name"), QStringLiteral("X-API-Key")}}}});
    QJsonObject schemas = DefinitionsController::openApiSchemas();
    const QJsonObject processorSchemas = ProcessorReport::openApiSchemas();
    for (auto it = processorSchemas.constBegin(); it != processorSchemas.constEnd(); ++it)
        schemas.insert(it.key(), it.value());
    schemas.insert(QStringLiteral("Problem"), problemSchema());
    components.insert(QStringLiteral("schemas"), schemas);

    QJsonObject document;
    document.insert(QStringLiteral("openapi"), QStringLiteral("3.0.3"));
    document.insert(QStringLiteral("info"),
                    QJsonObject{{QStringLiteral("title"), QStringLiteral("BrokerDesk REST API")},
                                {QStringLiteral("version"), version},
                                {QStringLiteral("license"), QJsonObject{{QStringLiteral("name"), QStringLiteral("GPL-3.0-or-later")}}}});
    document.insert(QStringLiteral("paths"), paths);
    document.insert(QStringLiteral("components"), components);
    document.insert(QStringLiteral("security"), QJsonArray{QJsonObject{{QStringLiteral("ApiKey"), QJsonArray{}}}});
    return document;
}

} // namespace Broker::Rest
