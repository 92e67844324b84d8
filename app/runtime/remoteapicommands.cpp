// SPDX-License-Identifier: GPL-3.0-or-later
// RemoteApi's commands: which request each one is, and how its answer reads.
#include "remoteapi.h"

#include "apijson.h"
#include "apirequests.h"

#include <QJsonDocument>
#include <QPromise>

#include <optional>

namespace Broker {

namespace {

using ApiRequests::segment;

QString queuePath(const QString &queue)
{
    return QStringLiteral("/queues/") + segment(queue);
}

QString userPath(const QString &id)
{
    return QStringLiteral("/users/") + segment(id);
}

// A 2xx answer that lacks what it is for: the broker speaks another version of the API.
Error unreadable(const char *what)
{
    return Error{ErrorCode::Internal, QStringLiteral("The broker's answer could not be read as %1").arg(QLatin1StringView(what))};
}

template<typename T>
Result<T> readOr(std::optional<T> value, const char *what)
{
    if (!value)
        return unreadable(what);
    return std::move(*value);
}

} // namespace

template<typename T>
QFuture<Result<T>> RemoteApi::call(Request request, std::function<Result<T>(const Answer &)> read)
{
    auto promise = std::make_shared<QPromise<Result<T>>>();
    promise->start();
    QFuture<Result<T>> future = promise->future();
    enqueue(std::move(request), [promise, read = std::move(read)](Result<Answer> answer) {
        promise->addResult(answer ? read(*answer) : Result<T>(answer.error()));
        promise->finish();
    });
    return future;
}

QFuture<Result<QueueInfo>> RemoteApi::createQueue(const QString &name, const QueueConfig &config)
{
    return call<QueueInfo>({"POST", QStringLiteral("/queues"), {}, ApiRequests::createQueue(name, config), ErrorCode::QueueNotFound},
                           [](const Answer &answer) { return readOr(ApiJson::createdQueue(answer.json), "a created queue"); });
}

QFuture<Result<QueueInfo>> RemoteApi::updateQueue(const QString &name, const QueueConfigChange &change)
{
    return call<QueueInfo>({"PATCH", queuePath(name), {}, ApiRequests::updateQueue(change), ErrorCode::QueueNotFound},
                           [](const Answer &answer) { return readOr(ApiJson::queueInfo(answer.json), "a queue"); });
}

QFuture<Result<qint64>> RemoteApi::deleteQueue(const QString &name)
{
    return call<qint64>({"DELETE", queuePath(name), {}, {}, ErrorCode::QueueNotFound}, [](const Answer &answer) -> Result<qint64> {
        if (!answer.json.contains(u"deleted_keys"))
            return unreadable("a deleted queue");
        return answer.json.value(u"deleted_keys").toInteger();
    });
}

QFuture<Result<qint64>> RemoteApi::purgeQueue(const QString &name)
{
    return call<qint64>({"POST", queuePath(name) + QStringLiteral("/purge"), {}, {}, ErrorCode::QueueNotFound},
                        [](const Answer &answer) -> Result<qint64> {
                            if (!answer.json.contains(u"purged"))
                                return unreadable("a purge");
                            return answer.json.value(u"purged").toInteger();
                        });
}

QFuture<Result<PublishResult>> RemoteApi::publish(const QString &queue, const QList<NewMessage> &messages)
{
    const auto read = [](const Answer &answer) { return readOr(ApiJson::publishResult(answer.json), "a publish"); };
    Result<ApiRequests::Publish> request = ApiRequests::publish(queue, messages);
    if (!request) {
        // Nothing to send: answered at once, in order with nothing (it never waits).
        QPromise<Result<PublishResult>> promise;
        promise.start();
        promise.addResult(Result<PublishResult>(request.error()));
        promise.finish();
        return promise.future();
    }
    return call<PublishResult>({"POST", request->path, {}, request->body, ErrorCode::QueueNotFound}, read);
}

QFuture<Result<BrowsePage>> RemoteApi::browse(const QString &queue, const BrowseQuery &query)
{
    return call<BrowsePage>({"GET", queuePath(queue) + QStringLiteral("/messages"), ApiRequests::browseQuery(query), {},
                             ErrorCode::QueueNotFound},
                            [queue](const Answer &answer) { return readOr(ApiJson::browsePage(answer.body, queue), "a page of messages"); });
}

QFuture<Result<BrowsePage>> RemoteApi::browse(const QString &queue, qint64 offset, qint64 limit)
{
    BrowseQuery query;
    query.offset = offset;
    query.limit = limit;
    return browse(queue, query);
}

QFuture<Result<RedriveResult>> RemoteApi::redrive(const QString &queue, const RedriveRequest &request)
{
    return call<RedriveResult>({"POST", queuePath(queue) + QStringLiteral("/redrive"), {}, ApiRequests::redrive(request),
                                ErrorCode::QueueNotFound},
                               [](const Answer &answer) { return readOr(ApiJson::redriveResult(answer.body), "a redrive"); });
}

QFuture<Result<qint64>> RemoteApi::redrive(const QString &queue, qint64 limit)
{
    RedriveRequest request;
    request.limit = qMax<qint64>(0, limit);
    return call<qint64>({"POST", queuePath(queue) + QStringLiteral("/redrive"), {}, ApiRequests::redrive(request),
                         ErrorCode::QueueNotFound},
                        [](const Answer &answer) -> Result<qint64> {
                            if (!answer.json.contains(u"moved"))
                                return unreadable("a redrive");
                            return answer.json.value(u"moved").toInteger();
                        });
}

QFuture<Result<MessageActionResult>> RemoteApi::messageAction(const QString &queue, const MessageAction &action)
{
    return call<MessageActionResult>({"POST", queuePath(queue) + QStringLiteral("/messages/actions"), {},
                                      ApiRequests::messageAction(action), ErrorCode::QueueNotFound},
                                     [](const Answer &answer) {
                                         return readOr(ApiJson::messageActionResult(answer.json), "a message action");
                                     });
}

QFuture<Result<QList<MessageEvent>>> RemoteApi::lifecycle(const QString &queue, const QString &messageId)
{
    // The broker answers 404 for a message with no recorded step in a queue the key may peek.
    return call<QList<MessageEvent>>({"GET", QStringLiteral("/messages/%1/%2/events").arg(segment(queue), segment(messageId)), {}, {},
                                      ErrorCode::MessageNotFound},
                                     [](const Answer &answer) -> Result<QList<MessageEvent>> {
                                         if (!answer.json.value(u"events").isArray())
                                             return unreadable("a message's events");
                                         return ApiJson::messageEvents(answer.json);
                                     });
}

QFuture<Result<IssuedKey>> RemoteApi::addUser(const QString &id, const QString &name, const QStringList &roles)
{
    return call<IssuedKey>({"POST", QStringLiteral("/users"), {}, ApiRequests::addUser(id, name, roles), ErrorCode::NotFound},
                           [](const Answer &answer) { return readOr(ApiJson::issuedKey(answer.json), "a new key"); });
}

QFuture<Result<IssuedKey>> RemoteApi::rotateKey(const QString &id)
{
    return call<IssuedKey>({"POST", userPath(id) + QStringLiteral("/rotate"), {}, {}, ErrorCode::NotFound},
                           [](const Answer &answer) { return readOr(ApiJson::issuedKey(answer.json), "a new key"); });
}

QFuture<Result<void>> RemoteApi::setRoles(const QString &id, const QStringList &roles)
{
    return call<void>({"PATCH", userPath(id), {}, ApiRequests::setRoles(roles), ErrorCode::NotFound},
                      [](const Answer &) { return Result<void>(); });
}

QFuture<Result<void>> RemoteApi::setDisabled(const QString &id, bool disabled)
{
    return call<void>({"PATCH", userPath(id), {}, ApiRequests::setDisabled(disabled), ErrorCode::NotFound},
                      [](const Answer &) { return Result<void>(); });
}

QFuture<Result<void>> RemoteApi::removeUser(const QString &id)
{
    return call<void>({"DELETE", userPath(id), {}, {}, ErrorCode::NotFound}, [](const Answer &) { return Result<void>(); });
}

QFuture<Result<QList<User>>> RemoteApi::users()
{
    return call<QList<User>>({"GET", QStringLiteral("/users"), {}, {}, ErrorCode::NotFound},
                             [](const Answer &answer) -> Result<QList<User>> {
                                 if (!answer.json.value(u"users").isArray())
                                     return unreadable("a list of users");
                                 return ApiJson::users(answer.json);
                             });
}

QFuture<Result<QJsonObject>> RemoteApi::exportDefinitions()
{
    return call<QJsonObject>({"GET", QStringLiteral("/definitions"), {}, {}, ErrorCode::NotFound},
                             [](const Answer &answer) { return Result<QJsonObject>(answer.json); });
}

QFuture<Result<ProcessorStatusList>> RemoteApi::processors()
{
    return call<ProcessorStatusList>({"GET", QStringLiteral("/processors"), {}, {}, ErrorCode::NotFound},
                                     [](const Answer &answer) -> Result<ProcessorStatusList> {
                                         if (!answer.json.value(u"processors").isArray())
                                             return unreadable("a list of processors");
                                         return ApiJson::processorStatuses(answer.json);
                                     });
}

QFuture<Result<qint64>> RemoteApi::uptimeSeconds()
{
    return call<qint64>({"GET", QStringLiteral("/health"), {}, {}, ErrorCode::NotFound}, [](const Answer &answer) {
        const QJsonValue uptime = answer.json.value(QStringLiteral("uptime"));
        return uptime.isDouble() ? Result<qint64>(qint64(uptime.toDouble()))
                                 : Result<qint64>(Error{ErrorCode::Internal, QStringLiteral("GET /health answered no uptime")});
    });
}

QFuture<Result<DefinitionsImport>> RemoteApi::importDefinitions(const QJsonObject &document)
{
    return call<DefinitionsImport>({"POST", QStringLiteral("/definitions"), {}, QJsonDocument(document).toJson(QJsonDocument::Compact),
                                    ErrorCode::NotFound},
                                   [](const Answer &answer) {
                                       return readOr(ApiJson::definitionsImport(answer.json), "an import summary");
                                   });
}

QFuture<Result<QList<ErrorRecord>>> RemoteApi::errors(int limit)
{
    return call<QList<ErrorRecord>>({"GET", QStringLiteral("/errors"), QStringLiteral("limit=%1").arg(limit), {}, ErrorCode::NotFound},
                                    [](const Answer &answer) -> Result<QList<ErrorRecord>> {
                                        if (!answer.json.value(u"errors").isArray())
                                            return unreadable("a list of errors");
                                        return ApiJson::errorRecords(answer.json);
                                    });
}

} // namespace Broker
