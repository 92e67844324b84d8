// SPDX-License-Identifier: GPL-3.0-or-later
#include "redisconnection.h"

#include <hiredis/async.h>
#include <hiredis/hiredis.h>

#include <algorithm>
#include <chrono>
#include <vector>

namespace Broker::Redis {

qint64 steadyMs()
{
    using namespace std::chrono;
    return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

// Handed to hiredis as the callback's private data; outlives this connection when hiredis still
// holds it (then `owner` is null and the reply is dropped).
struct RedisConnection::Waiting
{
    RedisConnection *owner = nullptr;
    CommandCallback done;
    qint64 deadlineMs = 0; // steady clock
};

RedisConnection::RedisConnection(ConnectionOptions options, QObject *parent)
    : QObject(parent), m_options(std::move(options)), m_deadlineTimer(this), m_connectTimer(this)
{
    m_deadlineTimer.setSingleShot(true);
    m_connectTimer.setSingleShot(true);
    connect(&m_deadlineTimer, &QTimer::timeout, this, &RedisConnection::deadlinePassed);
    connect(&m_connectTimer, &QTimer::timeout, this, &RedisConnection::connectTimedOut);
}

RedisConnection::~RedisConnection()
{
    for (Waiting *waiting : m_waiting) {
        waiting->owner = nullptr;
        waiting->done = nullptr;
    }
    m_waiting.clear();
    if (redisAsyncContext *context = m_context) {
        forgetContext();
        redisAsyncFree(context); // calls onReply(null) for each waiting entry, which frees it
    }
}

void RedisConnection::open()
{
    if (m_state != State::Disconnected)
        return;
    const QByteArray host = m_options.host.toUtf8();
    redisAsyncContext *context = redisAsyncConnect(host.constData(), m_options.port);
    if (!context || context->err) {
        const QString reason = context ? QString::fromUtf8(context->errstr) : QStringLiteral("out of memory");
        if (context)
            redisAsyncFree(context);
        // Reported from the event loop, like every other outcome of open().
        QMetaObject::invokeMethod(
            this, [this, reason] { Q_EMIT disconnected(QStringLiteral("cannot connect: %1").arg(reason)); },
            Qt::QueuedConnection);
        return;
    }
    m_context = context;
    context->data = this;
    m_adapter.attach(context);
    redisAsyncSetConnectCallback(context, &RedisConnection::onConnected);
    redisAsyncSetDisconnectCallback(context, &RedisConnection::onDisconnected);
    m_state = State::Connecting;
    m_connectTimer.start(m_options.connectTimeoutMs);
    handshake();
}

void RedisConnection::handshake()
{
    // Queued at once; hiredis writes them when the socket connects. Ready only after PING
    // answers, so that Ready means a server that really replies.
    const auto refuse = [this](const char *what) {
        return [this, what](CommandResult result) {
            if (result && result->isError()) {
                const QString reason = QStringLiteral("Redis refused %1: %2")
                                           .arg(QLatin1StringView(what), QString::fromUtf8(result->string));
                QMetaObject::invokeMethod(this, [this, reason] { drop(reason, ErrorCode::Unavailable); },
                                          Qt::QueuedConnection);
            }
        };
    };
    const qint64 deadline = steadyMs() + m_options.connectTimeoutMs;
    if (!m_options.password.isEmpty())
        send({QByteArrayLiteral("AUTH"), m_options.password.toUtf8()}, new Waiting{this, refuse("AUTH"), deadline});
    if (m_options.database != 0)
        send({QByteArrayLiteral("SELECT"), QByteArray::number(m_options.database)},
             new Waiting{this, refuse("SELECT"), deadline});
    send({QByteArrayLiteral("PING")}, new Waiting{this, [this](CommandResult result) {
                                                      if (!result || result->isError() || m_state != State::Connecting)
                                                          return;
                                                      m_connectTimer.stop();
                                                      m_state = State::Ready;
                                                      Q_EMIT ready();
                                                  },
                                                  deadline});
}

void RedisConnection::close()
{
    drop(QStringLiteral("connection closed"), ErrorCode::Unavailable);
}

void RedisConnection::command(const QByteArrayList &args, CommandCallback done, int timeoutMs)
{
    if (m_state != State::Ready || !m_context) {
        done(Error{ErrorCode::Unavailable, QStringLiteral("Redis is not connected"), NotSent});
        return;
    }
    const int timeout = timeoutMs > 0 ? timeoutMs : m_options.commandTimeoutMs;
    send(args, new Waiting{this, std::move(done), steadyMs() + timeout});
}

void RedisConnection::send(const QByteArrayList &args, Waiting *waiting)
{
    std::vector<const char *> argv;
    std::vector<size_t> lengths;
    argv.reserve(size_t(args.size()));
    lengths.reserve(size_t(args.size()));
    for (const QByteArray &arg : args) {
        argv.push_back(arg.constData());
        lengths.push_back(size_t(arg.size()));
    }
    if (redisAsyncCommandArgv(m_context, &RedisConnection::onReply, waiting, int(argv.size()), argv.data(),
                              lengths.data())
        != REDIS_OK) {
        CommandCallback done = std::move(waiting->done);
        delete waiting;
        done(Error{ErrorCode::Unavailable, QStringLiteral("Redis connection is closing"), NotSent});
        return;
    }
    m_waiting.push_back(waiting);
    if (!m_deadlineTimer.isActive())
        armDeadline();
}

void RedisConnection::onReply(redisAsyncContext *, void *reply, void *privdata)
{
    auto *waiting = static_cast<Waiting *>(privdata);
    if (RedisConnection *owner = waiting->owner)
        owner->completeWaiting(waiting, static_cast<const redisReply *>(reply));
    delete waiting;
}

void RedisConnection::completeWaiting(Waiting *waiting, const redisReply *reply)
{
    // Replies come in send order, so this is the front entry.
    const auto it = std::find(m_waiting.begin(), m_waiting.end(), waiting);
    if (it != m_waiting.end())
        m_waiting.erase(it);
    waiting->owner = nullptr;
    CommandCallback done = std::move(waiting->done);
    if (!done)
        return;
    if (reply) {
        done(RedisReply::fromHiredis(*reply));
        return;
    }
    QString reason = m_dropReason;
    if (reason.isEmpty())
        reason = m_context && m_context->errstr[0] ? QString::fromUtf8(m_context->errstr)
                                                   : QStringLiteral("connection lost");
    done(Error{m_dropCode, QStringLiteral("Redis: %1").arg(reason)});
}

void RedisConnection::armDeadline()
{
    if (m_waiting.empty())
        return;
    qint64 earliest = m_waiting.front()->deadlineMs;
    for (const Waiting *waiting : m_waiting)
        earliest = std::min(earliest, waiting->deadlineMs);
    m_deadlineTimer.start(int(std::max<qint64>(0, earliest - steadyMs())));
}

void RedisConnection::deadlinePassed()
{
    const qint64 now = steadyMs();
    const bool late = std::any_of(m_waiting.begin(), m_waiting.end(),
                                  [now](const Waiting *waiting) { return waiting->deadlineMs <= now; });
    if (late) {
        drop(QStringLiteral("no reply within the command deadline"), ErrorCode::Timeout);
        return;
    }
    armDeadline();
}

void RedisConnection::connectTimedOut()
{
    if (m_state == State::Connecting)
        drop(QStringLiteral("no answer within the connect timeout (%1 ms)").arg(m_options.connectTimeoutMs),
             ErrorCode::Timeout);
}

void RedisConnection::drop(const QString &reason, ErrorCode code)
{
    redisAsyncContext *context = m_context;
    if (!context)
        return;
    // Forget the context before freeing it: the free is the last time anything here touches it.
    context->data = nullptr; // this drop reports itself; onDisconnected must not
    forgetContext();         // also: commands issued by the callbacks below fail at once
    m_dropReason = reason;
    m_dropCode = code;
    redisAsyncFree(context); // fails every waiting entry through onReply(null)
    m_dropReason.clear();
    m_dropCode = ErrorCode::Unavailable;
    Q_EMIT disconnected(reason);
}

void RedisConnection::forgetContext()
{
    if (m_context)
        m_context->data = nullptr;
    m_adapter.detach();
    m_context = nullptr;
    m_state = State::Disconnected;
    m_connectTimer.stop();
    m_deadlineTimer.stop();
}

void RedisConnection::onConnected(const redisAsyncContext *context, int status)
{
    auto *self = static_cast<RedisConnection *>(context->data);
    if (!self || status == REDIS_OK)
        return; // the handshake's PING decides when the connection is ready
    // A failed connect frees the context right after this call.
    const QString reason = QStringLiteral("cannot connect: %1").arg(QString::fromUtf8(context->errstr));
    self->forgetContext();
    Q_EMIT self->disconnected(reason);
}

void RedisConnection::onDisconnected(const redisAsyncContext *context, int status)
{
    auto *self = static_cast<RedisConnection *>(context->data);
    if (!self)
        return; // dropped or destroyed by us: already reported
    const QString reason = status == REDIS_OK ? QStringLiteral("connection closed")
                                              : QStringLiteral("connection lost: %1").arg(QString::fromUtf8(context->errstr));
    self->forgetContext();
    Q_EMIT self->disconnected(reason);
}

} // namespace Broker::Redis
