// SPDX-License-Identifier: GPL-3.0-or-later
#include "requestframer.h"

#include <cstring>

namespace Broker::Rest {

namespace {

bool isTokenChar(char c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        return true;
    return std::strchr("!#$%&'*+-.^_`|~", c) != nullptr && c != 0;
}

bool isToken(QByteArrayView text)
{
    if (text.isEmpty())
        return false;
    for (char c : text) {
        if (!isTokenChar(c))
            return false;
    }
    return true;
}

bool isHexDigit(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// Whether the comma-separated list `list` holds `token` (case-insensitive).
bool containsToken(QByteArrayView list, QByteArrayView token)
{
    while (!list.isEmpty()) {
        const qsizetype comma = list.indexOf(',');
        const QByteArrayView part = (comma < 0 ? list : list.first(comma)).trimmed();
        if (part.compare(token, Qt::CaseInsensitive) == 0)
            return true;
        if (comma < 0)
            break;
        list = list.sliced(comma + 1);
    }
    return false;
}

bool isImplementedMethod(QByteArrayView method)
{
    for (const char *known : {"GET", "POST", "PUT", "DELETE", "HEAD", "PATCH", "OPTIONS"}) {
        if (method == known)
            return true;
    }
    return false;
}

} // namespace

QByteArrayView RequestHead::field(QByteArrayView name) const
{
    for (const Field &field : m_fields) {
        if (field.name.size == name.size() && view(field.name).compare(name, Qt::CaseInsensitive) == 0)
            return view(field.value);
    }
    return {};
}

RequestFramer::Status RequestFramer::fail(int status, const char *reason)
{
    m_errorStatus = status;
    m_errorReason = reason;
    return Status::Error;
}

RequestFramer::Status RequestFramer::progress(const QByteArray &buffer)
{
    if (m_errorStatus != 0)
        return Status::Error;
    if (m_messageBytes > 0)
        return Status::Complete;

    if (m_headBytes == 0) {
        const qsizetype end = findHeadEnd(buffer);
        if (m_errorStatus != 0)
            return Status::Error;
        if (end < 0) {
            if (buffer.size() > m_limits.maxHeaderBytes)
                return fail(431, "Request header fields too large");
            return Status::NeedMore;
        }
        if (end > m_limits.maxHeaderBytes)
            return fail(431, "Request header fields too large");
        if (const Status status = parseHead(buffer, end); status == Status::Error)
            return status;
        m_headBytes = end;
        m_chunkPos = end;
    }

    if (m_head.chunked)
        return scanChunks(buffer);
    if (buffer.size() - m_headBytes < m_head.contentLength)
        return Status::NeedMore;
    m_messageBytes = m_headBytes + qsizetype(m_head.contentLength);
    return Status::Complete;
}

qsizetype RequestFramer::findHeadEnd(const QByteArray &buffer)
{
    // Every line of a head ends in CRLF (RFC 9112, 2.2). A bare LF or CR is refused rather than
    // guessed at: a proxy in front that reads it differently would see other requests than we do.
    // Empty lines before the request line are skipped (ibid.); the scan resumes where it stopped.
    // It goes a line at a time with memchr: the next LF, then any CR before the one ending it.
    const char *data = buffer.constData();
    const qsizetype size = buffer.size();
    qsizetype i = m_scanFrom;
    while (i < size) {
        const auto *lf = static_cast<const char *>(std::memchr(data + i, '\n', std::size_t(size - i)));
        const qsizetype crEnd = lf ? lf - data - 1 : size; // a CR right before the LF is the line's end
        if (crEnd > i) {
            if (const auto *cr = static_cast<const char *>(std::memchr(data + i, '\r', std::size_t(crEnd - i)))) {
                if (!lf && cr - data == size - 1) {
                    m_scanFrom = size - 1; // look at it again once the next byte is there
                    return -1;
                }
                fail(400, "Bare CR in the request head");
                return -1;
            }
        }
        if (!lf)
            break;
        const qsizetype n = lf - data;
        if (n == 0 || data[n - 1] != '\r') {
            fail(400, "Bare LF in the request head");
            return -1;
        }
        i = n + 1;
        if (n + 1 == m_headStart + 2) { // an empty line before the request line
            m_headStart = n + 1;
            continue;
        }
        if (n >= m_headStart + 3 && data[n - 2] == '\n')
            return n + 1;
    }
    m_scanFrom = size;
    return -1;
}

RequestFramer::Status RequestFramer::parseHead(const QByteArray &buffer, qsizetype end)
{
    // One copy of the head, and the request line and fields as places in it. findHeadEnd() made
    // sure that every LF ends a CRLF and that none is bare.
    m_head.m_bytes = buffer.sliced(m_headStart, end - m_headStart);
    const QByteArray &bytes = m_head.m_bytes;
    qsizetype start = 0;
    bool requestLine = true;
    bool haveLength = false;
    for (qsizetype i = bytes.indexOf('\n'); i >= 0; i = bytes.indexOf('\n', start)) {
        const QByteArrayView line(bytes.constData() + start, i - 1 - start);
        const qsizetype lineAt = start;
        start = i + 1;
        if (line.isEmpty())
            break; // the empty line that ends the head
        const Status status = requestLine ? parseRequestLine(line) : parseField(line, lineAt, haveLength);
        if (status == Status::Error)
            return status;
        requestLine = false;
        if (m_head.m_fields.size() > m_limits.maxHeaderFields)
            return fail(431, "Too many request header fields");
    }
    if (requestLine)
        return fail(400, "Bad request line");
    if (m_head.minorVersion == 0 && m_head.field("connection").isEmpty())
        m_head.keepAlive = false;
    if (m_head.minorVersion == 0 && m_head.chunked)
        return fail(400, "Chunked transfer coding needs HTTP/1.1");
    // A request with both is how request smuggling starts: refuse it (RFC 9112, 6.3).
    if (m_head.chunked && haveLength)
        return fail(400, "Both Content-Length and Transfer-Encoding");
    if (m_head.chunked)
        m_head.contentLength = -1;
    else if (m_head.contentLength > m_limits.maxBodyBytes)
        return fail(413, "Request body too large");
    return Status::Complete; // the head is; the caller goes on with the body
}

RequestFramer::Status RequestFramer::parseRequestLine(QByteArrayView line)
{
    // method SP request-target SP HTTP-version, with exactly one space between (RFC 9112, 3).
    const qsizetype first = line.indexOf(' ');
    const qsizetype second = first < 0 ? -1 : line.indexOf(' ', first + 1);
    if (first <= 0 || second < 0 || second == first + 1 || line.indexOf(' ', second + 1) >= 0)
        return fail(400, "Bad request line");
    const QByteArrayView method = line.first(first);
    const QByteArrayView version = line.sliced(second + 1);
    if (!isToken(method))
        return fail(400, "Bad request line");
    if (version == "HTTP/1.1")
        m_head.minorVersion = 1;
    else if (version == "HTTP/1.0")
        m_head.minorVersion = 0;
    else if (version.startsWith("HTTP/"))
        return fail(505, "HTTP version not supported");
    else
        return fail(400, "Bad request line");
    if (!isImplementedMethod(method))
        return fail(501, "Method not implemented");
    m_head.m_method = {0, first};
    m_head.m_target = {first + 1, second - first - 1};
    return Status::Complete;
}

RequestFramer::Status RequestFramer::parseField(QByteArrayView line, qsizetype lineAt, bool &haveLength)
{
    if (line.front() == ' ' || line.front() == '\t')
        return fail(400, "Folded header lines are not accepted");
    const qsizetype colon = line.indexOf(':');
    if (colon <= 0 || !isToken(line.first(colon)))
        return fail(400, "Bad header field");
    const QByteArrayView name = line.first(colon);
    QByteArrayView value = line.sliced(colon + 1);
    qsizetype valueAt = lineAt + colon + 1;
    while (!value.isEmpty() && (value.front() == ' ' || value.front() == '\t')) {
        value = value.sliced(1);
        ++valueAt;
    }
    while (!value.isEmpty() && (value.back() == ' ' || value.back() == '\t'))
        value.chop(1);
    for (char c : value) {
        if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f)
            return fail(400, "Bad header field");
    }
    m_head.m_fields.append({{lineAt, colon}, {valueAt, value.size()}});

