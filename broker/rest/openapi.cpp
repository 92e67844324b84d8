// SPDX-License-Identifier: GPL-3.0-or-later
#include "openapi.h"

#include "apischemas.h"
#include "rawresponse.h"

#include <QJsonArray>
#include <QRegularExpression>

#include <algorithm>
#include <map>

namespace Broker::Rest {

namespace {

QJsonObject ref(const QString &section, const QString &name)
{
    return QJsonObject{{QStringLiteral("$ref"), QStringLiteral("#/components/%1/%2").arg(section, name)}};
}

QJsonObject content(const QByteArray &mediaType, const QJsonObject &schema)
{
    return QJsonObject{{QString::fromLatin1(mediaType), QJsonObject{{QStringLiteral("schema"), schema}}}};
}

QJsonObject headersFor(int status)
{
    QJsonObject headers{{QStringLiteral("X-Request-ID"), ref(QStringLiteral("headers"), QStringLiteral("X-Request-ID"))}};
    if (status == 429 || status == 503)
        headers.insert(QStringLiteral("Retry-After"), ref(QStringLiteral("headers"), QStringLiteral("Retry-After")));
    return headers;
}

QJsonObject responseObject(const ApiResponse &response)
{
    QJsonObject json;
    json.insert(QStringLiteral("description"), response.description.isEmpty()
                                                   ? QString::fromLatin1(reasonPhrase(response.status))
                                                   : response.description);
    json.insert(QStringLiteral("headers"), headersFor(response.status));
    if (!response.schema.isEmpty())
        json.insert(QStringLiteral("content"), content(response.mediaType, ref(QStringLiteral("schemas"), response.schema)));
    else if (response.status >= 400)
        json.insert(QStringLiteral("content"),
                    content("application/problem+json", ref(QStringLiteral("schemas"), QStringLiteral("Problem"))));
    return json;
}

// Answers every route may give, whatever it does: shared, in components/responses.
struct SharedResponse
{
    int status;
    const char *name;
    const char *description;
};
constexpr SharedResponse SharedResponses[] = {
    {401, "Unauthorized", "`Unauthorized - Missing API key` or `Unauthorized - Invalid API key` (also for a wrong key "
                          "sent to a route that needs none)"},
    {413, "PayloadTooLarge", "The body is larger than the request body limit"},
    {429, "TooManyRequests", "`Too many failed authentication attempts` from the client's address, or `Rate limit "
                             "exceeded` for the key (when enabled); `Retry-After` says when to try again"},
    {500, "InternalError", "The broker failed (the log has the details; the body names no paths)"},
    {503, "Unavailable", "Storage is out of reach, its spool is full, or it is read-only; `Retry-After` says when to retry"},
    {504, "StorageTimeout", "Storage did not answer in time"},
};

QJsonObject sharedResponses()
{
    QJsonObject responses;
    for (const SharedResponse &shared : SharedResponses)
        responses.insert(QString::fromLatin1(shared.name),
                         responseObject(Api::problem(shared.status, QString::fromLatin1(shared.description))));
    return responses;
}

const SharedResponse *shared(int status)
{
    for (const SharedResponse &response : SharedResponses) {
        if (response.status == status)
            return &response;
    }
    return nullptr;
}

const QString KeyInQuery = QStringLiteral("`API key in the query string is not accepted` (send it in X-API-Key)");

QJsonObject responsesOf(const Route &route)
{
    std::map<int, QJsonObject> byStatus;
    for (const ApiResponse &response : route.contract.responses)
        byStatus[response.status] = responseObject(response);
    // Every route refuses a key in the query string.
    if (auto bad = byStatus.find(400); bad != byStatus.end())
        bad->second.insert(QStringLiteral("description"),
                           bad->second.value(QStringLiteral("description")).toString() + QStringLiteral("; ") + KeyInQuery);
    else
        byStatus[400] = responseObject(Api::problem(400, KeyInQuery));
    QList<int> added{401, 429};
    if (!route.contract.requestBody.isEmpty())
        added << 413;
    if (route.contract.serverErrors)
        added << 500 << 503 << 504;
    for (int status : added) {
        if (!byStatus.count(status))
            byStatus[status] = ref(QStringLiteral("responses"), QString::fromLatin1(shared(status)->name));
    }
    QJsonObject responses;
    for (const auto &[status, response] : byStatus)
        responses.insert(QString::number(status), response);
    return responses;
}

QJsonArray parametersOf(const Route &route)
{
    static const QRegularExpression parameter(QStringLiteral("\\{([a-z_]+)\\}"));
    QJsonArray parameters;
    auto matches = parameter.globalMatch(route.pattern);
    while (matches.hasNext()) {
        const QString name = matches.next().captured(1);
        const bool queue = name == u"name" || name == u"queue";
        const bool user = route.pattern.startsWith(u"/users/");
        parameters.append(QJsonObject{
            {QStringLiteral("name"), name},
            {QStringLiteral("in"), QStringLiteral("path")},
            {QStringLiteral("required"), true},
            {QStringLiteral("description"), queue ? QStringLiteral("The queue's name")
                                             : user ? QStringLiteral("The user's id")
                                                    : QStringLiteral("The message's id")},
            {QStringLiteral("schema"), queue ? ref(QStringLiteral("schemas"), QStringLiteral("QueueName"))
                                             : QJsonObject{{QStringLiteral("type"), QStringLiteral("string")},
                                                           {QStringLiteral("minLength"), 1}}}});
    }
    for (const ApiParameter &query : route.contract.query) {
        parameters.append(QJsonObject{{QStringLiteral("name"), query.name},
                                      {QStringLiteral("in"), QStringLiteral("query")},
                                      {QStringLiteral("required"), false},
                                      {QStringLiteral("description"), query.description},
                                      {QStringLiteral("schema"), query.schema}});
    }
    return parameters;
}

QJsonObject operationOf(const Route &route)
{
    QJsonObject operation;
    operation.insert(QStringLiteral("summary"), route.summary);
    operation.insert(QStringLiteral("operationId"), route.contract.operationId);
    operation.insert(QStringLiteral("tags"), QJsonArray{route.contract.tag});
    operation.insert(QStringLiteral("description"),
                     !route.authenticated ? QStringLiteral("No API key needed; a key that is sent is checked.")
                     : route.permission.isEmpty() ? QStringLiteral("Any valid API key.")
                                                  : QStringLiteral("Permission: `%1`").arg(route.permission));
    if (const QJsonArray parameters = parametersOf(route); !parameters.isEmpty())
        operation.insert(QStringLiteral("parameters"), parameters);
    if (!route.contract.requestBody.isEmpty()) {
        operation.insert(QStringLiteral("requestBody"),
                         QJsonObject{{QStringLiteral("required"), route.contract.bodyRequired},
                                     {QStringLiteral("content"),
                                      content("application/json", ref(QStringLiteral("schemas"), route.contract.requestBody))}});
    }
    operation.insert(QStringLiteral("responses"), responsesOf(route));
    // Open routes: no key, or a key (which /health answers with more detail).
    if (!route.authenticated)
        operation.insert(QStringLiteral("security"),
                         QJsonArray{QJsonObject{}, QJsonObject{{QStringLiteral("ApiKey"), QJsonArray{}}}});
    return operation;
}

QJsonObject infoObject(const QString &version)
{
    return QJsonObject{
        {QStringLiteral("title"), QStringLiteral("BrokerDesk REST API")},
        {QStringLiteral("version"), version},
        {QStringLiteral("description"),
         QStringLiteral("The REST API of the BrokerDesk message broker, wire-compatible with the gCore MessageBroker "
                        "example. Errors are RFC 9457 problem documents that also carry gCore's `error` string. "
                        "Beside the answers listed per operation, the HTTP layer may answer any request 408 (too slow), "
                        "431 (header block too large) or 503 (connection caps) before it reaches a route.")},
        {QStringLiteral("license"),
         QJsonObject{{QStringLiteral("name"), QStringLiteral("GPL-3.0-or-later")},
                     {QStringLiteral("url"), QStringLiteral("https://www.gnu.org/licenses/gpl-3.0-standalone.html")}}},
        {QStringLiteral("contact"),
         QJsonObject{{QStringLiteral("name"), QStringLiteral("BrokerDesk")},
                     {QStringLiteral("url"), QStringLiteral("https://github.com/brokerdesk/brokerdesk")}}}};
}

QJsonObject headerComponents()
{
    return QJsonObject{
        {QStringLiteral("X-Request-ID"),
         QJsonObject{{QStringLiteral("description"), QStringLiteral("The request's id: a valid incoming one echoed, else generated")},
                     {QStringLiteral("schema"), QJsonObject{{QStringLiteral("type"), QStringLiteral("string")}}}}},
        {QStringLiteral("Retry-After"),
         QJsonObject{{QStringLiteral("description"), QStringLiteral("Whole seconds to wait before trying again")},
                     {QStringLiteral("schema"), QJsonObject{{QStringLiteral("type"), QStringLiteral("integer")},
                                                            {QStringLiteral("minimum"), 1}}}}}};
}

} // namespace

QJsonObject openApiDocument(const Router &router, const QString &version, const EngineOptions &engine)
{
    QJsonObject paths;
    for (const Route &route : router.routes()) {
        QJsonObject item = paths.value(route.pattern).toObject();
        item.insert(Router::methodName(route.method).toLower(), operationOf(route));
        paths.insert(route.pattern, item);
    }

    QJsonObject components;
    components.insert(QStringLiteral("securitySchemes"),
                      QJsonObject{{QStringLiteral("ApiKey"),
                                   QJsonObject{{QStringLiteral("type"), QStringLiteral("apiKey")},
                                               {QStringLiteral("in"), QStringLiteral("header")},
                                               {QStringLiteral("name"), QStringLiteral("X-API-Key")},
                                               {QStringLiteral("description"),
                                                QStringLiteral("A user's API key (users.yaml); never in the query string")}}}});
    components.insert(QStringLiteral("schemas"), ApiSchemas::components(engine));
    components.insert(QStringLiteral("responses"), sharedResponses());
    components.insert(QStringLiteral("headers"), headerComponents());

    QJsonObject document;
    document.insert(QStringLiteral("openapi"), QStringLiteral("3.0.3"));
    document.insert(QStringLiteral("info"), infoObject(version));
    // Relative: the API is where the document was fetched from, whatever host name, port or
    // reverse proxy the client used to reach it (the broker cannot know which of them is public).
    document.insert(QStringLiteral("servers"),
                    QJsonArray{QJsonObject{{QStringLiteral("url"), QStringLiteral("/")},
                                           {QStringLiteral("description"), QStringLiteral("The broker that serves this document")}}});
    document.insert(QStringLiteral("tags"), ApiSchemas::tags());
    document.insert(QStringLiteral("paths"), paths);
    document.insert(QStringLiteral("components"), components);
    document.insert(QStringLiteral("security"), QJsonArray{QJsonObject{{QStringLiteral("ApiKey"), QJsonArray{}}}});
    return document;
}

} // namespace Broker::Rest
