// SPDX-License-Identifier: GPL-3.0-or-later
#include "rawresponse.h"

#include <cstring>

#include <QJsonDocument>
#include <QJsonObject>

namespace Broker::Rest {

namespace {

// `value` (>= 0) in decimal digits, without a call into the C library's formatting.
template<qsizetype N>
void appendDecimal(QVarLengthArray<char, N> &out, qint64 value)
{
    char digits[20];
    int count = 0;
    do {
        digits[count++] = char('0' + value % 10);
        value /= 10;
    } while (value > 0 && count < 20);
    while (count > 0)
        out.append(digits[--count]);
}

} // namespace

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
    const QByteArrayView reason = reasonPhrase(status);
    m_head.append("HTTP/1.1 ", 9);
    appendDecimal(m_head, status);
    m_head.append(' ');
    m_head.append(reason.data(), reason.size());
    m_head.append("\r\n", 2);
}

ResponseBuilder &ResponseBuilder::header(QByteArrayView name, QByteArrayView value)
{
    m_head.append(name.data(), name.size());
    m_head.append(": ", 2);
    m_head.append(value.data(), value.size());
    m_head.append("\r\n", 2);
    return *this;
}

QByteArray ResponseBuilder::finish()
{
    if (m_status != 204 && m_status != 304 && m_status >= 200) {
        m_head.append("Content-Length: ", 16);
        appendDecimal(m_head, m_body.size());
        m_head.append("\r\n", 2);
    }
    m_head.append("\r\n", 2);
    const qsizetype bodySize = m_headRequest ? 0 : m_body.size();
    QByteArray out(m_head.size() + bodySize, Qt::Uninitialized);
    std::memcpy(out.data(), m_head.constData(), size_t(m_head.size()));
    if (bodySize > 0)
        std::memcpy(out.data() + m_head.size(), m_body.constData(), size_t(bodySize));
    return out;
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
