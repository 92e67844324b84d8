// SPDX-License-Identifier: GPL-3.0-or-later
// RemoteApi's transport failures, against servers of the test: a broker that is gone, one that
// accepts and never answers (deadlines, the in-flight bound, a FIFO of waiting calls, destruction
// with requests out), and answers no broker of ours gives (a proxy's 502, a redirect, a body that
// is not JSON), from a canned server; ids percent-encoded into paths.
#include "remoteapitest.h"

#include <QHash>
#include <QTcpServer>
#include <QTcpSocket>

using namespace Broker;
using namespace Broker::Testing;

namespace {

// A server that accepts connections and never answers; it keeps what each one sent.
class BlackHole : public QTcpServer
{
public:
    BlackHole()
    {
        connect(this, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = nextPendingConnection()) {
                const qsizetype index = received.size();
                received.append(QByteArray());
                connect(socket, &QTcpSocket::readyRead, this, [this, socket, index] { received[index] += socket->readAll(); });
            }
        });
        listen(QHostAddress::LocalHost, 0);
    }
    // The request paths received so far, in connection order.
    QStringList paths() const
    {
        QStringList out;
        for (const QByteArray &bytes : received)
            out.append(QString::fromLatin1(bytes.split(' ').value(1)));
        return out;
    }
    QList<QByteArray> received;
};

// A server that answers every request with the same bytes and closes.
class CannedServer : public QTcpServer
{
public:
    explicit CannedServer(QByteArray response) : m_response(std::move(response))
    {
        connect(this, &QTcpServer::newConnection, this, [this] {
            while (QTcpSocket *socket = nextPendingConnection()) {
                ++connections;
                connect(socket, &QTcpSocket::readyRead, socket, [this, socket] {
                    m_buffer[socket] += socket->readAll();
                    if (m_buffer[socket].contains("\r\n\r\n")) {
                        requests.append(m_buffer[socket]);
                        socket->write(m_response);
                        socket->disconnectFromHost();
                    }
                });
            }
        });
        listen(QHostAddress::LocalHost, 0);
    }
    int connections = 0;
    QList<QByteArray> requests;

private:
    QByteArray m_response;
    QHash<QTcpSocket *, QByteArray> m_buffer;
};

} // namespace

Q_DECLARE_METATYPE(Broker::ErrorCode)

