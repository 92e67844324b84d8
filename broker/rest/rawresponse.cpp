// SPDX-License-Identifier: GPL-3.0-or-later
#include "rawresponse.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace Broker::Rest {

QByteArray reasonPhrase(int status)
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

QByteArray buildResponse(int status, const HeaderList &headers, const QByteArray &body, bool headRequest)
{
    QByteArray out;
    out.reserve(256 + (headRequest ? 0 : body.size()));
    out += "HTTP/1.1 " + QByteArray::number(status) + ' ' + reasonPhrase(status) + "\r\n";
    for (const auto &[name, value] : headers)
        out += name + ": " + value + "\r\n";
    if (status != 204 && status != 304 && status >= 200)
        out += "Content-Length: " + QByteArray::number(body.size()) + "\r\n";
    out += "\r\n";
    if (!headRequest)
        out += body;
    return out;
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
