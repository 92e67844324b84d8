// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/message.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

#include <optional>

namespace Broker::RedisMessage {

// How the Redis store writes a message: compact JSON that other Redis tools can read, beginning
// with the two fields its Lua scripts rewrite without decoding the rest (see resources/redis/lib.lua):
//   {"id":"msg-…","ts":<TTL start ms>,["dl":{"q":origin,"r":reason,"at":ms},]"pr":<priority>,
//    "t":<publish time µs>,"p":<publisher>,"h":{headers},"d":"<the body's JSON text>"}
// The body is kept as a JSON string so that it comes back byte for byte.
// `sequence` is the id's number (MessageId), `publisher` the publisher's id in UTF-8.
QByteArray encode(quint64 sequence, qint64 publishedUs, const NewMessage &message, QByteArrayView publisher);

// encode() for the messages of one publish: what they share (the times, the publisher) is
// written once.
class Encoder
{
public:
    Encoder(qint64 publishedUs, QByteArrayView publisher);
    QByteArray encode(quint64 sequence, const NewMessage &message) const;

private:
    QByteArrayView afterId() const { return QByteArrayView(m_shared).first(m_split); }          // ","ts":<ms>,"pr":
    QByteArrayView afterPriority() const { return QByteArrayView(m_shared).sliced(m_split); } // ,"t":<µs>,"p":"<publisher>","h":

    QByteArray m_shared;
    qsizetype m_split = 0;
};

// Reads a stored message into `out` (id, data, headers, publisher, timestamp, priority and the
// dead-letter fields; the rest of `out` is reset); false when the bytes are not a message of this
// format. The layout encode() writes is read field by field, with its strings' bytes from 0x80
// up taken as they are (encode() writes valid UTF-8); any other JSON object is read by Qt's parser.
bool decode(const QByteArray &stored, const QString &queue, Message &out);

// The id of a stored message without decoding all of it.
QString idOf(const QByteArray &stored);

} // namespace Broker::RedisMessage