    // The four fields the framer acts on; the length tells most other names apart without a
    // case-insensitive comparison.
    const auto is = [&name](QByteArrayView known) {
        return name.size() == known.size() && name.compare(known, Qt::CaseInsensitive) == 0;
    };
    if (is("content-length")) {
        bool ok = false;
        const qint64 length = value.toLongLong(&ok);
        if (!ok || length < 0 || value.startsWith('+') || (haveLength && length != m_head.contentLength))
            return fail(400, "Bad Content-Length");
        m_head.contentLength = length;
        haveLength = true;
    } else if (is("transfer-encoding")) {
        if (value.compare("chunked", Qt::CaseInsensitive) != 0)
            return fail(501, "Transfer-Encoding not implemented");
        m_head.chunked = true;
    } else if (is("expect")) {
        if (value.compare("100-continue", Qt::CaseInsensitive) != 0)
            return fail(417, "Expectation failed");
        m_head.expectContinue = true;
    } else if (is("connection")) {
        if (containsToken(value, "close"))
            m_head.keepAlive = false;
        else if (containsToken(value, "keep-alive") && m_head.minorVersion == 0)
            m_head.keepAlive = true;
    }
    return Status::Complete;
}

QByteArray RequestFramer::body(const QByteArray &buffer) const
{
    if (!m_head.chunked)
        return buffer.sliced(m_headBytes, qsizetype(m_head.contentLength));
    QByteArray body;
    body.reserve(qsizetype(m_bodyBytes));
    for (const auto &[start, size] : m_chunkData)
        body.append(buffer.constData() + start, size);
    return body;
}

RequestFramer::Status RequestFramer::scanChunks(const QByteArray &buffer)
{
    // chunked-body = *chunk last-chunk trailer-section CRLF (RFC 9112, 7.1), read strictly: the size
    // is hex digits only (no sign, no "0x", no spaces but before an extension), every line ends
    // in CRLF, and the chunk's data is followed by exactly CRLF.
    while (m_chunkPos < buffer.size()) {
        if (m_chunkRemaining > 0) {
            const qint64 take = qMin<qint64>(m_chunkRemaining, buffer.size() - m_chunkPos);
            m_chunkPos += qsizetype(take);
            m_chunkRemaining -= take;
            if (m_chunkRemaining == 0)
                m_expectDataEnd = true;
            continue;
        }
        if (m_expectDataEnd) {
            if (buffer.size() - m_chunkPos < 2)
                return Status::NeedMore;
            if (buffer[m_chunkPos] != '\r' || buffer[m_chunkPos + 1] != '\n')
                return fail(400, "Chunk data not followed by CRLF");
            m_chunkPos += 2;
            m_expectDataEnd = false;
            continue;
        }
        const qsizetype lineEnd = buffer.indexOf('\n', m_chunkPos);
        if (lineEnd < 0) {
            if (buffer.size() - m_chunkPos > 1024)
                return fail(400, "Bad chunk");
            return Status::NeedMore;
        }
        if (lineEnd == m_chunkPos || buffer[lineEnd - 1] != '\r')
            return fail(400, "Bare LF in chunked body");
        const QByteArrayView line(buffer.constData() + m_chunkPos, lineEnd - 1 - m_chunkPos);
        if (line.contains('\r'))
            return fail(400, "Bare CR in chunked body");
        m_chunkPos = lineEnd + 1;
        if (m_inTrailers) {
            if (line.isEmpty()) {
                m_messageBytes = m_chunkPos;
                return Status::Complete;
            }
            if (m_chunkPos - m_headBytes > m_limits.maxBodyBytes + m_limits.maxHeaderBytes)
                return fail(431, "Request header fields too large");
            continue;
        }
        const qsizetype semicolon = line.indexOf(';');
        QByteArrayView sizeText = semicolon >= 0 ? line.first(semicolon) : line;
        if (semicolon >= 0) {
            while (!sizeText.isEmpty() && (sizeText.back() == ' ' || sizeText.back() == '\t'))
                sizeText.chop(1); // BWS before the extension
        }
        if (sizeText.isEmpty() || sizeText.size() > 15)
            return fail(400, "Bad chunk size");
        qint64 size = 0;
        for (char c : sizeText) {
            if (!isHexDigit(c))
                return fail(400, "Bad chunk size");
            size = size * 16 + (c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
        }
        if (size == 0) {
            m_inTrailers = true;
            continue;
        }
        m_bodyBytes += size;
        if (m_bodyBytes > m_limits.maxBodyBytes)
            return fail(413, "Request body too large");
        m_chunkRemaining = size;
        m_chunkData.append({m_chunkPos, qsizetype(size)});
    }
    return Status::NeedMore;
}

} // namespace Broker::Rest
