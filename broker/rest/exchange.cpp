// SPDX-License-Identifier: GPL-3.0-or-later
#include "exchange.h"

#include "connectionquota.h"
#include "jsonscanner.h"
#include "requestchannel.h"

#include "errors/logging.h"
#include "core/validation.h"

#include <algorithm>

#include <QJsonDocument>
#include <QJsonParseError>
#include <QRegularExpression>

namespace Broker::Rest {

int httpStatusFor(ErrorCode code)
{
    switch (code) {
    case ErrorCode::InvalidArgument: return 400;
    case ErrorCode::Unauthenticated: return 401;
    case ErrorCode::PermissionDenied: return 403;
    case ErrorCode::QueueNotFound:
    case ErrorCode::MessageNotFound:
    case ErrorCode::NotFound: return 404;
    case ErrorCode::QueueExists:
    case ErrorCode::StaleReceipt:
    case ErrorCode::Conflict: return 409;
    case ErrorCode::PayloadTooLarge: return 413;
    case ErrorCode::QueueFull:
    case ErrorCode::RateLimited: return 429;
    case ErrorCode::Internal: return 500;
    case ErrorCode::Unavailable: return 503;
    case ErrorCode::Timeout: return 504;
    }
    return 500;
}

namespace {

// The query as the client sent it: from the request line the guard read (no URL to make and read
// again), or from Qt's URL when there is no channel.
QueryParameters queryOf(const QHttpServerRequest &request, const RequestChannel *channel)
{
    if (!channel)
        return QueryParameters(request.url().query(QUrl::FullyEncoded).toLatin1());
    QByteArrayView target = channel->meta().head.target();
    if (const qsizetype fragment = target.indexOf('#'); fragment >= 0)
        target.truncate(fragment);
    const qsizetype mark = target.indexOf('?');
    return QueryParameters(mark < 0 ? QByteArrayView() : target.sliced(mark + 1));
}

} // namespace

Exchange::Exchange(const QHttpServerRequest &request, RequestChannel *channel)
    : m_channel(channel),
      m_method(request.method()),
      m_path(request.url().path(QUrl::FullyEncoded)), // the router decodes segment by segment
      m_query(queryOf(request, channel)),
      m_head(channel ? channel->meta().head : RequestHead{}),
      m_body(channel ? channel->meta().body : request.body()),
      m_remote(request.remoteAddress()),
      m_requestId(channel ? channel->meta().requestId : QByteArray()),
      m_requestNumber(channel ? channel->requestNumber() : 0)
{
    m_timer.start();
}

QString Exchange::clientLabel() const
{
    return m_channel ? m_channel->clientLabel() : ConnectionQuota::clientLabel(m_remote);
}

KeyMemo *Exchange::keyMemo() const
{
    return m_channel ? &m_channel->keyMemo() : nullptr;
}

QHostAddress Exchange::remoteAddress() const
{
    return m_remote;
}

bool Exchange::clientGone() const
{
    return !m_channel || m_channel->isClientGone();
}

bool Exchange::isHead() const
{
    return m_method == QHttpServerRequest::Method::Head;
}

Result<QJsonObject> Exchange::jsonBody(int maxDepth, bool allowEmpty) const
{
    if (m_body.trimmed().isEmpty()) {
        if (allowEmpty)
            return QJsonObject{};
        return Error{ErrorCode::InvalidArgument, QStringLiteral("Request body must be a JSON object")};
    }
    if (const Result<void> depth = Validation::jsonDepthWithin(m_body, maxDepth); !depth)
        return depth.error();
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(m_body, &parseError);
    if (parseError.error != QJsonParseError::NoError) {
        // Qt refuses a number beyond a double's range as if the text were broken: name the field.
        if (const std::optional<QString> where = JsonScanner::numberOutOfRange(m_body, maxDepth))
            return JsonScanner::numberOutOfRangeError(*where);
        return Error{ErrorCode::InvalidArgument, QStringLiteral("Invalid JSON"),
                     QStringLiteral("At offset %1: %2").arg(parseError.offset).arg(parseError.errorString())};
    }
    if (!document.isObject())
        return Error{ErrorCode::InvalidArgument, QStringLiteral("Request body must be a JSON object")};
    // Qt reads a nonzero number too small for a double as 0.
    if (const std::optional<QString> where = JsonScanner::numberOutOfRange(m_body, maxDepth))
        return JsonScanner::numberOutOfRangeError(*where);
    return document.object();
}

void Exchange::sendJson(int status, const QJsonObject &body)
{
    send(status, "application/json", QJsonDocument(body).toJson(QJsonDocument::Compact));
}

void Exchange::sendJsonText(int status, const QByteArray &json)
{
    send(status, "application/json", json);
}

void Exchange::sendText(int status, const QByteArray &contentType, const QByteArray &body)
{
    send(status, contentType, body);
}

void Exchange::sendEmpty(int status)
{
    send(status, QByteArray(), QByteArray());
}

void Exchange::sendProblem(int status, const QString &error, const QString &detail)
{
    send(status, "application/problem+json", problemJson(status, error, detail, m_requestId));
}

void Exchange::sendError(const Error &error)
{
    // gCore answers permission failures with the bare word; the detail says what was missing.
    if (error.code == ErrorCode::PermissionDenied)
        return sendProblem(403, QStringLiteral("Unauthorized"), error.message);
    const int status = httpStatusFor(error.code);
    // Storage that cannot take changes now (Redis out of reach, journal writes failing) retries
    // by itself: tell clients when to try again.
    if (status == 503 && std::none_of(extraHeaders.cbegin(), extraHeaders.cend(),
                                      [](const auto &header) { return header.first.compare("Retry-After", Qt::CaseInsensitive) == 0; }))
        addHeader("Retry-After", "1");
    if (status < 500)
        return sendProblem(status, error.message, error.detail);
    // A server-side failure is described by the component that failed, with what the operator
    // needs (files, errno): all of it goes to the log, the client gets it without paths. Storage
    // that is out of reach or read-only (503, 504) is logged by the error manager, once per
    // interval however many requests it refuses.
    if (status != 503 && status != 504)
        qCWarning(lcErrors).noquote() << "request" << m_requestId << "answered" << status << error.message
                                  << (error.detail.isEmpty() ? QString() : QStringLiteral("(%1)").arg(error.detail));
    sendProblem(status, withoutPaths(error.message), withoutPaths(error.detail));
}

QString withoutPaths(const QString &text)
{
    // An absolute or home-relative path not glued to a word ("I/O", "read/write" stay), up to
    // whitespace, a quote or punctuation that ends a clause.
    static const QRegularExpression path(QStringLiteral(R"((?<![\w.~/-])(?:~?/|[A-Za-z]:\\)[^\s'"`,;()]*[^\s'"`,;().:])"));
    QString out = text;
    out.replace(path, QStringLiteral("[path]"));
    return out;
}

bool Exchange::startStream(int status, const QByteArray &contentType)
{
    if (m_answered || !m_channel || !m_channel->isAnswerable(m_requestNumber) || clientGone())
        return false;
    m_answered = true;
    m_streaming = true;
    m_status = status;
    m_chunked = m_head.minorVersion != 0;
    // The head of a response without a length: ResponseBuilder announces one, so it is written here.
    QByteArray head = "HTTP/1.1 " + QByteArray::number(status) + ' ' + reasonPhrase(status).toByteArray() + "\r\n";
    head += "Content-Type: " + contentType + "\r\nX-Request-ID: " + m_requestId
        + "\r\nCache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n";
    for (const auto &[name, value] : extraHeaders)
        head += name + ": " + value + "\r\n";
    head += m_chunked ? "Transfer-Encoding: chunked\r\n\r\n" : "Connection: close\r\n\r\n";
    m_channel->write(head);
    m_channel->flushPart();
    if (onAnswered)
        onAnswered(*this);
    return true;
}

void Exchange::streamWrite(const QByteArray &bytes)
{
    if (!m_streaming || bytes.isEmpty() || !m_channel || !m_channel->isAnswerable(m_requestNumber))
        return;
    if (m_chunked) {
        m_channel->write(QByteArray::number(bytes.size(), 16) + "\r\n");
        m_channel->write(bytes);
        m_channel->write("\r\n");
    } else {
        m_channel->write(bytes);
    }
    m_channel->flushPart();
}

void Exchange::endStream()
{
    if (!m_streaming)
        return;
    m_streaming = false;
    if (!m_channel || !m_channel->isAnswerable(m_requestNumber))
        return;
    if (m_chunked)
        m_channel->write("0\r\n\r\n");
    m_channel->finishResponse(true);
}

qint64 Exchange::unsentBytes() const
{
    return m_channel ? m_channel->pendingOutput() : 0;
}

void Exchange::whenClientLeaves(QObject *context, std::function<void()> then)
{
    if (!m_channel)
        return;
    QObject::connect(m_channel.data(), &RequestChannel::clientLeft, context, std::move(then), Qt::SingleShotConnection);
}

void Exchange::send(int status, const QByteArray &contentType, const QByteArray &body)
{
    if (m_answered)
        return;
    m_answered = true;
    m_status = status;
    if (m_channel && m_channel->isAnswerable(m_requestNumber)) {
        const bool close = m_closeAfter || !m_channel->meta().keepAlive;
        ResponseBuilder response(status, body, isHead());
        if (!contentType.isEmpty())
            response.header("Content-Type", contentType);
        response.header("X-Request-ID", m_requestId).header("Cache-Control", "no-store").header("X-Content-Type-Options", "nosniff");
        for (const auto &[name, value] : extraHeaders)
            response.header(name, value);
        if (close)
            response.header("Connection", "close");
        m_channel->write(response.finish());
        m_channel->finishResponse(close);
    }
    if (onAnswered)
        onAnswered(*this);
}

} // namespace Broker::Rest
