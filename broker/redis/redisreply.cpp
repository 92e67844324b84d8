// SPDX-License-Identifier: GPL-3.0-or-later
#include "redisreply.h"

#include <hiredis/hiredis.h>

namespace Broker::Redis {

RedisReply RedisReply::fromHiredis(const redisReply &reply)
{
    RedisReply out;
    switch (reply.type) {
    case REDIS_REPLY_STATUS:
        out.type = Type::Status;
        out.string = QByteArray(reply.str, qsizetype(reply.len));
        break;
    case REDIS_REPLY_ERROR:
        out.type = Type::Error;
        out.string = QByteArray(reply.str, qsizetype(reply.len));
        break;
    case REDIS_REPLY_INTEGER:
        out.type = Type::Integer;
        out.integer = reply.integer;
        break;
    case REDIS_REPLY_STRING:
        out.type = Type::String;
        out.string = QByteArray(reply.str, qsizetype(reply.len));
        break;
    case REDIS_REPLY_ARRAY:
        out.type = Type::Array;
        out.elements.reserve(qsizetype(reply.elements));
        for (size_t i = 0; i < reply.elements; ++i)
            out.elements.append(fromHiredis(*reply.element[i]));
        break;
    default:
        out.type = Type::Nil;
        break;
    }
    return out;
}

QByteArray RedisReply::errorCode() const
{
    if (type != Type::Error)
        return {};
    const qsizetype space = string.indexOf(' ');
    return space < 0 ? string : string.left(space);
}

} // namespace Broker::Redis
