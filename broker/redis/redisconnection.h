// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "qtredisadapter.h"
#include "redisreply.h"

#include "core/redisoptions.h"
#include "core/result.h"

#include <QByteArrayList>
#include <QObject>
#include <QTimer>

#include <deque>
#include <functional>

struct redisAsyncContext;
struct redisReply;

namespace Broker::Redis {

// Why a command got no reply. Both kinds are transient: the command may or may not have run,
// and a retry on another connection may succeed. Redis error replies are not failures here.
//   ErrorCode::Timeout     - no reply within the command's deadline
//   ErrorCode::Unavailable - not connected, the connection broke, or was closed
// A failure whose Error::detail is NotSent never left this process: the command surely did not run.
using CommandResult = Result<RedisReply>;
inline const QString NotSent = QStringLiteral("not sent");
using CommandCallback = std::function<void(CommandResult)>;

// Milliseconds of a monotonic clock: deadlines must not move when the wall clock is set.
qint64 steadyMs();

// One asynchronous connection to Redis, driven by the event loop of the thread that owns it.
// Commands are pipelined; each has a deadline (hiredis 0.14 has none of its own). When a
// deadline passes the connection is given up — its replies can no longer be matched with
// certainty — so every command still waiting on it fails and the owner reconnects.
//
// Every callback is called exactly once, in the owner's thread, and may issue new commands.
// Destroying the connection drops the callbacks of commands still waiting, without calling them.
class RedisConnection final : public QObject
{
    Q_OBJECT

public:
    enum class State { Disconnected, Connecting, Ready };

    explicit RedisConnection(ConnectionOptions options, QObject *parent = nullptr);
    ~RedisConnection() override;

    // Starts connecting (no-op unless Disconnected). Ends in ready() or disconnected().
    void open();
    // Fails every waiting command with Unavailable and disconnects.
    void close();
    State state() const { return m_state; }
    const ConnectionOptions &options() const { return m_options; }
    int waitingCommands() const { return int(m_waiting.size()); }

    // Sends `args` as one command. Fails at once (Unavailable) unless Ready. `timeoutMs` <= 0:
    // the connection's command timeout.
    void command(const QByteArrayList &args, CommandCallback done, int timeoutMs = 0);

Q_SIGNALS:
    void ready();
    // The connection is gone (refused, timed out, dropped, closed). `reason` is safe to log.
    void disconnected(const QString &reason);

private:
    struct Waiting;

    static void onReply(redisAsyncContext *context, void *reply, void *privdata);
    static void onConnected(const redisAsyncContext *context, int status);
    static void onDisconnected(const redisAsyncContext *context, int status);

    void send(const QByteArrayList &args, Waiting *waiting);
    void handshake();
    void completeWaiting(Waiting *waiting, const redisReply *reply);
    void armDeadline();
    void deadlinePassed();
    void connectTimedOut();
    // Frees the hiredis context (failing what waits on it) and reports `reason`.
    void drop(const QString &reason, ErrorCode code);
    void forgetContext();

    ConnectionOptions m_options;
    State m_state = State::Disconnected;
    redisAsyncContext *m_context = nullptr;
    QtRedisAdapter m_adapter;
    std::deque<Waiting *> m_waiting; // in send order: Redis answers in that order
    QTimer m_deadlineTimer;
    QTimer m_connectTimer;
    QString m_dropReason;   // while dropping: what waiting callbacks are told
    ErrorCode m_dropCode = ErrorCode::Unavailable;
};

} // namespace Broker::Redis
