// SPDX-License-Identifier: GPL-3.0-or-later
#include "messagescontroller.h"

#include "jsonscanner.h"
#include "core/jsonwriter.h"
#include "requestparsing.h"
#include "serializers.h"

#include "core/validation.h"

#include <QJsonArray>
#include <QJsonDocument>

#include <optional>

namespace Broker::Rest {

using Method = QHttpServerRequest::Method;

namespace {

// Reads the options every published message may carry (priority, delay, headers, key) into `message`.
Result<void> readPublishOptions(const QJsonObject &body, const EngineOptions &engine, NewMessage &message)
{
    if (body.isEmpty())
        return {}; // the defaults NewMessage starts with
    const Result<qint64> priority = fieldInteger(body, "priority", -1'000'000, 1'000'000, 0);
    if (!priority)
        return priority.error();
    const Validation::Range delays = Validation::delaySeconds(engine);
    const Result<double> delay = fieldNumber(body, "delay", double(delays.min), double(delays.max), 0);
    if (!delay)
        return delay.error();
    const QJsonValue headers = body.value(QStringLiteral("headers"));
    if (!headers.isUndefined() && !headers.isNull() && !headers.isObject())
        return Error{ErrorCode::InvalidArgument, QStringLiteral("Invalid headers: expected an object")};
    const QJsonValue key = body.value(QStringLiteral("key"));
    if (!key.isUndefined() && !key.isNull()
        && (!key.isString() || key.toString().isEmpty() || key.toString().size() > QueueLimits::MaxPartitionKeyLength))
        return Error{ErrorCode::InvalidArgument, QStringLiteral("Invalid key: expected a string of 1 to %1 characters")
                                                     .arg(QueueLimits::MaxPartitionKeyLength)};
    message.key = key.toString();
    message.priority = int(*priority);
    message.delayMs = qint64(*delay * 1000.0);
    message.headers = headers.toObject();
    return {};
}

// A publish body read with JsonScanner: the message value(s) stay text, taken from the body as
// they are (made compact); the few other members are parsed as JSON.
struct PublishBody
{
    QJsonObject options;            // priority, delay, headers, key
    std::optional<JsonSpan> payload; // "message" or "messages"
    QList<JsonSpan> payloadElements; // when the payload is an array
};

Result<PublishBody> readPublishBody(const QByteArray &body, const char *payloadKey, int maxDepth)
{
    const Result<QList<JsonScanner::Member>> members = JsonScanner::objectMembers(body, maxDepth);
    if (!members)
        return members.error();
    PublishBody result;
    for (const JsonScanner::Member &member : *members) {
        if (member.key == QLatin1StringView(payloadKey)) {
            result.payload = member.value;
            result.payloadElements = member.elements;
        } else if (member.key == u"priority" || member.key == u"delay" || member.key == u"headers"
                   || member.key == u"key") {
            if (const std::optional<QString> where = JsonScanner::numberOutOfRange(body, member.value)) {
                const QString path = where->isEmpty() || where->startsWith(u'[') ? member.key + *where
                                                                                  : member.key + u'.' + *where;
                return JsonScanner::numberOutOfRangeError(path);
            }
            const QByteArray text = '[' + body.mid(member.value.begin, member.value.size()) + ']';
            result.options.insert(member.key, QJsonDocument::fromJson(text).array().at(0));
        }
    }
    return result;
}

QByteArray published(const PublishResult &result, bool batch)
{
    JsonWriter out;
    out.beginObject().key("success").value(true);
    if (batch) {
        out.key("message_ids").beginArray();
        for (const quint64 sequence : result.messageSequences)
            out.messageId(sequence);
        out.endArray();
    } else {
        out.key("message_id").messageId(result.messageSequences.value(0));
    }
    out.key("queue_size").value(result.queueSize).endObject();
    return out.text();
}

} // namespace

MessagesController::MessagesController(RestContext &context, Router &router) : Controller(context)
{
    const auto bind = [this](void (MessagesController::*handler)(const ExchangePtr &)) {
        return [this, handler](const ExchangePtr &exchange) { (this->*handler)(exchange); };
    };
    using namespace Api;
    const QString tag = QStringLiteral("messages");
    const EngineOptions &engine = m_context.broker.options();
    const ApiResponse denied = problem(403, QStringLiteral("`Unauthorized`: the key lacks the permission (`detail` names it)"));
    const ApiResponse queueMissing = problem(404, QStringLiteral("`Queue not found`"));
    const ApiResponse tooLarge = problem(413, QStringLiteral("`Message too large (at most N bytes)`, or the body is too large"));
    const ApiResponse full = problem(429, QStringLiteral("`Queue size limit reached`, or a rate limit"));
    const ApiResponse badReference = problem(400, QStringLiteral("`Invalid queue name`, `Message id is required`, `Invalid JSON`, "
                                                                 "an invalid `receipt`, `group` or other field"));
    const ApiResponse messageMissing = problem(404, QStringLiteral("`Queue not found`, or `Message not found`: unknown, already "
                                                                   "acknowledged, or not leased"));
    const ApiResponse stale = problem(409, QStringLiteral("The receipt is stale: the lease ended and the message was leased again"));
    router.add({Method::Post, QStringLiteral("/messages/{queue}"), QStringLiteral("Publish a message"),
                QStringLiteral("publish:{queue}"), true,
                {QStringLiteral("publishMessage"), tag, QStringLiteral("PublishRequest"), true, {},
                 {ok(QStringLiteral("Published")),
                  problem(400, QStringLiteral("`Message is required`, `Invalid queue name`, `Invalid delay: ...`, `Invalid priority: ...`, "
                                              "`Invalid headers: expected an object`, `Invalid JSON`")),
                  denied, queueMissing, tooLarge, full}},
                bind(&MessagesController::publish)});
    router.add({Method::Post, QStringLiteral("/messages/{queue}/batch"), QStringLiteral("Publish several messages, all or nothing"),
                QStringLiteral("publish:{queue}"), true,
                {QStringLiteral("publishMessages"), tag, QStringLiteral("BatchPublishRequest"), true, {},
                 {ok(QStringLiteral("BatchPublished")),
                  problem(400, QStringLiteral("`Messages are required`, `Message is required` (a null in the batch), "
                                              "`Too many messages in one batch (at most N)`, `Invalid delay: ...`")),
                  denied, queueMissing, tooLarge, full}},
                bind(&MessagesController::publishBatch)});
    const Validation::Range counts = Validation::consumeCount(engine);
    const Validation::Range waits = Validation::waitSeconds(engine);
    const Validation::Range leases = Validation::visibilityTimeoutSeconds();
    router.add({Method::Get, QStringLiteral("/messages/{queue}"), QStringLiteral("Consume messages (acknowledge=false leases them)"),
                QStringLiteral("consume:{queue}"), true,
                {QStringLiteral("consumeMessages"), tag, {}, false,
                 {boolean(QStringLiteral("acknowledge"), true,
                          QStringLiteral("true: the message is acknowledged as it is taken; false: leased until acknowledged "
                                         "(`true`, `false`, `1` or `0`)")),
                  integer(QStringLiteral("count"), counts.min, counts.max, 1,
                          QStringLiteral("At most this many; above 1 the answer has `messages`")),
                  number(QStringLiteral("wait"), double(waits.min), double(waits.max), 0,
                         QStringLiteral("Seconds to wait for a message (long poll)")),
                  integer(QStringLiteral("visibility_timeout"), leases.min, leases.max, 0,
                          QStringLiteral("Lease in seconds (acknowledge=false); absent: the queue's")),
                  text(QStringLiteral("group"), QStringLiteral("Consumer group (stream queues)")),
                  text(QStringLiteral("consumer"), QStringLiteral("Consumer name within the group (stream queues)"))},
                 {ok(QStringLiteral("Consumed")), {204, {}, QStringLiteral("Nothing arrived within `wait` seconds"), {}},
                  problem(400, QStringLiteral("`Invalid queue name`, `Invalid count: ...`, `Invalid wait: ...`, "
                                              "`Invalid acknowledge: expected true or false`, "
                                              "`Invalid consumer group or consumer name`")),
                  denied, queueMissing}},
                bind(&MessagesController::consume)});
    router.add({Method::Put, QStringLiteral("/messages/{queue}/{id}"), QStringLiteral("Acknowledge a message"),
                QStringLiteral("consume:{queue}"), true,
                {QStringLiteral("acknowledgeMessage"), tag, QStringLiteral("AckRequest"), false, {},
                 {ok(QStringLiteral("Acknowledged")), badReference, denied, messageMissing, stale}},
                bind(&MessagesController::ack)});
    router.add({Method::Post, QStringLiteral("/messages/{queue}/{id}/nack"),
                QStringLiteral("Give a leased message back (optionally after a delay)"), QStringLiteral("consume:{queue}"), true,
                {QStringLiteral("nackMessage"), tag, QStringLiteral("NackRequest"), false, {},
                 {ok(QStringLiteral("Nacked")), badReference, denied, messageMissing, stale}},
                bind(&MessagesController::nack)});
    router.add({Method::Post, QStringLiteral("/messages/{queue}/{id}/extend"), QStringLiteral("Extend a lease"),
                QStringLiteral("consume:{queue}"), true,
                {QStringLiteral("extendLease"), tag, QStringLiteral("ExtendRequest"), true, {},
                 {ok(QStringLiteral("Extended")), badReference, denied, messageMissing, stale}},
                bind(&MessagesController::extend)});
    router.add({Method::Get, QStringLiteral("/messages/{queue}/{id}/events"), QStringLiteral("The recorded life of a message"),
                QStringLiteral("peek:{queue}"), true,
                {QStringLiteral("getMessageHistory"), QStringLiteral("queue-administration"), {}, false, {},
                 {ok(QStringLiteral("MessageHistory")), problem(400, QStringLiteral("`Invalid queue name`")), denied,
                  problem(404, QStringLiteral("`Message not found`: no recorded step in a queue the key may peek"))},
                 false},
                bind(&MessagesController::lifecycle)});
}

void MessagesController::publish(const ExchangePtr &exchange)
{
    const QString queue = exchange->params.value(0);
    if (!check(exchange, Validation::queueName(queue)))
        return;
    const Result<PublishBody> body = readPublishBody(exchange->body(), "message", m_context.options.maxJsonDepth);
    if (!check(exchange, body))
        return;
    NewMessage message;
    if (body->payload)
        message.data = JsonScanner::compact(exchange->body(), *body->payload);
    const EngineOptions &engine = m_context.broker.options();
    if (!check(exchange, Validation::messagePresent(message.data))
        || !check(exchange, readPublishOptions(body->options, engine, message))
        || !check(exchange, Validation::messageSize(message.data.size(), engine.maxMessageBytes))
        || !m_context.permit(exchange, AccessPolicy::publish(queue))) {
        return;
    }
    m_context.broker.publish(queue, {message}, exchange->user->id, [exchange](Result<PublishResult> result) {
        if (check(exchange, result))
            exchange->sendJsonText(200, published(*result, false));
    });
}

void MessagesController::publishBatch(const ExchangePtr &exchange)
{
    const QString queue = exchange->params.value(0);
    if (!check(exchange, Validation::queueName(queue)))
        return;
    const QByteArray &text = exchange->body();
    const Result<PublishBody> body = readPublishBody(text, "messages", m_context.options.maxJsonDepth);
    if (!check(exchange, body))
        return;
    const QList<JsonSpan> values = body->payload && text.at(body->payload->begin) == '[' ? body->payloadElements : QList<JsonSpan>{};
    if (values.isEmpty())
        return exchange->sendProblem(400, QStringLiteral("Messages are required"),
                                     QStringLiteral("Expected a non-empty array 'messages'"));
    const EngineOptions &engine = m_context.broker.options();
    NewMessage shared;
    if (!check(exchange, Validation::batchSize(values.size(), engine.maxBatch))
        || !check(exchange, readPublishOptions(body->options, engine, shared))) {
        return;
    }
    QList<NewMessage> messages;
    messages.reserve(values.size());
    for (const JsonSpan &value : values) {
        NewMessage message = shared;
        message.data = JsonScanner::compact(text, value);
        if (const Result<void> present = Validation::messagePresent(message.data); !present) {
            Error error = present.error();
            error.detail = QStringLiteral("Message %1 of the batch is null").arg(messages.size());
            return exchange->sendError(error);
        }
        if (!check(exchange, Validation::messageSize(message.data.size(), engine.maxMessageBytes)))
            return;
        messages.append(std::move(message));
    }
    if (!m_context.permit(exchange, AccessPolicy::publish(queue)))
        return;
    m_context.broker.publish(queue, messages, exchange->user->id, [exchange](Result<PublishResult> result) {
        if (check(exchange, result))
            exchange->sendJsonText(200, published(*result, true));
    });
}

void MessagesController::consume(const ExchangePtr &exchange)
{
    const QString queue = exchange->params.value(0);
    const QueryParameters &query = exchange->query();
    const EngineOptions &engine = m_context.broker.options();
    const Result<bool> acknowledge = queryBool(query, "acknowledge", true);
    const Validation::Range counts = Validation::consumeCount(engine);
    const Validation::Range waits = Validation::waitSeconds(engine);
    const Validation::Range leases = Validation::visibilityTimeoutSeconds();
    const Result<qint64> count = queryInteger(query, "count", counts.min, counts.max, 1);
    const Result<double> wait = queryNumber(query, "wait", double(waits.min), double(waits.max), 0);
    const Result<qint64> visibility = queryInteger(query, "visibility_timeout", leases.min, leases.max, 0);
    if (!check(exchange, Validation::queueName(queue)) || !check(exchange, acknowledge) || !check(exchange, count)
        || !check(exchange, wait) || !check(exchange, visibility)) {
        return;
    }
    ConsumeRequest request;
    request.count = int(*count);
    request.acknowledge = *acknowledge;
    request.visibilityTimeoutMs = *visibility * 1000;
    request.group = queryString(query, "group");
    request.consumer = queryString(query, "consumer");
    if (!check(exchange, Validation::consumerNames(request.group, request.consumer))
        || !m_context.permit(exchange, AccessPolicy::consume(queue)))
        return;
    request.user = exchange->user->id;
    // A long poll whose client left must not take a message off the queue for nobody.
    request.stillWanted = [weak = std::weak_ptr<Exchange>(exchange)] {
        const ExchangePtr alive = weak.lock();
        return alive && !alive->clientGone();
    };
    const bool single = !query.contains("count") || *count == 1;
    m_context.broker.consume(queue, request, qint64(*wait * 1000.0),
                             [exchange, single, acknowledge = *acknowledge](Result<QList<Message>> messages) {
                                 if (!check(exchange, messages))
                                     return;
                                 if (messages->isEmpty())
                                     return exchange->sendEmpty(204);
                                 JsonWriter out;
                                 out.beginObject();
                                 if (single) {
                                     out.key("message");
                                     writeMessage(out, messages->first());
                                 } else {
                                     out.key("messages").beginArray();
                                     for (const Message &message : *messages)
                                         writeMessage(out, message);
                                     out.endArray();
                                 }
                                 out.key("acknowledged").value(acknowledge).endObject();
                                 exchange->sendJsonText(200, out.text());
                             });
}

bool MessagesController::readMessageRef(const ExchangePtr &exchange, QJsonObject &body, MessageRef &ref)
{
    const QString queue = exchange->params.value(0);
    if (!check(exchange, Validation::queueName(queue))
        || !check(exchange, Validation::messageId(exchange->params.value(1)))) {
        return false;
    }
    const Result<QJsonObject> parsed = exchange->jsonBody(m_context.options.maxJsonDepth, true);
    if (!check(exchange, parsed))
        return false;
    body = *parsed;
    const Result<QString> receipt = fieldString(body, "receipt");
    const Result<QString> group = fieldString(body, "group");
    if (!check(exchange, receipt) || !check(exchange, group))
        return false;
    ref.id = exchange->params.value(1);
    ref.receipt = *receipt;
    ref.group = *group;
    return true;
}

void MessagesController::ack(const ExchangePtr &exchange)
{
    QJsonObject body;
    MessageRef ref;
    if (!readMessageRef(exchange, body, ref))
        return;
    const QString queue = exchange->params.value(0);
    if (!m_context.permit(exchange, AccessPolicy::consume(queue)))
        return;
    ref.user = exchange->user->id;
    m_context.broker.ack(queue, ref, [exchange](Result<void> result) {
        if (!check(exchange, result))
            return;
        QJsonObject json;
        json.insert(QStringLiteral("success"), true);
        json.insert(QStringLiteral("acknowledged"), true);
        exchange->sendJson(200, json);
    });
}

void MessagesController::nack(const ExchangePtr &exchange)
{
    QJsonObject body;
    MessageRef ref;
    if (!readMessageRef(exchange, body, ref))
        return;
    const Validation::Range delays = Validation::delaySeconds(m_context.broker.options());
    const Result<double> delay = fieldNumber(body, "delay", double(delays.min), double(delays.max), 0);
    const QString queue = exchange->params.value(0);
    if (!check(exchange, delay) || !m_context.permit(exchange, AccessPolicy::consume(queue)))
        return;
    ref.user = exchange->user->id;
    m_context.broker.nack(queue, ref, qint64(*delay * 1000.0), [exchange](Result<NackResult> result) {
        if (!check(exchange, result))
            return;
        QJsonObject json;
        json.insert(QStringLiteral("success"), true);
        json.insert(QStringLiteral("requeued"), result->requeued);
        json.insert(QStringLiteral("dead_lettered"), result->deadLettered);
        exchange->sendJson(200, json);
    });
}

void MessagesController::extend(const ExchangePtr &exchange)
{
    QJsonObject body;
    MessageRef ref;
    if (!readMessageRef(exchange, body, ref))
        return;
    if (!body.contains(QStringLiteral("visibility_timeout")))
        return exchange->sendProblem(400, QStringLiteral("Invalid visibility_timeout: required"));
    const Validation::Range leases = Validation::visibilityTimeoutSeconds();
    const Result<qint64> visibility = fieldInteger(body, "visibility_timeout", leases.min, leases.max, 0);
    const QString queue = exchange->params.value(0);
    if (!check(exchange, visibility) || !m_context.permit(exchange, AccessPolicy::consume(queue)))
        return;
    ref.user = exchange->user->id;
    m_context.broker.extend(queue, ref, *visibility * 1000, [exchange](Result<qint64> deadline) {
        if (!check(exchange, deadline))
            return;
        QJsonObject json;
        json.insert(QStringLiteral("success"), true);
        json.insert(QStringLiteral("visible_at"), unixSeconds(*deadline));
        exchange->sendJson(200, json);
    });
}

void MessagesController::lifecycle(const ExchangePtr &exchange)
{
    const QString queue = exchange->params.value(0);
    if (!check(exchange, Validation::queueName(queue)) || !m_context.permit(exchange, AccessPolicy::peek(queue)))
        return;
    // Message ids are sequential and can be enumerated: only steps in queues the caller may peek
    // are shown, and a message with none of those is as unknown as one that never existed.
    const QStringList roles = exchange->user ? exchange->user->roles : QStringList();
    const auto mayPeek = [&](const QString &name) { return m_context.policy.allows(roles, AccessPolicy::peek(name)); };
    QJsonArray array;
    for (const MessageEvent &event : m_context.broker.lifecycle(exchange->params.value(1))) {
        if (mayPeek(event.queue))
            array.append(eventJson(event, mayPeek));
    }
    if (array.isEmpty())
        return exchange->sendProblem(404, QStringLiteral("Message not found"),
                                     QStringLiteral("No recorded events for this message"));
    QJsonObject json;
    json.insert(QStringLiteral("message_id"), exchange->params.value(1));
    json.insert(QStringLiteral("events"), array);
    exchange->sendJson(200, json);
}

} // namespace Broker::Rest
