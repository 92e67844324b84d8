// SPDX-License-Identifier: GPL-3.0-or-later
// ApiJson's readers of the administration answers (users, errors, definitions) and of error answers.
#include "apijson.h"
#include "apijsonfields.h"

#include <QJsonArray>

#include <cmath>

namespace Broker::ApiJson {

namespace {

using Fields::millis;
using Fields::strings;

QList<DefinitionsImport::Refused> refused(const QJsonValue &array, QStringView nameKey)
{
    QList<DefinitionsImport::Refused> out;
    for (const QJsonValue &value : array.toArray()) {
        const QJsonObject item = value.toObject();
        out.append({item.value(nameKey).toString(), item.value(u"reason").toString()});
    }
    return out;
}

} // namespace

std::optional<User> user(const QJsonObject &json)
{
    User user;
    user.id = json.value(u"id").toString();
    if (user.id.isEmpty())
        return std::nullopt;
    user.name = json.value(u"name").toString();
    user.roles = strings(json.value(u"roles"));
    user.keyPrefix = json.value(u"key_prefix").toString();
    user.disabled = json.value(u"disabled").toBool();
    user.createdMs = millis(json.value(u"created"));
    user.lastUsedMs = millis(json.value(u"last_used")); // null: not used since the broker started
    return user;
}

QList<User> users(const QJsonObject &json)
{
    return Fields::listOf<User>(json, u"users", user);
}

std::optional<IssuedKey> issuedKey(const QJsonObject &json)
{
    IssuedKey key;
    key.userId = json.value(u"id").toString();
    key.apiKey = json.value(u"api_key").toString();
    if (key.userId.isEmpty() || key.apiKey.isEmpty())
        return std::nullopt;
    return key;
}

std::optional<ErrorRecord> errorRecord(const QJsonObject &json)
{
    const std::optional<Severity> severity = severityFromName(json.value(u"severity").toString());
    if (!severity)
        return std::nullopt;
    ErrorRecord record;
    record.id = quint64(json.value(u"id").toInteger());
    record.severity = *severity;
    record.component = json.value(u"component").toString();
    record.code = json.value(u"code").toString();
    record.message = json.value(u"message").toString();
    record.firstMs = millis(json.value(u"first_seen"));
    record.lastMs = millis(json.value(u"last_seen"));
    record.count = json.value(u"count").toInteger(1);
    return record;
}

QList<ErrorRecord> errorRecords(const QJsonObject &json)
{
    return Fields::listOf<ErrorRecord>(json, u"errors", errorRecord);
}

ProcessorStatusList processorStatuses(const QJsonObject &json)
{
    ProcessorStatusList out;
    for (const QJsonValue &value : json.value(u"processors").toArray()) {
        const QJsonObject item = value.toObject();
        ProcessorStatus status;
        status.id = item.value(u"id").toInt();
        status.name = item.value(u"name").toString();
        status.queue = item.value(u"queue").toString();
        status.kind = item.value(u"kind").toString();
        status.target = item.value(u"target").toString();
        status.concurrency = item.value(u"concurrency").toInt(1);
        status.inFlight = item.value(u"in_flight").toInt();
        status.running = item.value(u"running").toBool(true);
        status.successes = item.value(u"successes").toInteger();
        status.failures = item.value(u"failures").toInteger();
        status.lastError = item.value(u"last_error").toString();
        status.lastErrorAtMs = millis(item.value(u"last_error_at"));
        status.lastSuccessAtMs = millis(item.value(u"last_success_at"));
        status.failing = item.value(u"failing").toBool();
        if (!status.queue.isEmpty())
            out.append(std::move(status));
    }
    return out;
}

std::optional<DefinitionsImport> definitionsImport(const QJsonObject &json)
{
    if (!json.contains(u"queues") || !json.contains(u"users"))
        return std::nullopt;
    DefinitionsImport summary;
    const QJsonObject queues = json.value(u"queues").toObject();
    summary.queuesCreated = strings(queues.value(u"created"));
    summary.queuesUnchanged = strings(queues.value(u"unchanged"));
    for (const QJsonValue &value : queues.value(u"conflicts").toArray()) {
        const QJsonObject item = value.toObject();
        DefinitionsImport::QueueConflict conflict;
        conflict.name = item.value(u"name").toString();
        conflict.reason = item.value(u"reason").toString();
        const QJsonObject differences = item.value(u"differences").toObject();
        for (auto it = differences.begin(); it != differences.end(); ++it) {
            const QJsonObject difference = it.value().toObject();
            conflict.differences.append({it.key(), difference.value(u"existing"), difference.value(u"requested")});
        }
        summary.queueConflicts.append(conflict);
    }
    summary.queuesFailed = refused(queues.value(u"failed"), u"name");
    const QJsonObject roles = json.value(u"roles").toObject();
    summary.rolesPresent = strings(roles.value(u"present"));
    summary.rolesNotImported = refused(roles.value(u"not_imported"), u"name");
    const QJsonObject users = json.value(u"users").toObject();
    for (const QJsonValue &value : users.value(u"created").toArray()) {
        const QJsonObject item = value.toObject();
        summary.usersCreated.append(
            {item.value(u"id").toString(), item.value(u"api_key").toString(), item.value(u"disabled").toBool()});
    }
    summary.usersUnchanged = strings(users.value(u"unchanged"));
    summary.userConflicts = refused(users.value(u"conflicts"), u"id");
    return summary;
}

Error error(int status, const QJsonObject &problem, ErrorCode notFound)
{
    const QString text = problem.value(u"error").toString();
    const QString detail = problem.value(u"detail").toString();
    const QString message = text.isEmpty() ? QStringLiteral("The broker answered HTTP %1").arg(status) : text;
    ErrorCode code = ErrorCode::Internal;
    switch (status) {
    case 400:
    case 431: // the request's header block: nothing the user can shrink but what they sent
        code = ErrorCode::InvalidArgument;
        break;
    case 401: code = ErrorCode::Unauthenticated; break;
    case 403: code = ErrorCode::PermissionDenied; break;
    case 404:
        // The texts the broker gives (storeerrors.cpp, the controllers); a route the broker does
        // not have ("Not found") is the resource missing too, as far as a caller can tell.
        if (text == u"Queue not found")
            code = ErrorCode::QueueNotFound;
        else if (text.startsWith(u"Message not found"))
            code = ErrorCode::MessageNotFound;
        else if (text == u"Target queue not found" || text.startsWith(u"User"))
            code = ErrorCode::NotFound;
        else
            code = notFound;
        break;
    case 409:
        code = text == u"Queue already exists" ? ErrorCode::QueueExists
             : text.startsWith(u"Stale receipt") ? ErrorCode::StaleReceipt
                                                 : ErrorCode::Conflict;
        break;
    case 413: code = ErrorCode::PayloadTooLarge; break;
    case 429:
        // A full queue is the broker's answer about the queue; anything else is a limit on the
        // caller (a rate limit, too many failed authentications), worth waiting out.
        code = text == u"Queue size limit reached" ? ErrorCode::QueueFull : ErrorCode::RateLimited;
        break;
    case 503: code = ErrorCode::Unavailable; break;
    case 504: code = ErrorCode::Timeout; break;
    default:
        // 502 from a proxy in front of the broker, 500: the broker (or what is in front of it)
        // failed; other 5xx are the same to a caller.
        code = status >= 500 && status != 500 ? ErrorCode::Unavailable : ErrorCode::Internal;
        break;
    }
    return Error{code, message, detail};
}

} // namespace Broker::ApiJson
