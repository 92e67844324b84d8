// SPDX-License-Identifier: GPL-3.0-or-later
// What one connection may cost the server: output it does not read (backpressure, then cut off),
// slots held by silent or half-sent heads (head timeout), slots held per client address (caps),
// and framing that could be read two ways (refused).
#include "restfixture.h"

#include <QDir>
#include <QSet>
#include <QElapsedTimer>
#include <QTest>

#include <unistd.h>

using namespace Broker;
using namespace Broker::Testing;

namespace {

QByteArray get(const QByteArray &path, const QByteArray &requestId = {})
{
    return "GET " + path + " HTTP/1.1\r\nHost: t\r\n"
        + (requestId.isEmpty() ? QByteArray() : "X-Request-ID: " + requestId + "\r\n") + "\r\n";
}

// Everything the server sends until it closes the connection (or `timeoutMs` passes).
QByteArray readUntilClosed(QTcpSocket &socket, int timeoutMs)
{
    QByteArray all;
    QElapsedTimer timer;
    timer.start();
    while (timer.elapsed() < timeoutMs) {
        all += socket.readAll();
        if (socket.state() == QAbstractSocket::UnconnectedState)
            break;
        QTest::qWait(5);
    }
    return all + socket.readAll();
}

qint64 answeredCount(const Rest::RestServer &server, const QByteArray &route)
{
    const QByteArray needle = "brokerdesk_http_requests_total{method=\"GET\",route=\"" + route + "\",status=\"200\"} ";
    const QByteArray exposition = server.httpMetrics().exposition();
    const qsizetype at = exposition.indexOf(needle);
    if (at < 0)
        return 0;
    const qsizetype start = at + needle.size();
    return exposition.mid(start, exposition.indexOf('\n', start) - start).toLongLong();
}

} // namespace

class TestGuardedConnection : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    // The HTTP layer beneath the routes: its answers (framing, limits, timeouts) come before any
    // route, so they are not the OpenAPI document's operations.
    void initTestCase() { RestFixture::checksContractByDefault = false; }

    void unreadOutputStopsReadingAndResumesInOrder();
    void outputThatDoesNotDrainIsCutOff();
    void aReaderBehindTheBacklogIsNotCutOff();
    void refusedConnectionsDoNotHoldDescriptors();
    void shutdownDoesNotWaitForAClientThatDoesNotRead();
    void silentAndHalfSentHeadsFreeTheirSlot_data();
    void silentAndHalfSentHeadsFreeTheirSlot();
    void refusalToHeadHasNoBody();
    void perAddressCap();
    void ambiguousFramingIsRefusedAndClosed_data();
    void ambiguousFramingIsRefusedAndClosed();
};

void TestGuardedConnection::unreadOutputStopsReadingAndResumesInOrder()
{
    Rest::RestOptions options;
    options.guard.maxPendingOutputBytes = 64 * 1024;
    options.guard.outputDrainTimeoutMs = 20'000;
    RestFixture f(options);
    const qsizetype documentBytes = f.request("GET", "/openapi.json").body.size();
    QVERIFY(documentBytes > 4096);

    // Far more answers than the kernel's buffers and the bound hold, pipelined and not read.
    constexpr int Requests = 1500;
    QTcpSocket client;
    client.setReadBufferSize(4096); // Qt takes no more from the kernel than this while we do not read
    client.connectToHost(QHostAddress::LocalHost, f.port);
    QVERIFY(client.waitForConnected(5000));
    QByteArray pipeline;
    for (int i = 0; i < Requests; ++i)
        pipeline += get("/openapi.json", "r-" + QByteArray::number(i));
    client.write(pipeline);
    QTest::qWait(500);
    const qint64 answeredWhileUnread = answeredCount(*f.server, "/openapi.json") - 1;
    qInfo("answered while the client did not read: %lld of %d (%lld bytes each)", answeredWhileUnread, Requests,
          qint64(documentBytes));
    QVERIFY(answeredWhileUnread > 0);
    QVERIFY2(answeredWhileUnread < Requests / 2, "the server went on answering a client that does not read");

    // Reading again: every answer arrives, in the order asked.
    client.setReadBufferSize(0);
    QByteArray buffer;
    int received = 0;
    QElapsedTimer timer;
    timer.start();
    while (received < Requests && timer.elapsed() < 30'000) {
        QTest::qWait(2); // the server runs in this thread too
        buffer += client.readAll();
        if (client.state() != QAbstractSocket::ConnectedState && client.bytesAvailable() == 0)
            break;
        while (std::optional<HttpResponse> response = takeResponse(buffer)) {
            QCOMPARE(response->status, 200);
            QCOMPARE(response->header("X-Request-ID"), "r-" + QByteArray::number(received));
            ++received;
        }
    }
    QCOMPARE(received, Requests);
    QCOMPARE(f.server->guardStats().stalledOutputs, 0);
}

