// SPDX-License-Identifier: GPL-3.0-or-later
// Load generator for the publish -> lease -> ack round trip, which wrk cannot script (its Lua
// state is shared by all connections of a thread). Each connection repeats: POST a 200-byte
// message, GET it with acknowledge=false, PUT the ack with the receipt; keep-alive, one request
// at a time. Prints one line: "roundtrip <round trips/s> <p50 ms> <p99 ms> <errors>".
//   roundtrip_client PORT KEY QUEUE CONNECTIONS SECONDS

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QTcpSocket>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <vector>

namespace {

struct Shared
{
    QByteArray key;
    QByteArray queue;
    QByteArray body;
    std::vector<qint64> latenciesNs;
    qint64 errors = 0;
    bool stopping = false;
};

class Connection : public QObject
{
public:
    Connection(quint16 port, Shared &shared) : m_shared(shared)
    {
        connect(&m_socket, &QTcpSocket::connected, this, &Connection::publish);
        connect(&m_socket, &QTcpSocket::readyRead, this, &Connection::read);
        m_socket.connectToHost(QStringLiteral("127.0.0.1"), port);
    }

private:
    void send(const QByteArray &method, const QByteArray &path, const QByteArray &body)
    {
        m_socket.write(method + ' ' + path + " HTTP/1.1\r\nHost: bench\r\nX-API-Key: " + m_shared.key
                       + "\r\nContent-Type: application/json\r\nContent-Length: " + QByteArray::number(body.size())
                       + "\r\n\r\n" + body);
    }
    void publish()
    {
        if (m_shared.stopping)
            return;
        m_step = 0;
        m_started.start();
        send("POST", "/messages/" + m_shared.queue, m_shared.body);
    }
    void read()
    {
        m_buffer += m_socket.readAll();
        for (;;) {
            const qsizetype end = m_buffer.indexOf("\r\n\r\n");
            if (end < 0)
                return;
            const QByteArray head = m_buffer.left(end);
            const qsizetype lengthAt = head.toLower().indexOf("content-length:");
            const qint64 length = lengthAt < 0 ? 0 : head.mid(lengthAt + 15, head.indexOf('\r', lengthAt) - lengthAt - 15).trimmed().toLongLong();
            if (m_buffer.size() < end + 4 + length)
                return;
            const int status = head.mid(9, 3).toInt();
            const QByteArray body = m_buffer.mid(end + 4, length);
            m_buffer.remove(0, end + 4 + length);
            handle(status, body);
        }
    }
    void handle(int status, const QByteArray &body)
    {
        if (m_step == 0) {
            if (status != 200)
                ++m_shared.errors;
            m_step = 1;
            send("GET", "/messages/" + m_shared.queue + "?acknowledge=false", {});
        } else if (m_step == 1) {
            if (status != 200) { // another connection leased the message first: go round again
                publish();
                return;
            }
            const qsizetype idAt = body.indexOf("\"id\":\"") + 6;
            const qsizetype receiptAt = body.indexOf("\"receipt\":\"") + 11;
            const QByteArray id = body.mid(idAt, body.indexOf('"', idAt) - idAt);
            const QByteArray receipt = body.mid(receiptAt, body.indexOf('"', receiptAt) - receiptAt);
            m_step = 2;
            send("PUT", "/messages/" + m_shared.queue + '/' + id, "{\"receipt\":\"" + receipt + "\"}");
        } else {
            if (status == 200)
                m_shared.latenciesNs.push_back(m_started.nsecsElapsed());
            else
                ++m_shared.errors;
            publish();
        }
    }

    Shared &m_shared;
    QTcpSocket m_socket;
    QByteArray m_buffer;
    QElapsedTimer m_started;
    int m_step = 0;
};

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    const QStringList args = app.arguments();
    if (args.size() != 6) {
        std::fprintf(stderr, "usage: roundtrip_client PORT KEY QUEUE CONNECTIONS SECONDS\n");
        return 2;
    }
    Shared shared;
    shared.key = args[2].toLatin1();
    shared.queue = args[3].toLatin1();
    const QByteArray prefix = R"({"message":{"order":12345,"note":")";
    const QByteArray suffix = R"("}})";
    shared.body = prefix + QByteArray(200 - prefix.size() - suffix.size(), 'x') + suffix;
    const int seconds = args[5].toInt();
    std::vector<std::unique_ptr<Connection>> connections;
    for (int i = 0; i < args[4].toInt(); ++i)
        connections.push_back(std::make_unique<Connection>(quint16(args[1].toUInt()), shared));
    QElapsedTimer clock;
    clock.start();
    QTimer::singleShot(seconds * 1000, &app, [&] {
        shared.stopping = true;
        const double elapsed = double(clock.nsecsElapsed()) / 1e9;
        std::vector<qint64> &l = shared.latenciesNs;
        std::sort(l.begin(), l.end());
        const auto percentile = [&](double p) { return l.empty() ? 0.0 : double(l[std::size_t(p * double(l.size() - 1))]) / 1e6; };
        std::printf("roundtrip %.0f %.3f %.3f %lld\n", double(l.size()) / elapsed, percentile(0.5), percentile(0.99),
                    shared.errors);
        app.quit();
    });
    return app.exec();
}
