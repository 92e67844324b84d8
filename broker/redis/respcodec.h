// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "redisreply.h"

#include <QByteArray>
#include <QByteArrayList>
#include <QString>

#include <optional>

struct redisReader;

namespace Broker::Redis {

// Appends `args` to `out` as one RESP command (the bytes hiredis's redisFormatCommandArgv makes).
// False only when memory runs out.
bool appendCommand(QByteArray &out, const QByteArrayList &args);

// A whole number as a command argument. The small ones (key counts, counts, flags) are made once
// and shared: QByteArray::number allocates and formats for each.
QByteArray decimal(qint64 n);

// hiredis's RESP reader (protocol only, no I/O), building RedisReply values: bytes go in as they
// arrive, whole replies come out. Bounded: bytes received and not yet parsed, and the values of
// the reply still coming (the elements of an unfinished array are parsed as they come, each
// counted with its struct: a small element takes many times its bytes), may not pass
// `maxBufferedBytes` together.
class RespReader
{
public:
    explicit RespReader(qint64 maxBufferedBytes);
    ~RespReader();
    RespReader(const RespReader &) = delete;
    RespReader &operator=(const RespReader &) = delete;

    // False when the bytes would pass the bound or memory ran out; error() says which.
    bool feed(QByteArrayView bytes);
    // The next whole reply, or nothing when more bytes are needed. After a protocol error
    // (failed() true, error() says what) the reader is unusable: the stream cannot be resynced.
    std::optional<RedisReply> next();
    bool failed() const { return !m_error.isEmpty(); }
    QString error() const { return m_error; }
    // Bytes received and not yet taken out as replies.
    qint64 buffered() const;

    // What the values of the reply still coming take (about), against `limit`; for the reader's
    // hooks, which is why it is public.
    struct Budget
    {
        qint64 used = 0;
        qint64 limit = 0;
        bool exceeded = false;
    };

private:
    redisReader *m_reader = nullptr;
    qint64 m_maxBuffered = 0;
    Budget m_budget; // the hooks' (hiredis's privdata): must not move, as the reader is not copied
    QString m_error;
};

} // namespace Broker::Redis
