// SPDX-License-Identifier: GPL-3.0-or-later
#include "rawresponse.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace Broker::Rest {

QByteArrayView reasonPhrase(int status)
{
    switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 204: return "No Content";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 413: return "Content Too Large";
    case 415: return "Unsupported Media Type";
    case 417: return "Expectation Failed";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 505: return "HTTP Version Not Supported";
    default: return "Status";
    }
}

ResponseBuilder::ResponseBuilder(int status, const QByteArray &body, bool headRequest)
    : m_status(status), m_body(body), m_headRequest(headRequest)
{
    m_out.reserve(256 + (headRequest ? 0 : body.size()));
    m_out.append("HTTP/1.1 ").append(QByteArray::number(status)).append(' ').append(reasonPhrase(status)).append("\r\n");
}

ResponseBuilder &ResponseBuilder::header(QByteArrayView name, QByteArrayView value)
{
    m_out.append(name).append(": ").append(value).append("\r\n");
    return *this;
}

QByteArray ResponseBuilder::finish()
{
    if (m_status != 204 && m_status != 304 && m_status >= 200)
        header("Content-Length", QByteArray::number(m_body.size()));
    m_out.append("\r\n");
    if (!m_headRequest)
        m_out.append(m_body);
    return std::move(m_out);
}

QByteArray buildResponse(int status, const HeaderList &headers, const QByteArray &body, bool headRequest)
{
    ResponseBuilder response(status, body, headRequest);
    for (const auto &[name, value] : headers)
        response.header(name, value);
    return response.finish();
}

QByteArray problemJson(int status, const QString &error, const QString &detail, const QByteArray &requestId)
{
    QJsonObject problem;
    problem.insert(QStringLiteral("error"), error);
    problem.insert(QStringLiteral("title"), error);
    problem.insert(QStringLiteral("status"), status);
    problem.insert(QStringLiteral("detail"), detail.isEmpty() ? error : detail);
    problem.insert(QStringLiteral("request_id"), QString::fromLatin1(requestId));
    return QJsonDocument(problem).toJson(QJsonDocument::Compact);
}

} // namespace Broker::Rest
