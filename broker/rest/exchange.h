// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "queryparameters.h"
#include "rawresponse.h"
#include "requestframer.h"

#include "core/result.h"
#include "security/userdirectory.h"

#include <QByteArray>
#include <QElapsedTimer>
#include <QHostAddress>
#include <QHttpServerRequest>
#include <QJsonArray>
#include <QJsonObject>
#include <QPointer>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>
#include <optional>

namespace Broker::Rest {

class RequestChannel;
struct KeyMemo;

// One request and the means to answer it, shared by whatever answers it (possibly later, from a
// storage callback). Answering twice is ignored; answering after the client left is harmless: the
// channel keeps the reply until the guard drops it. Answers are written whole onto the request's
// channel (one write instead of QHttpServerResponder's one per header line).
class Exchange
{
public:
    Exchange(const QHttpServerRequest &request, RequestChannel *channel);

    // The request: method and URL as QHttpServer parsed them, fields and body as the guard did.
    QHttpServerRequest::Method method() const { return m_method; }
    const QString &path() const { return m_path; }
    const QueryParameters &query() const { return m_query; }
    QByteArrayView header(QByteArrayView name) const { return m_head.field(name); } // case-insensitive
    const QByteArray &body() const { return m_body; }
    QHostAddress remoteAddress() const;
    const QByteArray &requestId() const { return m_requestId; }
    bool isHead() const;

    // Filled in by the server while it routes.
    QString route;             // the matched route's pattern, for metrics
    QStringList params;        // path parameters, in pattern order
    std::optional<User> user;  // a copy: the directory may change while an answer is pending
    HeaderList extraHeaders;   // CORS and the like, added to whatever the answer is
    void addHeader(const QByteArray &name, const QByteArray &value) { extraHeaders.append(qMakePair(name, value)); }

    // Body parsing: 400 for invalid JSON, non-objects, and nesting deeper than `maxDepth`.
    Result<QJsonObject> jsonBody(int maxDepth, bool allowEmpty) const;

    void sendJson(int status, const QJsonObject &body);
    // `json` is compact JSON text made by the caller (hot paths write it directly).
    void sendJsonText(int status, const QByteArray &json);
    void sendText(int status, const QByteArray &contentType, const QByteArray &body);
    void sendEmpty(int status);
    // A problem document with gCore's `error` string; `detail` defaults to it.
    void sendProblem(int status, const QString &error, const QString &detail = {});
    // An engine error, mapped to its HTTP status.
    void sendError(const Error &error);
    void sendClose(bool close) { m_closeAfter = close; }

    // A response whose body goes out in pieces as they are written (an event stream): the head now,
    // each streamWrite() at once, one chunk each (HTTP/1.1 chunked; an HTTP/1.0 body ends with the
    // connection), and endStream() ends the body and closes the connection. False when the exchange
    // was answered already or its client has left. Metrics record the stream once it has started.
    bool startStream(int status, const QByteArray &contentType);
    void streamWrite(const QByteArray &bytes);
    void endStream();
    bool streaming() const { return m_streaming; }
    // What the client has not taken yet of what was written to it (0 once it left).
    qint64 unsentBytes() const;
    // Calls `then` (once, in `context`'s thread) when the client closes its connection while this
    // exchange is being answered.
    void whenClientLeaves(QObject *context, std::function<void()> then);

    bool answered() const { return m_answered; }
    // True once the client has closed its connection.
    bool clientGone() const;
    // The client as per-client limits see it ("192.0.2.7", "2001:db8:1:2::/64").
    QString clientLabel() const;
    // What the request's connection remembers of its last authenticated key; null once the
    // connection is gone.
    KeyMemo *keyMemo() const;
    int status() const { return m_status; }
    qint64 elapsedNs() const { return m_timer.nsecsElapsed(); }
    // Runs once the answer is written (metrics).
    std::function<void(const Exchange &)> onAnswered;

private:
    void send(int status, const QByteArray &contentType, const QByteArray &body);

    QPointer<RequestChannel> m_channel;
    QHttpServerRequest::Method m_method;
    QString m_path;
    QueryParameters m_query;
    RequestHead m_head;
    QByteArray m_body;
    QHostAddress m_remote;
    QByteArray m_requestId;
    quint64 m_requestNumber;  // of the channel's request this answers
    QElapsedTimer m_timer;
    bool m_answered = false;
    bool m_closeAfter = false;
    bool m_streaming = false;
    bool m_chunked = false;
    int m_status = 0;
};

using ExchangePtr = std::shared_ptr<Exchange>;

// The one place where engine errors become HTTP statuses.
int httpStatusFor(ErrorCode code);

// `text` with file-system paths ("/var/lib/x/journal", "~/x", "C:\\x") replaced by "[path]":
// what a server-side error may say on the wire. The log keeps the original.
QString withoutPaths(const QString &text);

} // namespace Broker::Rest
