// SPDX-License-Identifier: GPL-3.0-or-later
#include "respcodec.h"

#include <hiredis/hiredis.h>
#include <hiredis/read.h>

#include <vector>

namespace Broker::Redis {

bool appendCommand(QByteArray &out, const QByteArrayList &args)
{
    std::vector<const char *> argv;
    std::vector<size_t> lengths;
    argv.reserve(size_t(args.size()));
    lengths.reserve(size_t(args.size()));
    for (const QByteArray &arg : args) {
        argv.push_back(arg.constData());
        lengths.push_back(size_t(arg.size()));
    }
    char *formatted = nullptr;
    const int length = redisFormatCommandArgv(&formatted, int(argv.size()), argv.data(), lengths.data());
    if (length < 0 || !formatted)
        return false;
    out.append(formatted, qsizetype(length));
    redisFreeCommand(formatted);
    return true;
}

RespReader::RespReader(qint64 maxBufferedBytes) : m_reader(redisReaderCreate()), m_maxBuffered(maxBufferedBytes)
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

bool RespReader::feed(const QByteArray &bytes)
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
    RedisReply reply = RedisReply::fromHiredis(*static_cast<const redisReply *>(raw));
    freeReplyObject(raw);
    return reply;
}

} // namespace Broker::Redis
