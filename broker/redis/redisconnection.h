// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "redisreply.h"

#include "core/redisoptions.h"
#include "core/result.h"

#include <QAbstractSocket>
#include <QByteArrayList>
#include <QObject>
#include <QTimer>

#include <deque>
#include <functional>
#include <memory>

class QSslError;
class QTcpSocket;

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

// One asynchronous connection to Redis, driven by the event loop of the thread that owns it: a
// QTcpSocket (a QSslSocket when options.tls) carries the bytes; hiredis's RESP reader and our
// command formatter only speak the protocol. Commands are pipelined: one issued on an idle
// connection is written at once, those issued while others wait go out together when the
// event-loop turn ends. Each has a deadline (hiredis 0.14 has none of its own). When a deadline
// passes the connection is given up — its replies can no longer be matched with certainty — so
// every command still waiting on it fails and the owner reconnects.
//
// Every callback is called exactly once, in the owner's thread, and may issue new commands (or
// close or destroy the connection). Destroying the connection drops the callbacks of commands
// still waiting, without calling them.
class RedisConnection final : public QObject
{
    Q_OBJECT

public:
    enum class State { Disconnected, Connecting, Ready };

    explicit RedisConnection(ConnectionOptions options, QObject *parent = nullptr);
    ~RedisConnection() override;

    // Starts connecting (no-op unless Disconnected): TCP, the TLS handshake when options.tls,
    // then AUTH, SELECT, the first command (ConnectionOptions) and PING. Ends in ready() (PING
    // answered) or disconnected(), all within the connect timeout. Unusable TLS files end in
    // disconnected() too, naming the option.
    void open();
    // Fails every waiting command with Unavailable and disconnects.
    void close();
    State state() const { return m_state; }
    const ConnectionOptions &options() const { return m_options; }
    int waitingCommands() const { return int(m_waiting.size()); }

    // Sends `args` as one command: written at once when no other command waits, else with the
    // turn's others. Fails at once (Unavailable, NotSent) unless Ready, or when the unsent output
    // passes options.maxOutputBytes; a write that fails at once drops the connection from in
    // here (every waiting command fails, this one included, and disconnected() is emitted).
    // `timeoutMs` <= 0: the command timeout.
    void command(const QByteArrayList &args, CommandCallback done, int timeoutMs = 0);

    // For a subscribed connection (SUBSCRIBE): the ["message", channel, payload] arrays the
    // server pushes, which answer no command, go to `handler`. Without one they are a protocol
    // error, as any reply to no command is.
    void setMessageHandler(std::function<void(const RedisReply &)> handler) { m_messageHandler = std::move(handler); }

Q_SIGNALS:
    void ready();
    // The connection is gone (refused, timed out, TLS failed, dropped, closed). `reason` is safe
    // to log: it never holds the password or the username.
    void disconnected(const QString &reason);

private:
    struct Waiting
    {
        CommandCallback done;
        qint64 deadlineMs = 0; // steady clock
    };
    class Transport;

    void startHandshake();
    void send(const QByteArrayList &args, CommandCallback done, qint64 deadlineMs);
    void scheduleFlush();
    void flush();
    void transportUp();
    void readReplies();
    void socketFailed(QAbstractSocket::SocketError error);
    void tlsFailed(const QList<QSslError> &errors);
    void armDeadline();
    void deadlinePassed();
    void connectTimedOut();
    // Closes the socket, fails every waiting command with `code` and `reason`, then reports
    // disconnected(reason). A no-op while Disconnected.
    void drop(const QString &reason, ErrorCode code);

    ConnectionOptions m_options;
    State m_state = State::Disconnected;
    std::unique_ptr<Transport> m_transport;  // socket and reader of the current connection
    std::deque<Waiting> m_waiting;           // in send order: Redis answers in that order
    qsizetype m_written = 0;                 // the first m_written waiting commands were handed to the socket
    QByteArray m_output;                     // formatted commands not yet handed to the socket
    std::function<void(const RedisReply &)> m_messageHandler;
    quint64 m_generation = 0;                // counts connections: a drop ends the current one
    QTimer m_flushTimer; // 0 ms: fires once the event loop is through with this turn
    QTimer m_deadlineTimer;
    QTimer m_connectTimer;
};

} // namespace Broker::Redis