void TestGuardedConnection::outputThatDoesNotDrainIsCutOff()
{
    Rest::RestOptions options;
    options.guard.maxPendingOutputBytes = 64 * 1024;
    options.guard.outputDrainTimeoutMs = 400;
    RestFixture f(options);
    QTcpSocket client;
    client.setReadBufferSize(4096);
    client.connectToHost(QHostAddress::LocalHost, f.port);
    QVERIFY(client.waitForConnected(5000));
    client.write(get("/openapi.json").repeated(3000));
    QTRY_COMPARE_WITH_TIMEOUT(f.server->guardStats().stalledOutputs, 1, 5000);
    QTRY_COMPARE_WITH_TIMEOUT(f.server->connectionCount(), 0, 2000);
    // The slot is free again for a client that reads.
    QCOMPARE(f.request("GET", "/health/live").status, 200);
}

void TestGuardedConnection::aReaderBehindTheBacklogIsNotCutOff()
{
    // A client that reads a deep pipeline's answers in small pieces, always behind the backlog,
    // keeps its connection: the drain timeout is about no progress, not about a backlog. (The
    // server sees progress when the kernel reports the socket writable again, which it does only
    // once a good part of its send buffer is free: a client reading far slower than this one can
    // still look stalled for a while.) The timeout is well above a loaded machine's scheduling
    // hiccups, and still shorter than the 3 s of reading, all of it behind the backlog.
    Rest::RestOptions options;
    options.guard.maxPendingOutputBytes = 64 * 1024;
    options.guard.outputDrainTimeoutMs = 2000;
    RestFixture f(options);
    QTcpSocket client;
    client.setSocketOption(QAbstractSocket::ReceiveBufferSizeSocketOption, 32 * 1024);
    client.setReadBufferSize(32 * 1024);
    client.connectToHost(QHostAddress::LocalHost, f.port);
    QVERIFY(client.waitForConnected(5000));
    client.write(get("/openapi.json").repeated(3000));
    qint64 received = 0;
    QElapsedTimer timer;
    timer.start();
    while (timer.elapsed() < 3000) {
        QTest::qWait(20);
        received += client.read(32 * 1024).size();
    }
    const Rest::GuardStats stats = f.server->guardStats();
    qInfo("a slow reader took %lld bytes in 3 s; cut off: %lld stalled", received, stats.stalledOutputs);
    QVERIFY(received > 4 * options.guard.maxPendingOutputBytes); // it kept reading, well past the bound
    QCOMPARE(stats.stalledOutputs, 0);
    QCOMPARE(client.state(), QAbstractSocket::ConnectedState);
}

namespace {

// File descriptors of this process that are the server's end of a connection on `port`
// (sockets whose local port it is, listening socket excluded).
int serverSideDescriptors(quint16 port)
{
    QSet<QByteArray> inodes;
    QFile table("/proc/self/net/tcp");
    if (!table.open(QIODevice::ReadOnly))
        return -1;
    // readAll, not readLine until atEnd: the kernel hands the table out 27 whole lines per read
    // and the file's size is 0, so QFile's atEnd() is true whenever its buffer ends on a read's
    // boundary, and a loop on it stops at line 27 once other tests hold that many sockets.
    const QList<QByteArray> lines = table.readAll().split('\n');
    for (qsizetype i = 1; i < lines.size(); ++i) { // line 0 is the header
        const QList<QByteArray> fields = lines[i].simplified().split(' ');
        if (fields.size() < 10)
            continue;
        const bool ours = fields[1].split(':').value(1).toUInt(nullptr, 16) == port;
        if (ours && fields[3] != "0A") // 0A: listening
            inodes.insert("socket:[" + fields[9] + "]");
    }
    int count = 0;
    for (const QString &fd : QDir("/proc/self/fd").entryList(QDir::Files | QDir::System)) {
        char target[128] = {};
        const QByteArray link = QFile::encodeName("/proc/self/fd/" + fd);
        if (::readlink(link.constData(), target, sizeof target - 1) > 0 && inodes.contains(QByteArray(target)))
            ++count;
    }
    return count;
}

} // namespace

