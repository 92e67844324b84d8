// SPDX-License-Identifier: GPL-3.0-or-later
#include "respcodec.h"

#include <hiredis/read.h>

#include <algorithm>
#include <array>
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

// Counts a value's memory (its struct and its text, about) against the reply's bound (the
// reader's RespReader::Budget, which hiredis hands every task as its privdata); false when that
// passes it, and the hook then fails the read as hiredis fails it when memory runs out.
bool charge(const redisReadTask *task, qsizetype textBytes)
{
    auto *budget = static_cast<RespReader::Budget *>(task->privdata);
    budget->used += qint64(sizeof(RedisReply)) + textBytes;
    if (budget->used <= budget->limit)
        return true;
    budget->exceeded = true;
    return false;
}

// The reader builds RedisReply values itself (hiredis's reply-object hooks) instead of hiredis's
// own replies that were then copied: one allocation less per string and per array. An element is
// appended to its parent's list when it arrives (elements come in order), so that an array costs
// memory for what was received, not for the length its header claims. Only the arrays still
// being filled are referenced by the reader, and a list gets its next element only once the one
// before is complete: no pointer the reader holds moves. The root alone is allocated on its own
// (hiredis frees it on a protocol error). A hook that runs out of memory returns nothing: hiredis
// then fails the read.
template<typename Fill>
void *made(const redisReadTask *task, RedisReply::Type type, qsizetype textBytes, Fill fill)
{
    if (!charge(task, textBytes))
        return nullptr;
    std::unique_ptr<RedisReply> root;
    try {
        RedisReply *reply = nullptr;
        if (task->parent) {
            QList<RedisReply> &elements = static_cast<RedisReply *>(task->parent->obj)->elements;
            Q_ASSERT(task->idx == elements.size());
            reply = &elements.emplace_back();
        } else {
            root = std::make_unique<RedisReply>();
            reply = root.get();
        }
        reply->type = type;
        fill(*reply);
        root.release(); // hiredis's now
        return reply;
    } catch (const std::bad_alloc &) {
        return nullptr; // a root goes here, an element with its root (hiredis frees that)
    }
}

void *createString(const redisReadTask *task, char *text, size_t length)
{
    const RedisReply::Type type = task->type == REDIS_REPLY_ERROR    ? RedisReply::Type::Error
                                  : task->type == REDIS_REPLY_STATUS ? RedisReply::Type::Status
                                                                     : RedisReply::Type::String;
    return made(task, type, qsizetype(length),
                [&](RedisReply &reply) { reply.string = QByteArray(text, qsizetype(length)); });
}

void *createArray(const redisReadTask *task, int elements)
{
    // Room for a usual reply's elements; a long array grows as its elements come.
    return made(task, RedisReply::Type::Array, 0,
                [&](RedisReply &reply) { reply.elements.reserve(std::min(elements, 64)); });
}

void *createInteger(const redisReadTask *task, long long integer)
{
    return made(task, RedisReply::Type::Integer, 0, [&](RedisReply &reply) { reply.integer = integer; });
}

void *createNil(const redisReadTask *task)
{
    return made(task, RedisReply::Type::Nil, 0, [](RedisReply &) {});
}

void freeReply(void *reply)
{
    delete static_cast<RedisReply *>(reply);
}

redisReplyObjectFunctions replyFunctions{createString, createArray, createInteger, createNil, freeReply};

} // namespace

QByteArray decimal(qint64 n)
{
    static const std::array<QByteArray, 64> small = [] {
        std::array<QByteArray, 64> numbers;
        for (std::size_t i = 0; i < numbers.size(); ++i)
            numbers[i] = QByteArray::number(qulonglong(i));
        return numbers;
    }();
    if (n >= 0 && n < qint64(small.size()))
        return small[std::size_t(n)];
    return QByteArray::number(n);
}

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

RespReader::RespReader(qint64 maxBufferedBytes)
    : m_reader(redisReaderCreateWithFunctions(&replyFunctions)), m_maxBuffered(maxBufferedBytes),
      m_budget{0, maxBufferedBytes, false}
{
    if (!m_reader)
        m_error = QStringLiteral("out of memory");
    else
        m_reader->privdata = &m_budget; // given to every task (hiredis 0.14: read.c, each new task)
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
    if (buffered() + m_budget.used + bytes.size() > m_maxBuffered) {
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
        m_error = m_budget.exceeded ? QStringLiteral("a reply larger than %1 bytes").arg(m_maxBuffered)
                                    : QString::fromUtf8(m_reader->errstr);
        if (m_error.isEmpty())
            m_error = QStringLiteral("unreadable reply");
        return std::nullopt;
    }
    if (!raw)
        return std::nullopt; // a reply still coming keeps what it has taken
    m_budget.used = 0;
    std::unique_ptr<RedisReply> root(static_cast<RedisReply *>(raw));
    return std::move(*root);
}

} // namespace Broker::Redis
