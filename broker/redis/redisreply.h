// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QList>

namespace Broker::Redis {

// A Redis reply, as RespReader reads it.
// An error reply ("-ERR ...", "-NOSCRIPT ...") is a reply like any other: the server answered.
// Failures to get an answer at all are Result errors of the command, not replies.
struct RedisReply
{
    enum class Type { Nil, Status, Error, Integer, String, Array };

    Type type = Type::Nil;
    qint64 integer = 0;
    QByteArray string;            // Status, Error and String
    QList<RedisReply> elements;   // Array

    bool isNil() const { return type == Type::Nil; }
    bool isError() const { return type == Type::Error; }
    // The first word of an error reply: "NOSCRIPT", "ERR", "WRONGTYPE" or a script's own code.
    QByteArray errorCode() const;
    // "OK"-style status or a bulk string.
    bool isText(const char *text) const { return (type == Type::Status || type == Type::String) && string == text; }
};

} // namespace Broker::Redis
