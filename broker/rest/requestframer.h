// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/httpoptions.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QVarLengthArray>

namespace Broker::Rest {

// What the guard learnt of a request's head: its own copy of the head's bytes, with the request
// line's parts and every field as places in it, so that reading a head allocates once however
// many fields it has.
class RequestHead
{
public:
    QByteArrayView method() const { return view(m_method); }
    QByteArrayView target() const { return view(m_target); }
    bool isHead() const { return method() == "HEAD"; } // answered like GET, without the body
    int minorVersion = 1;          // HTTP/1.minorVersion
    qint64 contentLength = 0;      // -1 when chunked
    bool chunked = false;
    bool expectContinue = false;
    bool keepAlive = true;         // HTTP/1.1 unless "Connection: close"; HTTP/1.0 only with "keep-alive"

    // The first field of that name (case-insensitive), trimmed; empty when there is none.
    QByteArrayView field(QByteArrayView name) const;
    qsizetype fieldCount() const { return m_fields.size(); }
    QByteArrayView fieldName(qsizetype i) const { return view(m_fields[i].name); }
    QByteArrayView fieldValue(qsizetype i) const { return view(m_fields[i].value); }

private:
    friend class RequestFramer;
    struct Span
    {
        qsizetype at = 0;
        qsizetype size = 0;
    };
    struct Field
    {
        Span name;
        Span value;
    };
    QByteArrayView view(Span span) const { return QByteArrayView(m_bytes.constData() + span.at, span.size); }

    QByteArray m_bytes;
    Span m_method;
    Span m_target;
    QVarLengthArray<Field, 12> m_fields;
};

// Finds where one HTTP/1.x request ends in a byte stream, without buffering it again and
// without trusting it: the head is bounded in bytes and fields, the body by Content-Length or
// chunked framing and counted against the body limit as it arrives. One framer per request;
// call progress() with the connection's buffer (which starts with this request) whenever more
// bytes arrived. Scanning resumes where it stopped.
class RequestFramer
{
public:
    enum class Status {
        NeedMore,  // incomplete; call again with more bytes
        Complete,  // messageBytes() bytes at the buffer's start are the whole request
        Error,     // refuse with errorStatus() and close the connection
    };

    explicit RequestFramer(const HttpLimits &limits) : m_limits(limits) {}

    Status progress(const QByteArray &buffer);

    bool headComplete() const { return m_headBytes > 0; }
    const RequestHead &head() const { return m_head; }
    RequestHead takeHead() { return std::move(m_head); }
    qsizetype messageBytes() const { return m_messageBytes; }
    // Once Complete: the request's body out of `buffer` (the one given to progress()), with a
    // chunked body decoded.
    QByteArray body(const QByteArray &buffer) const;
    int errorStatus() const { return m_errorStatus; }
    const QByteArray &errorReason() const { return m_errorReason; }

private:
    Status fail(int status, const char *reason);
    qsizetype findHeadEnd(const QByteArray &buffer); // -1: not yet, or fail() was called
    Status parseHead(const QByteArray &buffer, qsizetype end);
    Status parseRequestLine(QByteArrayView line);
    Status parseField(QByteArrayView line, qsizetype lineAt, bool &haveLength);
    Status scanChunks(const QByteArray &buffer);

    HttpLimits m_limits;
    RequestHead m_head;
    qsizetype m_headBytes = 0;     // 0 until the head is complete
    qsizetype m_headStart = 0;     // after the empty lines that may precede the request line
    qsizetype m_scanFrom = 0;      // where the search for the head's end resumes
    qsizetype m_chunkPos = 0;      // chunked: next byte to read
    qint64 m_chunkRemaining = 0;   // chunked: data bytes left in the current chunk
    bool m_expectDataEnd = false;  // chunked: the CRLF after a chunk's data comes next
    bool m_inTrailers = false;
    qint64 m_bodyBytes = 0;        // decoded body bytes so far
    QList<QPair<qsizetype, qsizetype>> m_chunkData; // chunked: where each chunk's data is (start, size)
    qsizetype m_messageBytes = 0;
    int m_errorStatus = 0;
    QByteArray m_errorReason;
};

} // namespace Broker::Rest
