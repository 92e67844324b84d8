// SPDX-License-Identifier: GPL-3.0-or-later
#include "queuescontroller.h"

#include "core/jsonwriter.h"
#include "requestparsing.h"
#include "serializers.h"

#include "core/validation.h"

#include <QJsonArray>

#include <limits>

namespace Broker::Rest {

using Method = QHttpServerRequest::Method;

QueuesController::QueuesController(RestContext &context, Router &router) : Controller(context)
{
    const auto bind = [this](void (QueuesController::*handler)(const ExchangePtr &)) {
        return [this, handler](const ExchangePtr &exchange) { (this->*handler)(exchange); };
    };
    using namespace Api;
    const QString tag = QStringLiteral("queues");
    const ApiResponse badName = problem(400, QStringLiteral("`Invalid queue name`"));
    const ApiResponse denied = problem(403, QStringLiteral("`Unauthorized`: the key lacks the permission (`detail` names it)"));
    const ApiResponse missing = problem(404, QStringLiteral("`Queue not found`"));
    router.add({Method::Post, QStringLiteral("/queues"), QStringLiteral("Create a queue"), QStringLiteral("create_queue"), true,
                {QStringLiteral("createQueue"), tag, QStringLiteral("QueueCreateRequest"), true, {},
                 {ok(QStringLiteral("QueueCreated")),
                  problem(400, QStringLiteral("`Queue name is required`, `Invalid queue name`, `Invalid option '...'`, "
                                              "`Unknown queue type '...'`")),
                  denied, problem(409, QStringLiteral("`Queue already exists`")), problem(413, QStringLiteral("The body is too large"))}},
                bind(&QueuesController::create)});
    router.add({Method::Get, QStringLiteral("/queues"), QStringLiteral("List queues"), QStringLiteral("list_queues"), true,
                {QStringLiteral("listQueues"), tag, {}, false, {}, {ok(QStringLiteral("QueueList")), denied}},
                bind(&QueuesController::list)});
    router.add({Method::Get, QStringLiteral("/queues/{name}"), QStringLiteral("Queue detail"), QStringLiteral("list_queues"), true,
                {QStringLiteral("getQueue"), tag, {}, false, {}, {ok(QStringLiteral("Queue")), badName, denied, missing}},
                bind(&QueuesController::detail)});
    router.add({Method::Patch, QStringLiteral("/queues/{name}"),
                QStringLiteral("Change a queue's options (max_size, ttl, visibility_timeout, max_deliveries, dead_letter_queue)"),
                QStringLiteral("create_queue"), true,
                {QStringLiteral("updateQueue"), tag, QStringLiteral("QueueOptionsChange"), true, {},
                 {ok(QStringLiteral("Queue"), QStringLiteral("The queue, as GET /queues/{name} answers it")),
                  problem(400, QStringLiteral("`Invalid queue name`, `Unknown field '...'`, `Invalid options: expected an object`, "
                                              "an unknown or invalid option, or `type`")),
                  denied, missing, problem(413, QStringLiteral("The body is too large"))}},
                bind(&QueuesController::update)});
    router.add({Method::Delete, QStringLiteral("/queues/{name}"), QStringLiteral("Delete a queue and its messages"),
                QStringLiteral("delete_queue"), true,
                {QStringLiteral("deleteQueue"), tag, {}, false, {}, {ok(QStringLiteral("QueueDeleted")), badName, denied, missing}},
                bind(&QueuesController::remove)});
    router.add({Method::Post, QStringLiteral("/queues/{name}/purge"), QStringLiteral("Remove every message"),
                QStringLiteral("purge_queue:{name}"), true,
                {QStringLiteral("purgeQueue"), tag, {}, false, {}, {ok(QStringLiteral("QueuePurged")), badName, denied, missing}},
                bind(&QueuesController::purge)});
    const EngineOptions &engine = m_context.broker.options();
    const Validation::Range browseLimits = Validation::browseLimit(engine);
    router.add({Method::Get, QStringLiteral("/queues/{name}/messages"),
                QStringLiteral("Browse messages by state (ready, delayed, in_flight, dead) without consuming them; "
                               "search by payload text, header and id"),
                QStringLiteral("peek:{name}"), true,
                {QStringLiteral("browseMessages"), QStringLiteral("queue-administration"), {}, false,
                 {integer(QStringLiteral("offset"), 0, std::numeric_limits<int>::max(), 0, QStringLiteral("Messages to skip")),
                  integer(QStringLiteral("limit"), browseLimits.min, browseLimits.max, 50, QStringLiteral("Messages in the page")),
                  text(QStringLiteral("state"), QStringLiteral("Which messages (default: ready)"),
                       {QStringLiteral("ready"), QStringLiteral("delayed"), QStringLiteral("in_flight"), QStringLiteral("dead")}),
                  text(QStringLiteral("q"), QStringLiteral("Text the payload contains")),
                  text(QStringLiteral("header"), QStringLiteral("`key:value`: that header with that value; `key`: any message with the header")),
                  text(QStringLiteral("id"), QStringLiteral("Only the message with this id"))},
                 {ok(QStringLiteral("BrowsePage")),
                  problem(400, QStringLiteral("`Invalid queue name`, `Invalid offset: ...`, `Invalid limit: ...`, `Invalid state: ...`, "
                                              "`Invalid header filter: ...`")),
                  denied, missing}},
                bind(&QueuesController::browse)});
    router.add({Method::Get, QStringLiteral("/queues/{name}/events"), QStringLiteral("Recent message events of a queue"),
                QStringLiteral("peek:{name}"), true,
                {QStringLiteral("listQueueEvents"), QStringLiteral("queue-administration"), {}, false,
                 {integer(QStringLiteral("limit"), 1, 10'000, 100, QStringLiteral("Most recent events to answer"))},
                 {ok(QStringLiteral("QueueEvents")), problem(400, QStringLiteral("`Invalid queue name`, `Invalid limit: ...`")),
                  denied, missing}},
                bind(&QueuesController::events)});
}

void QueuesController::create(const ExchangePtr &exchange)
{
    const Result<QJsonObject> body = exchange->jsonBody(m_context.options.maxJsonDepth, false);
    if (!check(exchange, body))
        return;
    const QJsonValue nameValue = body->value(QStringLiteral("name"));
    if (!nameValue.isUndefined() && !nameValue.isNull() && !nameValue.isString())
        return exchange->sendProblem(400, QStringLiteral("Invalid queue name"));
    const QString name = nameValue.toString();
    if (!check(exchange, Validation::queueName(name)))
        return;
    const QJsonValue optionsValue = body->value(QStringLiteral("options"));
    if (!optionsValue.isUndefined() && !optionsValue.isNull() && !optionsValue.isObject())
        return exchange->sendProblem(400, QStringLiteral("Invalid options: expected an object"));
    const Result<QueueConfig> config =
        QueueConfig::fromOptions(name, optionsValue.toObject(), m_context.broker.options().queueDefaults);
    if (!check(exchange, config))
        return;
    if (!check(exchange, m_context.broker.checkQueueType(config->type))
        || !m_context.permit(exchange, QStringLiteral("create_queue"))) {
        return;
    }
    m_context.broker.createQueue(name, *config, [exchange](Result<QueueInfo> created) {
        if (!check(exchange, created))
            return;
        JsonWriter out;
        out.beginObject().key("success").value(true).key("queue").value(created->name);
        out.key("created").value(qint64(created->created)).key("config");
        writeQueueConfig(out, created->config);
        out.endObject();
        exchange->sendJsonText(200, out.text());
    });
}

void QueuesController::list(const ExchangePtr &exchange)
{
    if (!m_context.permit(exchange, QStringLiteral("list_queues")))
        return;
    m_context.broker.listQueues([exchange](Result<QList<QueueInfo>> queues) {
        if (!check(exchange, queues))
            return;
        JsonWriter out;
        out.beginObject().key("queues").beginArray();
        for (const QueueInfo &queue : *queues)
            writeQueue(out, queue, false);
        out.endArray().key("count").value(qint64(queues->size())).endObject();
        exchange->sendJsonText(200, out.text());
    });
}

void QueuesController::detail(const ExchangePtr &exchange)
{
    const QString name = exchange->params.value(0);
    if (!check(exchange, Validation::queueName(name)) || !m_context.permit(exchange, QStringLiteral("list_queues")))
        return;
    m_context.broker.queueInfo(name, [this, exchange](Result<QueueInfo> info) {
        if (!check(exchange, info))
            return;
        JsonWriter out;
        writeQueue(out, *info, true, durabilityName(m_context.options.durability));
        exchange->sendJsonText(200, out.text());
    });
}

void QueuesController::update(const ExchangePtr &exchange)
{
    const QString name = exchange->params.value(0);
    const Result<QJsonObject> body = exchange->jsonBody(m_context.options.maxJsonDepth, false);
    if (!check(exchange, Validation::queueName(name)) || !check(exchange, body))
        return;
    for (auto it = body->begin(); it != body->end(); ++it) {
        if (it.key() != u"options")
            return exchange->sendProblem(400, QStringLiteral("Unknown field '%1' (expected: options)").arg(it.key()));
    }
    const QJsonValue options = body->value(QStringLiteral("options"));
    if (!options.isObject())
        return exchange->sendProblem(400, QStringLiteral("Invalid options: expected an object"));
    const Result<QueueConfigChange> change = QueueConfigChange::fromOptions(name, options.toObject());
    if (!check(exchange, change) || !m_context.permit(exchange, QStringLiteral("create_queue")))
        return;
    m_context.broker.updateQueue(name, *change, [this, exchange](Result<QueueInfo> info) {
        if (!check(exchange, info))
            return;
        JsonWriter out;
        writeQueue(out, *info, true, durabilityName(m_context.options.durability));
        exchange->sendJsonText(200, out.text());
    });
}

void QueuesController::remove(const ExchangePtr &exchange)
{
    const QString name = exchange->params.value(0);
    if (!check(exchange, Validation::queueName(name)) || !m_context.permit(exchange, QStringLiteral("delete_queue")))
        return;
    m_context.broker.deleteQueue(name, [exchange](Result<qint64> deleted) {
        if (!check(exchange, deleted))
            return;
        QJsonObject json;
        json.insert(QStringLiteral("success"), true);
        json.insert(QStringLiteral("deleted_keys"), *deleted);
        exchange->sendJson(200, json);
    });
}

void QueuesController::purge(const ExchangePtr &exchange)
{
    const QString name = exchange->params.value(0);
    if (!check(exchange, Validation::queueName(name)) || !m_context.permit(exchange, AccessPolicy::purge(name)))
        return;
    m_context.broker.purgeQueue(name, [exchange](Result<qint64> purged) {
        if (!check(exchange, purged))
            return;
        QJsonObject json;
        json.insert(QStringLiteral("success"), true);
        json.insert(QStringLiteral("purged"), *purged);
        exchange->sendJson(200, json);
    });
}

void QueuesController::browse(const ExchangePtr &exchange)
{
    const QString name = exchange->params.value(0);
    const QueryParameters &query = exchange->query();
    const Result<qint64> offset = queryInteger(query, "offset", 0, std::numeric_limits<int>::max(), 0);
    const Validation::Range limits = Validation::browseLimit(m_context.broker.options());
    const Result<qint64> limit = queryInteger(query, "limit", limits.min, limits.max, 50);
    if (!check(exchange, Validation::queueName(name)) || !check(exchange, offset) || !check(exchange, limit))
        return;
    BrowseQuery browse;
    browse.offset = *offset;
    browse.limit = *limit;
    if (query.contains("state")) {
        const std::optional<MessageState> state = messageStateFromName(queryString(query, "state"));
        if (!state)
            return exchange->sendProblem(400, QStringLiteral("Invalid state: expected ready, delayed, in_flight or dead"));
        browse.state = *state;
    }
    browse.text = queryString(query, "q");
    browse.id = queryString(query, "id");
    // header=key:value matches that value; header=key, any message that has the header.
    const QString header = queryString(query, "header");
    if (query.contains("header")) {
        const qsizetype colon = header.indexOf(u':');
        browse.headerKey = colon < 0 ? header : header.left(colon);
        if (colon >= 0)
            browse.headerValue = header.mid(colon + 1);
        if (browse.headerKey.isEmpty())
            return exchange->sendProblem(400, QStringLiteral("Invalid header filter: expected key:value or key"));
    }
    if (!check(exchange, Validation::browseQuery(browse, m_context.broker.options()))
        || !m_context.permit(exchange, AccessPolicy::peek(name))) {
        return;
    }
    const char *state = messageStateName(browse.state);
    m_context.broker.browse(name, browse, [exchange, state](Result<BrowsePage> page) {
        if (!check(exchange, page))
            return;
        JsonWriter out;
        out.beginObject().key("messages").beginArray();
        for (const Message &message : page->messages)
            writeBrowsedMessage(out, message, state);
        out.endArray().key("total").value(page->total).key("next_offset");
        if (page->nextOffset >= 0)
            out.value(page->nextOffset);
        else
            out.null();
        out.key("state").value(QString::fromLatin1(state));
        out.key("scanned").value(page->scanned).key("truncated").value(page->truncated);
        out.endObject();
        exchange->sendJsonText(200, out.text());
    });
}

void QueuesController::events(const ExchangePtr &exchange)
{
    const QString name = exchange->params.value(0);
    const Result<qint64> limit = queryInteger(exchange->query(), "limit", 1, 10'000, 100);
    if (!check(exchange, Validation::queueName(name)) || !check(exchange, limit)
        || !m_context.permit(exchange, AccessPolicy::peek(name))) {
        return;
    }
    m_context.broker.queueInfo(name, [this, exchange, name, limit = *limit](Result<QueueInfo> info) {
        if (!check(exchange, info))
            return;
        const QStringList roles = exchange->user ? exchange->user->roles : QStringList();
        const auto mayPeek = [&](const QString &queue) { return m_context.policy.allows(roles, AccessPolicy::peek(queue)); };
        QJsonArray events;
        for (const MessageEvent &event : m_context.broker.queueEvents(name, int(limit)))
            events.append(eventJson(event, mayPeek));
        QJsonObject json;
        json.insert(QStringLiteral("events"), events);
        exchange->sendJson(200, json);
    });
}

} // namespace Broker::Rest
