// SPDX-License-Identifier: GPL-3.0-or-later
#include "redisconnection.h"

#include "respcodec.h"
#include "tlsconfiguration.h"

#include <QPointer>
#include <QSslSocket>
#include <QTcpSocket>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <limits>
#include <utility>

#include <sys/socket.h>

namespace Broker::Redis {

qint64 steadyMs()
{
    using namespace std::chrono;
    return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

namespace {

// Socket signal handlers of any connection running in this thread now. A socket is never deleted
// inside one of its own signals (Qt reads its state after the handler returns), and a callback
// may close or destroy its connection from there: then the socket goes with deleteLater().
thread_local int t_socketSignals = 0;

struct InSocketSignal
{
    InSocketSignal() { ++t_socketSignals; }
    ~InSocketSignal() { --t_socketSignals; }
    InSocketSignal(const InSocketSignal &) = delete;
    InSocketSignal &operator=(const InSocketSignal &) = delete;
};

// A fatal TLS alert from the server in an operator's words (Qt 6.4 names some alerts "unknown").
QString alertReason(QSsl::AlertType type, const QString &text)
{
    switch (type) {
    case QSsl::AlertType::CertificateRequired:
    case QSsl::AlertType::NoCertificate:
        return QStringLiteral("the server wants a client certificate (tls_cert_file, tls_key_file)");
    case QSsl::AlertType::BadCertificate:
    case QSsl::AlertType::UnknownCa:
    case QSsl::AlertType::CertificateUnknown:
    case QSsl::AlertType::CertificateExpired:
    case QSsl::AlertType::CertificateRevoked:
    case QSsl::AlertType::UnsupportedCertificate:
    case QSsl::AlertType::AccessDenied:
        return QStringLiteral("the server refused the client certificate (%1)").arg(text);
    default:
        return QStringLiteral("the server ended the session (alert %1: %2)").arg(int(type)).arg(text);
    }
}

// What a subscribed connection receives for a PUBLISH (RESP2): ["message", channel, payload].
bool isPushedMessage(const RedisReply &reply)
{
    return reply.type == RedisReply::Type::Array && reply.elements.size() == 3 && reply.elements[0].isText("message");
}

} // namespace

// What one connection attempt owns: the socket and the reader of its byte stream.
class RedisConnection::Transport
{
public:
    explicit Transport(qint64 maxReplyBytes) : reader(maxReplyBytes) {}
    ~Transport()
    {
        if (!socket)
            return;
        QObject::disconnect(socket, nullptr, nullptr, nullptr); // nothing of it reaches us again
        socket->abort();
        if (t_socketSignals > 0)
            socket->deleteLater();
        else
            delete socket;
    }
    Transport(const Transport &) = delete;
    Transport &operator=(const Transport &) = delete;

    QTcpSocket *socket = nullptr; // owned (no QObject parent: see the destructor)
    QSslSocket *tls = nullptr;    // the same socket when TLS is on
    RespReader reader;
    bool tcpUp = false;           // the TCP connection stands (the TLS handshake may still run)
    bool up = false;              // connected, and encrypted when TLS is on: writes may go out
    QString tlsErrors;            // why the server's certificate was not accepted
    QString tlsAlert;             // the fatal alert the server sent, if any ("certificate required")
};

RedisConnection::RedisConnection(ConnectionOptions options, QObject *parent)
    : QObject(parent), m_options(std::move(options)), m_flushTimer(this), m_deadlineTimer(this), m_connectTimer(this)
{
    m_flushTimer.setSingleShot(true);
    m_flushTimer.setInterval(0);
    connect(&m_flushTimer, &QTimer::timeout, this, &RedisConnection::flush);
    m_deadlineTimer.setSingleShot(true);
    m_connectTimer.setSingleShot(true);
    connect(&m_deadlineTimer, &QTimer::timeout, this, &RedisConnection::deadlinePassed);
    connect(&m_connectTimer, &QTimer::timeout, this, &RedisConnection::connectTimedOut);
}

RedisConnection::~RedisConnection()
{
    for (Waiting &waiting : m_waiting)
        waiting.done = nullptr; // dropped, never called
    m_waiting.clear();
    m_transport.reset();
}

void RedisConnection::open()
{
    if (m_state != State::Disconnected)
        return;
    auto transport = std::make_unique<Transport>(m_options.maxReplyBytes);
    if (m_options.tls) {
        const Result<QSslConfiguration> configuration = tlsConfiguration(m_options);
        if (!configuration) {
            // Reported from the event loop, like every other outcome of open().
            const QString reason = QStringLiteral("cannot connect: %1").arg(configuration.error().message);
            QMetaObject::invokeMethod(this, [this, reason] { Q_EMIT disconnected(reason); }, Qt::QueuedConnection);
            return;
        }
        auto *socket = new QSslSocket;
        socket->setSslConfiguration(*configuration);
        socket->setPeerVerifyName(tlsPeerName(m_options));
        transport->socket = transport->tls = socket;
        connect(socket, &QSslSocket::encrypted, this, &RedisConnection::transportUp);
        connect(socket, &QSslSocket::sslErrors, this, &RedisConnection::tlsFailed);
        connect(socket, &QSslSocket::alertReceived, this, [this](QSsl::AlertLevel level, QSsl::AlertType type, const QString &text) {
            if (level == QSsl::AlertLevel::Fatal)
                m_transport->tlsAlert = alertReason(type, text);
        });
    } else {
        transport->socket = new QTcpSocket;
    }
    QTcpSocket *socket = transport->socket;
    connect(socket, &QAbstractSocket::connected, this, [this] {
        InSocketSignal inSignal;
        m_transport->tcpUp = true;
        // Redis answers small writes: Nagle's delay would add up to 40 ms per round trip.
        m_transport->socket->setSocketOption(QAbstractSocket::LowDelayOption, 1);
        m_transport->socket->setSocketOption(QAbstractSocket::KeepAliveOption, 1);
        if (!m_transport->tls)
            transportUp();
    });
    connect(socket, &QAbstractSocket::readyRead, this, &RedisConnection::readReplies);
    connect(socket, &QAbstractSocket::errorOccurred, this, &RedisConnection::socketFailed);
    connect(socket, &QAbstractSocket::disconnected, this, [this] {
        InSocketSignal inSignal;
        drop(QStringLiteral("connection closed by the server"), ErrorCode::Unavailable);
    });
    m_transport = std::move(transport);
    m_state = State::Connecting;
    m_connectTimer.start(m_options.connectTimeoutMs);
    startHandshake();
    // Connecting starts from the event loop: a refused loopback connect fails inside
    // connectToHost(), and open()'s outcomes are never reported from within open().
    const quint64 generation = m_generation;
    QMetaObject::invokeMethod(this, [this, generation] {
        if (generation != m_generation || !m_transport)
            return;
        InSocketSignal inSignal; // connectToHost may fail (and drop) at once
        if (QSslSocket *tls = m_transport->tls)
            tls->connectToHostEncrypted(m_options.host, quint16(m_options.port), tlsPeerName(m_options));
        else
            m_transport->socket->connectToHost(m_options.host, quint16(m_options.port));
    }, Qt::QueuedConnection);
}

void RedisConnection::startHandshake()
{
    // Queued at once; written when the transport is up. Ready only after PING answers, so that
    // Ready means a server that really replies. The connect timer bounds them all.
    const auto refuse = [this](const char *what) {
        return [this, what](CommandResult result) {
            if (result && result->isError())
                drop(QStringLiteral("Redis refused %1: %2").arg(QLatin1StringView(what), QString::fromUtf8(result->string)),
                     ErrorCode::Unavailable);
        };
    };
    if (!m_options.password.isEmpty() || !m_options.username.isEmpty()) {
        QByteArrayList auth{QByteArrayLiteral("AUTH")};
        if (!m_options.username.isEmpty())
            auth.append(m_options.username.toUtf8());
        auth.append(m_options.password.toUtf8());
        send(auth, refuse("AUTH"), 0);
    }
    if (m_options.database != 0)
        send({QByteArrayLiteral("SELECT"), QByteArray::number(m_options.database)}, refuse("SELECT"), 0);
    // Before PING: no command is sent on the connection before it is answered, and a load that
    // does not come within the connect timeout fails the connect, not commands that may have run.
    if (!m_options.firstCommand.isEmpty())
        send(m_options.firstCommand, [](CommandResult) {}, 0);
    send({QByteArrayLiteral("PING")}, [this, refused = refuse("PING")](CommandResult result) {
        if (!result || m_state != State::Connecting)
            return;
        if (result->isError()) {
            refused(std::move(result));
            return;
        }
        m_connectTimer.stop();
        m_state = State::Ready;
        Q_EMIT ready();
    }, 0);
}

void RedisConnection::close()
{
    drop(QStringLiteral("connection closed"), ErrorCode::Unavailable);
}

void RedisConnection::command(const QByteArrayList &args, CommandCallback done, int timeoutMs)
{
    if (m_state != State::Ready) {
        done(Error{ErrorCode::Unavailable, QStringLiteral("Redis is not connected"), NotSent});
        return;
    }
    const int timeout = timeoutMs > 0 ? timeoutMs : m_options.commandTimeoutMs;
    send(args, std::move(done), steadyMs() + timeout);
}

void RedisConnection::send(const QByteArrayList &args, CommandCallback done, qint64 deadlineMs)
{
    const qint64 unsent = m_output.size() + m_transport->socket->bytesToWrite();
    if (unsent > m_options.maxOutputBytes) {
        done(Error{ErrorCode::Unavailable,
                   QStringLiteral("Redis: %1 bytes of commands wait to be sent (the bound)").arg(unsent), NotSent});
        return;
    }
    if (!appendCommand(m_output, args)) {
        done(Error{ErrorCode::Unavailable, QStringLiteral("Redis: out of memory formatting a command"), NotSent});
        return;
    }
    const bool idle = m_waiting.empty();
    m_waiting.push_back(Waiting{std::move(done), deadlineMs});
    // The handshake (deadline 0) is bounded by the connect timer instead.
    if (deadlineMs > 0 && (!m_deadlineTimer.isActive() || deadlineMs < m_deadlineTimer.remainingTime() + steadyMs()))
        armDeadline();
    // A command on an idle connection goes out at once: it is most often the only one of its
    // turn (a request's script), and a zero timer would cost another turn of the event loop.
    // The commands that follow it in the same turn go out together when the turn ends.
    if (idle && m_transport->up)
        return flush();
    scheduleFlush();
}

void RedisConnection::scheduleFlush()
{
    // A zero timer rather than a posted event: posting wakes the event dispatcher with a system
    // call each time.
    if (!m_flushTimer.isActive())
        m_flushTimer.start();
}

void RedisConnection::flush()
{
    if (!m_transport || !m_transport->up || m_output.isEmpty())
        return;
    QTcpSocket *socket = m_transport->socket;
    const QByteArray output = std::exchange(m_output, QByteArray());
    // The commands in `output` count as written (they may have run) once any of their bytes
    // left; a write that fails before that leaves them NotSent.
    const qsizetype handed = qsizetype(m_waiting.size());
    // Plain TCP with nothing queued in the socket: straight to the kernel. QTcpSocket's own write
    // arms and disarms its write notifier around every write, about 5,000 instructions a command.
    qsizetype sent = 0;
    if (!m_transport->tls && socket->bytesToWrite() == 0) {
        const ssize_t n = ::send(int(socket->socketDescriptor()), output.constData(), size_t(output.size()), MSG_NOSIGNAL);
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            drop(QStringLiteral("cannot write: %1").arg(qt_error_string(errno)), ErrorCode::Unavailable);
            return;
        }
        sent = std::max<qsizetype>(n, 0);
        if (sent > 0)
            m_written = handed;
        if (sent == output.size())
            return;
    }
    // What the kernel did not take (and everything over TLS) through the socket, which writes it
    // as the kernel takes more.
    const qint64 rest = output.size() - sent;
    if (socket->write(output.constData() + sent, rest) != rest) {
        drop(QStringLiteral("cannot write: %1").arg(socket->errorString()), ErrorCode::Unavailable);
        return;
    }
    m_written = handed;
    // Into the kernel now rather than on the socket's next turn (for TLS: encrypted now). Last:
    // a failing write drops the connection from in here.
    InSocketSignal inSignal;
    socket->flush();
}

void RedisConnection::transportUp()
{
    InSocketSignal inSignal;
    m_transport->up = true;
    flush();
}

void RedisConnection::readReplies()
{
    InSocketSignal inSignal;
    if (!m_transport)
        return;
    RespReader &reader = m_transport->reader;
    // From the socket's buffer into the reader's through a chunk on the stack (readAll() would
    // allocate one for every read), no more than the buffer holds at a time.
    QTcpSocket *socket = m_transport->socket;
    char chunk[16 * 1024];
    for (qint64 available; (available = socket->bytesAvailable()) > 0;) {
        const qint64 got = socket->read(chunk, std::min<qint64>(available, qint64(sizeof chunk)));
        if (got <= 0)
            break;
        if (!reader.feed(QByteArrayView(chunk, got))) {
            drop(QStringLiteral("cannot read the server's replies: %1").arg(reader.error()), ErrorCode::Unavailable);
            return;
        }
    }
    // A callback may issue commands, close, reopen or destroy this connection: after each, go on
    // only while it is alive and still this connection.
    const QPointer<RedisConnection> self(this);
    const quint64 generation = m_generation;
    while (true) {
        std::optional<RedisReply> reply = reader.next();
        if (!reply) {
            if (reader.failed())
                drop(QStringLiteral("protocol error: %1").arg(reader.error()), ErrorCode::Unavailable);
            return;
        }
        if (m_messageHandler && isPushedMessage(*reply)) {
            const auto handler = m_messageHandler; // it may replace itself or destroy this connection
            handler(*reply);
            if (!self || generation != m_generation)
                return;
            continue;
        }
        if (m_written == 0) {
            drop(QStringLiteral("protocol error: the server sent a reply to no command"), ErrorCode::Unavailable);
            return;
        }
        Waiting waiting = std::move(m_waiting.front());
        m_waiting.pop_front();
        --m_written;
        if (waiting.done)
            waiting.done(std::move(*reply));
        if (!self || generation != m_generation)
            return;
    }
}

void RedisConnection::tlsFailed(const QList<QSslError> &errors)
{
    // Not ignored: the handshake fails next, with errorOccurred(), which reports these.
    QStringList texts;
    for (const QSslError &error : errors)
        texts.append(error.errorString());
    m_transport->tlsErrors = texts.join(QStringLiteral("; "));
}

void RedisConnection::socketFailed(QAbstractSocket::SocketError error)
{
    InSocketSignal inSignal;
    if (!m_transport)
        return;
    const bool connecting = m_state == State::Connecting;
    const QString text = m_transport->socket->errorString();
    QString reason;
    if (m_transport->tls && !m_transport->tlsErrors.isEmpty())
        reason = QStringLiteral("TLS handshake failed: the server's certificate was refused: %1").arg(m_transport->tlsErrors);
    else if (m_transport->tls && !m_transport->tlsAlert.isEmpty())
        reason = QStringLiteral("%1TLS: %2")
                     .arg(connecting ? QStringLiteral("cannot connect: ") : QString(), m_transport->tlsAlert);
    else if (m_transport->tls && m_transport->tcpUp && !m_transport->up)
        reason = QStringLiteral("TLS handshake failed: %1").arg(text);
    else if (error == QAbstractSocket::SslHandshakeFailedError || error == QAbstractSocket::SslInternalError
             || error == QAbstractSocket::SslInvalidUserDataError)
        reason = QStringLiteral("%1TLS: %2").arg(connecting ? QStringLiteral("cannot connect: ") : QString(), text);
    else if (error == QAbstractSocket::RemoteHostClosedError)
        reason = connecting ? QStringLiteral("cannot connect: the server closed the connection")
                            : QStringLiteral("connection closed by the server");
    else
        reason = QStringLiteral("%1: %2").arg(connecting ? QStringLiteral("cannot connect") : QStringLiteral("connection lost"), text);
    drop(reason, ErrorCode::Unavailable);
}

void RedisConnection::armDeadline()
{
    qint64 earliest = std::numeric_limits<qint64>::max();
    for (const Waiting &waiting : m_waiting) {
        if (waiting.deadlineMs > 0)
            earliest = std::min(earliest, waiting.deadlineMs);
    }
    if (earliest == std::numeric_limits<qint64>::max()) {
        m_deadlineTimer.stop();
        return;
    }
    m_deadlineTimer.start(int(std::clamp<qint64>(earliest - steadyMs(), 0, std::numeric_limits<int>::max())));
}

void RedisConnection::deadlinePassed()
{
    const qint64 now = steadyMs();
    const bool late = std::any_of(m_waiting.begin(), m_waiting.end(), [now](const Waiting &waiting) {
        return waiting.deadlineMs > 0 && waiting.deadlineMs <= now;
    });
    if (late) {
        drop(QStringLiteral("no reply within the command deadline"), ErrorCode::Timeout);
        return;
    }
    armDeadline();
}

void RedisConnection::connectTimedOut()
{
    if (m_state != State::Connecting || !m_transport)
        return;
    const bool handshaking = m_transport->tls && m_transport->tcpUp && !m_transport->up;
    drop(QStringLiteral("%1 within the connect timeout (%2 ms)")
             .arg(handshaking ? QStringLiteral("no TLS handshake") : QStringLiteral("no answer"))
             .arg(m_options.connectTimeoutMs),
         ErrorCode::Timeout);
}

void RedisConnection::drop(const QString &reason, ErrorCode code)
{
    if (m_state == State::Disconnected && !m_transport)
        return;
    ++m_generation; // what still runs for the old connection stops here
    m_transport.reset();
    m_state = State::Disconnected;
    m_connectTimer.stop();
    m_deadlineTimer.stop();
    m_flushTimer.stop();
    m_output.clear();
    std::deque<Waiting> waiting;
    waiting.swap(m_waiting); // commands issued by the callbacks below fail at once
    const qsizetype written = std::exchange(m_written, 0);
    const QPointer<RedisConnection> self(this);
    const QString message = QStringLiteral("Redis: %1").arg(reason);
    for (qsizetype i = 0; i < qsizetype(waiting.size()); ++i) {
        CommandCallback done = std::move(waiting[size_t(i)].done);
        if (done)
            done(Error{code, message, i < written ? QString() : NotSent});
        if (!self)
            return; // destroyed by a callback: the rest are dropped, as destruction does
    }
    Q_EMIT disconnected(reason);
}

} // namespace Broker::Redis
