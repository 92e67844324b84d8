// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Redis replies built by hand, for tests of code that reads them.

#include "redis/redisreply.h"

namespace Broker::Testing {

inline Redis::RedisReply textReply(const QByteArray &value)
{
    Redis::RedisReply reply;
    reply.type = Redis::RedisReply::Type::String;
    reply.string = value;
    return reply;
}

inline Redis::RedisReply integerReply(qint64 value)
{
    Redis::RedisReply reply;
    reply.type = Redis::RedisReply::Type::Integer;
    reply.integer = value;
    return reply;
}

inline Redis::RedisReply arrayReply(QList<Redis::RedisReply> elements)
{
    Redis::RedisReply reply;
    reply.type = Redis::RedisReply::Type::Array;
    reply.elements = std::move(elements);
    return reply;
}

} // namespace Broker::Testing
