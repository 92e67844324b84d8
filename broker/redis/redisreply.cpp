// SPDX-License-Identifier: GPL-3.0-or-later
#include "redisreply.h"

namespace Broker::Redis {

QByteArray RedisReply::errorCode() const
{
    if (type != Type::Error)
        return {};
    const qsizetype space = string.indexOf(' ');
    return space < 0 ? string : string.left(space);
}

} // namespace Broker::Redis
