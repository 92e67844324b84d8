// SPDX-License-Identifier: GPL-3.0-or-later
#include "respcodec.h"

#include <hiredis/read.h>

#include <charconv>
#include <cstring>
#include <memory>
#include <new>

namespace Broker::Redis {

namespace {

// hiredis's redisFormatCommandArgv writes every length with sprintf (hundreds of instructions
// each, several per command): the same bytes with to_chars.
void appendLine(char *&p, char prefix, qsizetype number)
{
    *p++ = prefix;
    p = std::to_chars(p, p + 20, number).ptr;
    *p++ = '\r';
    *p++ = '\n';
}

// The reader builds RedisReply values itself (hiredis's reply-object hooks) instead of hiredis's
// own replies that were then copied: one allocation less per string and per array. An element is
// made in place in its parent's list, which is sized when the array's head is read; only the root
// is allocated on its own (and freed by hiredis on a protocol error).
RedisReply *replyFor(const redisReadTask *task, RedisReply::Type type)
{
    RedisReply *reply = task->parent ? &static_cast<RedisReply *>(task->parent->obj)->elements[task->idx]
                                     : new (std::nothrow) RedisReply;
    if (reply)
        reply->type = type;
    return reply;
}

void *createString(const redisReadTask *task, char *text, size_t length)
{
    const RedisReply::Type type = task->type == REDIS_REPLY_ERROR    ? RedisReply::Type::Error
                                  : task->type == REDIS_REPLY_STATUS ? RedisReply::Type::Status
                                                                     : RedisReply::Type::String;
    RedisReply *reply = replyFor(task, type);
    if (reply)
        reply->string = QByteArray(text, qsizetype(length));
    return reply;
}

void *createArray(const redisReadTask *task, int elements)
{
    RedisReply *reply = replyFor(task, RedisReply::Type::Array);
    if (reply)
        reply->elements.resize(elements);
    return reply;
}

void *createInteger(const redisReadTask *task, long long integer)
{
    RedisReply *reply = replyFor(task, RedisReply::Type::Integer);
    if (reply)
        reply->integer = integer;
    return reply;
}

void *createNil(const redisReadTask *task)
{
    return replyFor(task, RedisReply::Type::Nil);
}

void freeReply(void *reply)
{
    delete static_cast<RedisReply *>(reply);
}

redisReplyObjectFunctions replyFunctions{createString, createArray, createInteger, createNil, freeReply};

} // namespace

bool appendCommand(QByteArray &out, const QByteArrayList &args)
{
    // "*<argc>\r\n" and "$<length>\r\n<bytes>\r\n" per argument: at most 23 bytes of framing each.
    qsizetype bound = 23;
    for (const QByteArray &arg : args)
        bound += 25 + arg.size();
    const qsizetype start = out.size();
    try {
        out.resize(start + bound);
    } catch (const std::bad_alloc &) {
        return false;
    }
    char *const begin = out.data() + start;
    char *p = begin;
    appendLine(p, '*', args.size());
    for (const QByteArray &arg : args) {
        appendLine(p, '$', arg.size());
        std::memcpy(p, arg.constData(), size_t(arg.size()));
        p += arg.size();
        *p++ = '\r';
        *p++ = '\n';
    }
    out.truncate(start + (p - begin));
    return true;
}

RespReader::RespReader(qint64 maxBufferedBytes) : m_reader(redisReaderCreateWithFunctions(&replyFunctions)), m_maxBuffered(maxBufferedBytes)
{
    if (!m_reader)
        m_error = QStringLiteral("out of memory");
}

RespReader::~RespReader()
{
    if (m_reader)
        redisReaderFree(m_reader);
}

qint64 RespReader::buffered() const
{
    return m_reader ? qint64(m_reader->len - m_reader->pos) : 0;
}

bool RespReader::feed(QByteArrayView bytes)
{
    if (failed())
        return false;
    if (buffered() + bytes.size() > m_maxBuffered) {
        m_error = QStringLiteral("a reply larger than %1 bytes").arg(m_maxBuffered);
        return false;
    }
    if (redisReaderFeed(m_reader, bytes.constData(), size_t(bytes.size())) != REDIS_OK) {
        m_error = QString::fromUtf8(m_reader->errstr);
        return false;
    }
    return true;
}

std::optional<RedisReply> RespReader::next()
{
    if (failed())
        return std::nullopt;
    void *raw = nullptr;
    if (redisReaderGetReply(m_reader, &raw) != REDIS_OK) {
        // hiredis's text names what it found ("Protocol error, got \"x\" as reply type byte").
        m_error = QString::fromUtf8(m_reader->errstr);
        if (m_error.isEmpty())
            m_error = QStringLiteral("unreadable reply");
        return std::nullopt;
    }
    if (!raw)
        return std::nullopt;
    std::unique_ptr<RedisReply> root(static_cast<RedisReply *>(raw));
    return std::move(*root);
}

} // namespace Broker::Redis
