// SPDX-License-Identifier: GPL-3.0-or-later
#include "openapi.h"

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
        if (route.method == QHttpServerRequest::Method::Post || route.method == QHttpServerRequest::Method::Put
            || route.method == QHttpServerRequest::Method::Patch) {
            const QJsonObject schema = route.requestSchema.isEmpty()
                ? QJsonObject{{QStringLiteral("type"), QStringLiteral("object")}}
                : route.requestSchema;
            const QJsonObject content{{QStringLiteral("application/json"), QJsonObject{{QStringLiteral("schema"), schema}}}};
            operation.insert(QStringLiteral("requestBody"),
                             QJsonObject{{QStringLiteral("required"), route.method == QHttpServerRequest::Method::Patch},
                                         {QStringLiteral("content"), content}});
        }
        QJsonObject responses;
        QList<int> statuses = route.statuses;
        if (route.authenticated)
            statuses << 401 << 429;
        std::sort(statuses.begin(), statuses.end());
        for (int status : statuses)
            responses.insert(QString::number(status), response(status));
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
    components.insert(QStringLiteral("schemas"), QJsonObject{{QStringLiteral("Problem"), problemSchema()}});

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
