// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QPair>
#include <QVarLengthArray>

namespace Broker::Rest {

using HeaderList = QList<QPair<QByteArray, QByteArray>>;

// The reason phrase of a status code ("Not Found").
QByteArrayView reasonPhrase(int status);

// Writes a complete HTTP/1.1 response into one buffer, allocated once: the status line, the
// headers given, Content-Length (none for 1xx, 204 and 304), then the body. With `headRequest`
// the body is left out but its length is still announced (RFC 9110, 9.3.2). The head is put
// together on the stack (memcpy per piece: QByteArray::append costs ~110 instructions a call)
// and copied once, with the body, into the response.
class ResponseBuilder
{
public:
    ResponseBuilder(int status, const QByteArray &body, bool headRequest = false);
    ResponseBuilder &header(QByteArrayView name, QByteArrayView value);
    QByteArray finish();

private:
    int m_status;
    const QByteArray &m_body;
    bool m_headRequest;
    QVarLengthArray<char, 512> m_head;
};

QByteArray buildResponse(int status, const HeaderList &headers, const QByteArray &body, bool headRequest = false);

// An RFC 9457 problem document that also carries gCore's `error` field.
QByteArray problemJson(int status, const QString &error, const QString &detail, const QByteArray &requestId);

} // namespace Broker::Rest
