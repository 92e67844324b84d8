// SPDX-License-Identifier: GPL-3.0-or-later
#include "messageactionscontroller.h"

#include "jsonscanner.h"
#include "core/jsonwriter.h"
#include "requestparsing.h"

#include "core/validation.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <limits>

namespace Broker::Rest {

using Method = QHttpServerRequest::Method;

namespace {

// The members of a body (an empty body is an empty object), refusing any not in `known`.
Result<QList<JsonScanner::Member>> membersOf(const QByteArray &body, int maxDepth, const QStringList &known)
{
    if (body.trimmed().isEmpty())
        return QList<JsonScanner::Member>{};
    Result<QList<JsonScanner::Member>> members = JsonScanner::objectMembers(body, maxDepth);
    if (!members)
        return members;
    // Qt would read such a number as null: refuse it, as every other body reader does.
    if (const std::optional<QString> where = JsonScanner::numberOutOfRange(body, maxDepth))
        return JsonScanner::numberOutOfRangeError(*where);
    for (const JsonScanner::Member &member : *members) {
        if (!known.contains(member.key))
            return Error{ErrorCode::InvalidArgument,
                         QStringLiteral("Unknown field '%1' (expected: %2)").arg(member.key, known.join(u", "))};
    }
    return members;
}

QJsonValue parsedValue(const QByteArray &body, JsonSpan span)
{
    return QJsonDocument::fromJson('[' + body.mid(span.begin, span.size()) + ']').array().at(0);
}

Result<QList<QString>> idList(const QJsonValue &value)
{
    const Error wrong{ErrorCode::InvalidArgument, QStringLiteral("Invalid ids: expected an array of message ids")};
    if (!value.isArray())
        return wrong;
    QList<QString> ids;
    for (const QJsonValue &id : value.toArray()) {
        if (!id.isString() || id.toString().isEmpty())
            return wrong;
        ids.append(id.toString());
    }
    return ids;
}

void writeIds(JsonWriter &out, const QList<QString> &ids)
{
    out.beginArray();
    for (const QString &id : ids)
        out.value(id);
    out.endArray();
}

} // namespace

MessageActionsController::MessageActionsController(RestContext &context, Router &router) : Controller(context)
{
    using namespace Api;
    const QString tag = QStringLiteral("queue-administration");
    const ApiResponse denied = problem(403, QStringLiteral("`Unauthorized`: the key lacks a permission (`detail` names it)"));
    router.add({Method::Post, QStringLiteral("/queues/{name}/messages/actions"),
                QStringLiteral("Delete, requeue, move or dead-letter chosen messages"),
                QStringLiteral("delete, dead_letter: purge_queue:{name}; requeue: consume:{name}; "
                               "move: consume:{name} and publish:<target>"),
                true,
                {QStringLiteral("actOnMessages"), tag, QStringLiteral("MessageActionsRequest"), true, {},
                 {ok(QStringLiteral("MessageActionsResult")),
                  problem(400, QStringLiteral("`Invalid action: ...`, `action is required: ...`, `ids is required: ...`, "
                                              "`Too many ids: ...`, `target is required: ...`, `Invalid target: ...`, "
                                              "`Unknown field '...'`")),
                  denied, problem(404, QStringLiteral("`Queue not found`, `Target queue not found`")),
                  problem(409, QStringLiteral("`Queue has no dead-letter queue`")),
                  problem(429, QStringLiteral("`Queue size limit reached` (move), or a rate limit"))}},
                [this](const ExchangePtr &e) { act(e); }});
    router.add({Method::Post, QStringLiteral("/queues/{name}/redrive"),
                QStringLiteral("Move dead-lettered messages back to their origin queues (a selection, edited "
                               "payloads, a dry run)"),
                QStringLiteral("purge_queue:{name}"), true,
                {QStringLiteral("redriveMessages"), tag, QStringLiteral("RedriveRequest"), false, {},
                 {ok(QStringLiteral("RedriveResult")),
                  problem(400, QStringLiteral("`Invalid limit: ...`, `Invalid ids: ...`, `Invalid edits: ...`, "
                                              "`Invalid dry_run: expected true or false`, `Unknown field '...'`")),
                  denied, problem(404, QStringLiteral("`Queue not found`")),
                  problem(429, QStringLiteral("An origin queue's size limit is reached, or a rate limit"))}},
                [this](const ExchangePtr &e) { redrive(e); }});
}

void MessageActionsController::act(const ExchangePtr &exchange)
{
    const QString name = exchange->params.value(0);
    if (!check(exchange, Validation::queueName(name)))
        return;
    const QByteArray &body = exchange->body();
    const Result<QList<JsonScanner::Member>> members =
        membersOf(body, m_context.options.maxJsonDepth, {QStringLiteral("action"), QStringLiteral("ids"), QStringLiteral("target")});
    if (!check(exchange, members))
        return;
    MessageAction action;
    bool haveAction = false;
    for (const JsonScanner::Member &member : *members) {
        const QJsonValue value = parsedValue(body, member.value);
        if (member.key == u"action") {
            const std::optional<MessageAction::Kind> kind =
                value.isString() ? messageActionFromName(value.toString()) : std::nullopt;
            if (!kind)
                return exchange->sendProblem(400, QStringLiteral("Invalid action: expected delete, requeue, move or dead_letter"));
            action.kind = *kind;
            haveAction = true;
        } else if (member.key == u"ids") {
            const Result<QList<QString>> ids = idList(value);
            if (!check(exchange, ids))
                return;
            action.ids = *ids;
        } else if (member.key == u"target") {
            if (!value.isString())
                return exchange->sendProblem(400, QStringLiteral("Invalid target: expected a queue name"));
            action.target = value.toString();
        }
    }
    if (!haveAction)
        return exchange->sendProblem(400, QStringLiteral("action is required: delete, requeue, move or dead_letter"));
    if (action.ids.isEmpty())
        return exchange->sendProblem(400, QStringLiteral("ids is required: the messages to act on"));
    if (action.ids.size() > MessageAction::MaxIds)
        return exchange->sendProblem(400, QStringLiteral("Too many ids: at most %1 per action").arg(MessageAction::MaxIds));
    if (action.kind == MessageAction::Kind::Move) {
        if (action.target.isEmpty())
            return exchange->sendProblem(400, QStringLiteral("target is required: the queue to move to"));
        if (!check(exchange, Validation::queueName(action.target)))
            return;
        if (action.target == name)
            return exchange->sendProblem(400, QStringLiteral("Invalid target: the messages are in that queue already"));
    } else if (!action.target.isEmpty()) {
        return exchange->sendProblem(400, QStringLiteral("Invalid target: only a move has one"));
    }

    // The permissions of the operations the action stands for.
    switch (action.kind) {
    case MessageAction::Kind::Delete:
    case MessageAction::Kind::DeadLetter:
        if (!m_context.permit(exchange, AccessPolicy::purge(name)))
            return;
        break;
    case MessageAction::Kind::Requeue:
        if (!m_context.permit(exchange, AccessPolicy::consume(name)))
            return;
        break;
    case MessageAction::Kind::Move:
        if (!m_context.permit(exchange, AccessPolicy::consume(name))
            || !m_context.permit(exchange, AccessPolicy::publish(action.target))) {
            return;
        }
        break;
    }
    action.user = exchange->user->id;
    const char *actionName = messageActionName(action.kind);
    m_context.broker.messageAction(name, action, [exchange, actionName](Result<MessageActionResult> result) {
        if (!check(exchange, result))
            return;
        JsonWriter out;
        out.beginObject().key("success").value(true).key("action").value(QString::fromLatin1(actionName));
        out.key("affected").value(result->affected).key("missing");
        writeIds(out, result->missing);
        out.endObject();
        exchange->sendJsonText(200, out.text());
    });
}

void MessageActionsController::redrive(const ExchangePtr &exchange)
{
    const QString name = exchange->params.value(0);
    if (!check(exchange, Validation::queueName(name)))
        return;
    const QByteArray &body = exchange->body();
    const Result<QList<JsonScanner::Member>> members =
        membersOf(body, m_context.options.maxJsonDepth,
                  {QStringLiteral("limit"), QStringLiteral("ids"), QStringLiteral("edits"), QStringLiteral("dry_run")});
    if (!check(exchange, members))
        return;
    RedriveRequest request;
    for (const JsonScanner::Member &member : *members) {
        if (member.key == u"edits") {
            // Edited payloads stay text, as published ones do: their key order is the editor's.
            const QByteArray text = body.mid(member.value.begin, member.value.size());
            const Result<QList<JsonScanner::Member>> edits = JsonScanner::objectMembers(text, m_context.options.maxJsonDepth);
            if (!edits)
                return exchange->sendProblem(400, QStringLiteral("Invalid edits: expected an object of message id to payload"));
            for (const JsonScanner::Member &edit : *edits)
                request.edits.insert(edit.key, JsonScanner::compact(text, edit.value));
            continue;
        }
        const QJsonValue value = parsedValue(body, member.value);
        if (member.key == u"limit") {
            const Result<qint64> limit = fieldInteger(QJsonObject{{QStringLiteral("limit"), value}}, "limit", 0,
                                                      std::numeric_limits<int>::max(), 0);
            if (!check(exchange, limit))
                return;
            request.limit = *limit;
        } else if (member.key == u"ids") {
            const Result<QList<QString>> ids = idList(value);
            if (!check(exchange, ids))
                return;
            request.ids = *ids;
        } else if (member.key == u"dry_run") {
            if (!value.isBool())
                return exchange->sendProblem(400, QStringLiteral("Invalid dry_run: expected true or false"));
            request.dryRun = value.toBool();
        }
    }
    if (!check(exchange, m_context.broker.checkRedrive(name, request))
        || !m_context.permit(exchange, AccessPolicy::purge(name))) {
        return;
    }
    request.user = exchange->user->id;
    const bool listed = request.dryRun || request.isSelective();
    m_context.broker.redrive(name, request, [exchange, listed, dryRun = request.dryRun](Result<RedriveResult> result) {
        if (!check(exchange, result))
            return;
        JsonWriter out;
        out.beginObject().key("success").value(true).key("moved").value(result->moved);
        out.key("dry_run").value(dryRun);
        if (listed) {
            // What changes, message by message: a dry run's diff, a selective run's record.
            out.key("messages").beginArray();
            for (const RedriveItem &item : result->messages) {
                out.beginObject().key("id").value(item.id).key("origin_queue").value(item.origin);
                out.key("before").raw(item.before).key("after").raw(item.after);
                out.key("edited").value(item.before != item.after).endObject();
            }
            out.endArray().key("missing");
            writeIds(out, result->missing);
        }
        out.endObject();
        exchange->sendJsonText(200, out.text());
    });
}

} // namespace Broker::Rest