class TestRemoteApiTransport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void aBrokerThatIsGoneIsUnavailable()
    {
        quint16 port = 0;
        {
            QTcpServer probe;
            QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
            port = probe.serverPort();
        } // closed: nothing listens there now
        RemoteApi api(plainEndpoint(port));
        const std::optional<Error> error = errorOf(api.users());
        QVERIFY(error);
        QCOMPARE(error->code, ErrorCode::Unavailable);
        QCOMPARE(error->message, QStringLiteral("broker at http://127.0.0.1:%1 not reachable: connection refused").arg(port));
        QVERIFY(!error->message.contains(QString::fromLatin1(AdminKey)));
        QVERIFY(!error->detail.contains(QString::fromLatin1(AdminKey)));
        QCOMPARE(api.inFlight(), 0);
    }

    void aBrokerThatNeverAnswersTimesOut()
    {
        BlackHole hole;
        RemoteApi api(plainEndpoint(hole.serverPort()));
        api.setDeadlineMs(300);
        QElapsedTimer timer;
        timer.start();
        const std::optional<Error> read = errorOf(api.users());
        QVERIFY(read);
        QCOMPARE(read->code, ErrorCode::Timeout);
        QVERIFY2(timer.elapsed() >= 290 && timer.elapsed() < 5000, qPrintable(QString::number(timer.elapsed())));
        QCOMPARE(read->message, QStringLiteral("The broker at http://127.0.0.1:%1 did not answer within 0.3 s").arg(hole.serverPort()));
        QVERIFY(read->detail.isEmpty());
        // A change that timed out may have been made: the detail says so.
        const std::optional<Error> change = errorOf(api.purgeQueue(QStringLiteral("orders")));
        QVERIFY(change);
        QCOMPARE(change->code, ErrorCode::Timeout);
        QVERIFY(!change->detail.isEmpty());
        QCOMPARE(api.inFlight(), 0);
        // The key went to the broker, in its header, and nowhere into the texts.
        QVERIFY(hole.received.first().contains("X-API-Key: " + AdminKey));
        QVERIFY(!read->message.contains(QString::fromLatin1(AdminKey)));
    }

    // At most four requests out; the rest wait in order and go out as the first end; destroying
    // the object ends every future with an error at once, and nothing reaches it afterwards.
    void boundsRequestsInFlightAndEndsThemOnDestruction()
    {
        BlackHole hole;
        auto api = std::make_unique<RemoteApi>(plainEndpoint(hole.serverPort()));
        api->setDeadlineMs(400);
        QList<QFuture<Result<IssuedKey>>> futures;
        for (int i = 0; i < 4; ++i)
            futures.append(api->rotateKey(QStringLiteral("u%1").arg(i)));
        api->setDeadlineMs(60'000);
        for (int i = 4; i < 10; ++i)
            futures.append(api->rotateKey(QStringLiteral("u%1").arg(i)));
        QCOMPARE(api->inFlight(), 4);
        QCOMPARE(api->waiting(), 6);
        QTRY_COMPARE(hole.paths().size(), 4);
        QTRY_COMPARE(hole.paths().count(QString()), 0); // every request line arrived
        const QStringList first = hole.paths();
        QCOMPARE(QSet<QString>(first.cbegin(), first.cend()),
                 (QSet<QString>{"/users/u0/rotate", "/users/u1/rotate", "/users/u2/rotate", "/users/u3/rotate"}));

        // The first four time out; the next four in call order go out; two still wait.
        QTRY_VERIFY(futures[0].isFinished() && futures[3].isFinished());
        for (int i = 0; i < 4; ++i)
            QCOMPARE(futures[i].result().error().code, ErrorCode::Timeout);
        QTRY_COMPARE(hole.paths().size(), 8);
        QTRY_COMPARE(hole.paths().count(QString()), 0);
        const QStringList next = hole.paths().mid(4);
        QCOMPARE(QSet<QString>(next.cbegin(), next.cend()),
                 (QSet<QString>{"/users/u4/rotate", "/users/u5/rotate", "/users/u6/rotate", "/users/u7/rotate"}));
        QCOMPARE(api->inFlight(), 4);
        QCOMPARE(api->waiting(), 2);
        for (int i = 4; i < 10; ++i)
            QVERIFY(!futures[i].isFinished());

        api.reset();
        for (int i = 4; i < 10; ++i) {
            QVERIFY(futures[i].isFinished());
            QCOMPARE(futures[i].resultCount(), 1);
            QCOMPARE(futures[i].result().error().code, ErrorCode::Unavailable);
            QVERIFY(!futures[i].result().error().message.contains(QString::fromLatin1(AdminKey)));
            // Sent changes may have been made; the two that waited were never sent.
            QCOMPARE(futures[i].result().error().detail.isEmpty(), i >= 8);
        }
        // The aborted connections close; no reply reaches the destroyed object.
        QTest::qWait(100);
        for (QTcpSocket *socket : hole.findChildren<QTcpSocket *>())
            socket->disconnectFromHost();
        QTest::qWait(100);
    }

    // A queued call's deadline also bounds its wait: it fails unsent.
    void aWaitingCallPastItsDeadlineIsNotSent()
    {
        BlackHole hole;
        RemoteApi api(plainEndpoint(hole.serverPort()));
        api.setDeadlineMs(10'000);
        QList<QFuture<Result<QList<User>>>> first;
        for (int i = 0; i < 4; ++i)
            first.append(api.users());
        api.setDeadlineMs(200);
        const std::optional<Error> error = errorOf(api.purgeQueue(QStringLiteral("orders")));
        QVERIFY(error);
        QCOMPARE(error->code, ErrorCode::Timeout);
        QVERIFY2(error->message.startsWith(QStringLiteral("The request was not sent")), qPrintable(error->message));
        QCOMPARE(api.inFlight(), 4);
        QCOMPARE(api.waiting(), 0);
        QTRY_COMPARE(hole.received.size(), 4);
    }

    // Answers from something that is not (only) our broker.
    void mapsOtherAnswers_data()
    {
        QTest::addColumn<QByteArray>("response");
        QTest::addColumn<ErrorCode>("code");
        QTest::addColumn<QString>("message");
        const auto answer = [](const QByteArray &status, const QByteArray &type, const QByteArray &body) {
            return "HTTP/1.1 " + status + "\r\nContent-Type: " + type + "\r\nContent-Length: " + QByteArray::number(body.size())
                + "\r\nConnection: close\r\n\r\n" + body;
        };
        QTest::addRow("unavailable") << answer("503 Service Unavailable", "application/problem+json",
                                               R"({"error":"Storage is read-only","status":503})")
                                     << ErrorCode::Unavailable << "Storage is read-only";
        QTest::addRow("gateway-timeout") << answer("504 Gateway Timeout", "application/problem+json",
                                                   R"({"error":"Storage did not answer","status":504})")
                                         << ErrorCode::Timeout << "Storage did not answer";
        QTest::addRow("proxy-html") << answer("502 Bad Gateway", "text/html", "<html>bad gateway</html>") << ErrorCode::Unavailable
                                    << "The broker answered HTTP 502";
        QTest::addRow("internal") << answer("500 Internal Server Error", "application/problem+json",
                                            R"({"error":"Internal error","status":500})")
                                  << ErrorCode::Internal << "Internal error";
        QTest::addRow("too-many-failures") << answer("429 Too Many Requests", "application/problem+json",
                                                     R"({"error":"Too many failed authentication attempts"})")
                                           << ErrorCode::RateLimited << "Too many failed authentication attempts";
        QTest::addRow("not-json") << answer("200 OK", "text/plain", "hello") << ErrorCode::Internal
                                  << "The broker at http://127.0.0.1:%1 answered HTTP 200 without the JSON object of its API";
        QTest::addRow("wrong-json") << answer("200 OK", "application/json", R"({"something":"else"})") << ErrorCode::Internal
                                    << "The broker's answer could not be read as a list of users";
        QTest::addRow("redirect") << QByteArray("HTTP/1.1 307 Temporary Redirect\r\nLocation: http://elsewhere.invalid/users\r\n"
                                                "Content-Length: 0\r\nConnection: close\r\n\r\n")
                                  << ErrorCode::Unavailable
                                  << "The broker at http://127.0.0.1:%1 redirects to http://elsewhere.invalid/users; redirects are not followed";
    }
    void mapsOtherAnswers()
    {
        QFETCH(QByteArray, response);
        QFETCH(ErrorCode, code);
        QFETCH(QString, message);
        CannedServer server(response);
        RemoteApi api(plainEndpoint(server.serverPort()));
        const std::optional<Error> error = errorOf(api.users());
        QVERIFY(error);
        QCOMPARE(errorCodeName(error->code), errorCodeName(code));
        QCOMPARE(error->message, message.contains(QStringLiteral("%1")) ? message.arg(server.serverPort()) : message);
        QCOMPARE(server.connections, 1); // a redirect is not followed
        QCOMPARE(api.inFlight(), 0);
    }

    // Ids and names are percent-encoded into one path segment each.
    void encodesIdsInPaths()
    {
        CannedServer server("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 16\r\nConnection: close\r\n\r\n"
                            R"({"success":true})");
        RemoteApi api(plainEndpoint(server.serverPort()));
        QVERIFY(await(api.removeUser(QStringLiteral("a/b?c#d@e"))).ok());
        QCOMPARE(server.requests.size(), 1);
        QVERIFY2(server.requests.first().startsWith("DELETE /users/a%2Fb%3Fc%23d%40e HTTP/1.1\r\n"),
                 server.requests.first().constData());
    }
};

QTEST_GUILESS_MAIN(TestRemoteApiTransport)
#include "tst_remoteapi_transport.moc"
