// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "remotefeed.h" // RemoteEndpoint

#include "core/browsequery.h"
#include "core/definitionsimport.h"
#include "core/errorrecord.h"
#include "core/message.h"
#include "core/messageaction.h"
#include "core/messageevent.h"
#include "core/queueconfigchange.h"
#include "core/processorstatus.h"
#include "core/queueinfo.h"
#include "core/result.h"
#include "core/user.h"

#include <QFuture>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QObject>

#include <functional>
#include <list>
#include <memory>

class QNetworkReply;

namespace Broker {

// The desktop's administration commands (BrokerClient's) sent to a remote broker's REST API,
// with the key of `endpoint` in X-API-Key and, over https, only its CAs trusted when it names
// any. Every command answers with a future that finishes in this object's (the GUI's) thread
// when the reply has arrived; nothing blocks, and no event loop is nested.
//
// Results are the engine's: a broker's refusal comes back as the ErrorCode the in-process broker
// would have given (from the HTTP status and the broker's `error` text, which is the message
// shown), a broker out of reach as Unavailable saying why ("broker at https://host:8080 not
// reachable: connection refused"), a request without an answer by its deadline as Timeout. No
// error text ever holds the API key.
//
// At most MaxInFlight requests are out at a time; later calls wait their turn in order, never
// dropped. Each call has a deadline (deadlineMs(), counted from the call): a request still
// waiting then fails without being sent, one in flight is aborted. Destroying the object
// finishes every outstanding future with an Unavailable error at once; no reply reaches it after.
// Redirects are not followed: the key goes to the address it was given for and nowhere else.
// A future finishes from within the reply's signal: continue it with whenFinished() or
// QFuture::then(context, ...), and end a RemoteApi with deleteLater(), not from a continuation
// that runs synchronously.
class RemoteApi : public QObject
{
    Q_OBJECT
public:
    static constexpr int MaxInFlight = 4;
    static constexpr int DefaultDeadlineMs = 15'000;

    explicit RemoteApi(RemoteEndpoint endpoint, QObject *parent = nullptr);
    ~RemoteApi() override;

    const RemoteEndpoint &endpoint() const { return m_endpoint; }
    // For calls made from now on; at least 1 ms.
    void setDeadlineMs(int ms);
    int deadlineMs() const { return m_deadlineMs; }
    // Requests sent and not answered yet, and calls waiting to be sent.
    int inFlight() const { return int(m_inFlight.size()); }
    int waiting() const { return int(m_waiting.size()); }

    // POST /queues. The broker answers a new queue's name, creation time and configuration; the
    // rest of the QueueInfo is a new queue's (empty, counters 0).
    QFuture<Result<QueueInfo>> createQueue(const QString &name, const QueueConfig &config);
    // PATCH /queues/{q}: the options `change` names; the queue as it is afterwards.
    QFuture<Result<QueueInfo>> updateQueue(const QString &name, const QueueConfigChange &change);
    // DELETE /queues/{q}: the keys (messages and records) removed.
    QFuture<Result<qint64>> deleteQueue(const QString &name);
    // POST /queues/{q}/purge: the messages removed.
    QFuture<Result<qint64>> purgeQueue(const QString &name);
    // One message (POST /messages/{q}) or several (POST /messages/{q}/batch: all of them, in
    // order, or none). A batch's messages must share priority, delay, headers and key, which the
    // API takes once per batch; messages that differ are refused without a request.
    QFuture<Result<PublishResult>> publish(const QString &queue, const QList<NewMessage> &messages);
    // GET /queues/{q}/messages: the messages of one state, filtered by the broker (BrowseQuery:
    // state, page, payload text, header, id); payloads exactly as the broker holds them.
    QFuture<Result<BrowsePage>> browse(const QString &queue, const BrowseQuery &query);
    QFuture<Result<BrowsePage>> browse(const QString &queue, qint64 offset, qint64 limit);
    // POST /queues/{q}/redrive: dead-lettered messages back to their origin queues.
    QFuture<Result<RedriveResult>> redrive(const QString &queue, const RedriveRequest &request);
    // The same for up to `limit` of them (<= 0: all): how many moved.
    QFuture<Result<qint64>> redrive(const QString &queue, qint64 limit);
    // POST /queues/{q}/messages/actions: delete, requeue, move or dead-letter chosen messages.
    QFuture<Result<MessageActionResult>> messageAction(const QString &queue, const MessageAction &action);
    // GET /messages/{q}/{id}/events: the recorded steps of a message, oldest first.
    QFuture<Result<QList<MessageEvent>>> lifecycle(const QString &queue, const QString &messageId);

    // POST /users: the new user's key, which the broker shows this once.
    QFuture<Result<IssuedKey>> addUser(const QString &id, const QString &name, const QStringList &roles);
    // POST /users/{id}/rotate: the replacement key, shown this once.
    QFuture<Result<IssuedKey>> rotateKey(const QString &id);
    // PATCH /users/{id}.
    QFuture<Result<void>> setRoles(const QString &id, const QStringList &roles);
    QFuture<Result<void>> setDisabled(const QString &id, bool disabled);
    // DELETE /users/{id}.
    QFuture<Result<void>> removeUser(const QString &id);
    // GET /users (never keys).
    QFuture<Result<QList<User>>> users();

    // GET /processors: every processor's state (view_metrics).
    QFuture<Result<ProcessorStatusList>> processors();
    // GET /health's uptime: how long the broker has run, in seconds (the event stream leaves it
    // out, as it would make every update a change).
    QFuture<Result<qint64>> uptimeSeconds();
    // GET /definitions: queues with options, roles and users without keys, as one document.
    QFuture<Result<QJsonObject>> exportDefinitions();
    // POST /definitions: what was added, left alone or refused (new users' keys in it, once).
    QFuture<Result<DefinitionsImport>> importDefinitions(const QJsonObject &document);
    // GET /errors?limit=: the broker's most recent error records.
    QFuture<Result<QList<ErrorRecord>>> errors(int limit);

private:
    struct Request
    {
        QByteArray verb;         // GET, POST, PATCH, DELETE
        QString path;            // percent-encoded, below the endpoint's path
        QString query;           // percent-encoded, without '?'
        QByteArray body;         // JSON; empty: none
        ErrorCode notFound = ErrorCode::NotFound; // a 404 whose text names nothing known
    };
    // A 2xx answer: its text and, parsed, its object.
    struct Answer
    {
        QByteArray body;
        QJsonObject json;
    };
    using Delivery = std::function<void(Result<Answer>)>;
    struct Pending;

    // Sends `request` (or queues it) and finishes the returned future with `read`'s value of the
    // answer, or with the error the request ended in.
    template<typename T>
    QFuture<Result<T>> call(Request request, std::function<Result<T>(const Answer &)> read);
    void enqueue(Request request, Delivery deliver);
    void pump();
    void send(Pending *pending);
    void replied(Pending *pending);
    void expired(Pending *pending);
    std::unique_ptr<Pending> take(Pending *pending);
    Result<Answer> outcome(QNetworkReply *reply, const Pending &pending) const;
    QString where() const;
    QString withoutKey(QString text) const;

    RemoteEndpoint m_endpoint;
    QNetworkAccessManager m_network;
    int m_deadlineMs = DefaultDeadlineMs;
    std::list<std::unique_ptr<Pending>> m_waiting;  // in call order
    std::list<std::unique_ptr<Pending>> m_inFlight;
    bool m_closing = false;
};

} // namespace Broker