void TestGuardedConnection::refusedConnectionsDoNotHoldDescriptors()
{
    // 300 connections over the cap: the server lingers on a bounded number of them to deliver
    // their 503, so a flood cannot use up its file descriptors.
    Rest::RestOptions options;
    options.guard.maxConnectionsPerLoopbackAddress = 1;
    RestFixture f(options);
    QTcpSocket admitted;
    admitted.connectToHost(QHostAddress::LocalHost, f.port);
    QVERIFY(admitted.waitForConnected(5000));
    QTRY_COMPARE(f.server->connectionCount(), 1);
    QCOMPARE(serverSideDescriptors(f.port), 1);
    constexpr int Refused = 300;
    std::vector<std::unique_ptr<QTcpSocket>> clients;
    for (int i = 0; i < Refused; ++i) {
        clients.push_back(std::make_unique<QTcpSocket>());
        clients.back()->connectToHost(QHostAddress::LocalHost, f.port);
    }
    QTRY_COMPARE_WITH_TIMEOUT(f.server->guardStats().refusedAddressFull, qint64(Refused), 10'000);
    const int held = serverSideDescriptors(f.port);
    qInfo("descriptors the server holds after refusing %d connections: %d", Refused, held);
    QVERIFY2(held >= 1 && held <= 1 + 64, qPrintable(QString::number(held)));
}

void TestGuardedConnection::shutdownDoesNotWaitForAClientThatDoesNotRead()
{
    Rest::RestOptions options;
    options.guard.maxPendingOutputBytes = 64 * 1024;
    options.guard.outputDrainTimeoutMs = 60'000;
    RestFixture f(options);
    QTcpSocket client;
    client.setReadBufferSize(4096);
    client.connectToHost(QHostAddress::LocalHost, f.port);
    QVERIFY(client.waitForConnected(5000));
    client.write(get("/openapi.json").repeated(1500));
    QTest::qWait(300);
    bool drained = false;
    QObject::connect(f.server.get(), &Rest::RestServer::drained, [&] { drained = true; });
    f.server->stopAccepting();
    // Closed at once; the socket lingers (at most 2 s) for what it was already sent.
    QTRY_VERIFY_WITH_TIMEOUT(drained, 4000);
    QCOMPARE(f.server->guardStats().stalledOutputs, 0);
}

void TestGuardedConnection::silentAndHalfSentHeadsFreeTheirSlot_data()
{
    QTest::addColumn<QByteArray>("sent");
    QTest::addColumn<int>("status"); // 0: closed without an answer
    QTest::addRow("nothing-sent-is-closed-silently") << QByteArray() << 0;
    QTest::addRow("half-sent-head-is-408") << QByteArray("GET /health/live HTTP/1.1\r\nHost: t\r\nX-Slow: ") << 408;
    QTest::addRow("trickled-head-is-408") << QByteArray("G") << 408;
}

void TestGuardedConnection::silentAndHalfSentHeadsFreeTheirSlot()
{
    QFETCH(QByteArray, sent);
    QFETCH(int, status);
    Rest::RestOptions options;
    options.guard.headTimeoutMs = 300;     // what frees the slot ...
    options.guard.idleTimeoutMs = 60'000;  // ... not these
    options.guard.requestTimeoutMs = 60'000;
    RestFixture f(options);
    QTcpSocket client;
    client.connectToHost(QHostAddress::LocalHost, f.port);
    QVERIFY(client.waitForConnected(5000));
    if (!sent.isEmpty()) {
        client.write(sent);
        client.flush();
    }
    QElapsedTimer timer;
    timer.start();
    QByteArray answer = readUntilClosed(client, 5000);
    QCOMPARE(client.state(), QAbstractSocket::UnconnectedState);
    QVERIFY2(timer.elapsed() < 3000, "the head timeout did not free the slot");
    if (status == 0) {
        QVERIFY(answer.isEmpty());
    } else {
        const std::optional<HttpResponse> response = takeResponse(answer);
        QVERIFY(response.has_value());
        QCOMPARE(response->status, status);
    }
    QCOMPARE(f.server->guardStats().headTimeouts, 1);
    QTRY_COMPARE_WITH_TIMEOUT(f.server->connectionCount(), 0, 1000);
}

void TestGuardedConnection::refusalToHeadHasNoBody()
{
    Rest::RestOptions options;
    options.guard.headTimeoutMs = 300;
    RestFixture f(options);
    QTcpSocket client;
    client.connectToHost(QHostAddress::LocalHost, f.port);
    QVERIFY(client.waitForConnected(5000));
    client.write("HEAD /health HTTP/1.1\r\nHost: t\r\n"); // never finished
    const QByteArray answer = readUntilClosed(client, 5000);
    QVERIFY(answer.startsWith("HTTP/1.1 408 "));
    QVERIFY2(answer.endsWith("\r\n\r\n"), answer.constData()); // the head only
    QVERIFY(answer.contains("Content-Length: "));
}

void TestGuardedConnection::perAddressCap()
{
    Rest::RestOptions options;
    options.guard.maxConnectionsPerLoopbackAddress = 2;
    options.guard.maxConnections = 10;
    RestFixture f(options);
    RawClient one(f.port);
    RawClient two(f.port);
    one.send(get("/health/live"));
    two.send(get("/health/live"));
    QCOMPARE(one.receive().status, 200);
    QCOMPARE(two.receive().status, 200);
    RawClient third(f.port);
    const HttpResponse refused = third.receive();
    QCOMPARE(refused.status, 503);
    QCOMPARE(refused.header("Retry-After"), QByteArray("1"));
    QVERIFY(refused.json().value("detail").toString().contains("from your address"));

    // Another address is another client (each loopback address counts on its own).
    QTcpSocket other;
    QVERIFY(other.bind(QHostAddress(QStringLiteral("127.0.0.2")), 0));
    other.connectToHost(QHostAddress::LocalHost, f.port);
    QVERIFY(other.waitForConnected(5000));
    other.write(get("/health/live"));
    QByteArray buffer;
    std::optional<HttpResponse> answer;
    QElapsedTimer timer;
    timer.start();
    while (!answer && timer.elapsed() < 5000) {
        QTest::qWait(5);
        buffer += other.readAll();
        answer = takeResponse(buffer);
    }
    QVERIFY(answer.has_value());
    QCOMPARE(answer->status, 200);

    const Rest::GuardStats stats = f.server->guardStats();
    QCOMPARE(stats.refusedAddressFull, 1);
    QCOMPARE(stats.refusedServerFull, 0);
    QCOMPARE(f.server->connectionCount(), 3);
}

void TestGuardedConnection::ambiguousFramingIsRefusedAndClosed_data()
{
    QTest::addColumn<QByteArray>("request");
    const QByteArray chunked = "POST /queues HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n";
    QTest::addRow("hex-prefix-size") << QByteArray(chunked + "0xd\r\n{\"name\":\"ab\"}\r\n0\r\n\r\n");
    QTest::addRow("signed-size") << QByteArray(chunked + "+d\r\n{\"name\":\"ab\"}\r\n0\r\n\r\n");
    QTest::addRow("no-crlf-after-data") << QByteArray(chunked + "d\r\n{\"name\":\"ab\"}XX0\r\n\r\n");
    QTest::addRow("bare-lf-head") << QByteArray("GET /health/live HTTP/1.1\nHost: t\n\n");
}

void TestGuardedConnection::ambiguousFramingIsRefusedAndClosed()
{
    QFETCH(QByteArray, request);
    RestFixture f;
    RawClient client(f.port);
    client.send(request + get("/health/live")); // what a lenient reader might take as a second request
    const HttpResponse refused = client.receive();
    QCOMPARE(refused.status, 400);
    QCOMPARE(refused.header("Connection"), QByteArray("close"));
    QVERIFY(client.closedWithin(2000));
    QCOMPARE(client.receive(200).status, 0); // nothing after the refusal
}

QTEST_GUILESS_MAIN(TestGuardedConnection)
#include "tst_guardedconnection.moc"
