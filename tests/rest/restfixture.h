// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A broker with its REST API on 127.0.0.1 (a free port), and a raw HTTP/1.1 client that can do
// what well-behaved clients never do (pipeline, stall, flood, vanish).

#include "engine/messagebroker.h"
#include "engine/queuetyperegistry.h"
#include "errors/errormanager.h"
#include "rest/openapi.h"
#include "rest/restserver.h"
#include "security/accesspolicy.h"
#include "security/userdirectory.h"
#include "../support/openapicontract.h"
#include "../support/teststore.h"
#include "../support/tlscertificates.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSslSocket>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <optional>

namespace Broker::Testing {

struct HttpResponse
{
    int status = 0;
    QList<QPair<QByteArray, QByteArray>> headers;
    QByteArray body;
    bool complete = false;

    QByteArray header(const QByteArray &name) const
    {
        for (const auto &[key, value] : headers) {
            if (key.compare(name, Qt::CaseInsensitive) == 0)
                return value;
        }
        return {};
    }
    QJsonObject json() const { return QJsonDocument::fromJson(body).object(); }
    QString error() const { return json().value("error").toString(); }
};

// Parses responses off a byte stream, one after another.
inline std::optional<HttpResponse> takeResponse(QByteArray &buffer, bool headRequest = false)
{
    const qsizetype end = buffer.indexOf("\r\n\r\n");
    if (end < 0)
        return std::nullopt;
    HttpResponse response;
    const QList<QByteArray> lines = buffer.left(end).split('\n');
    response.status = lines.first().split(' ').value(1).toInt();
    qint64 length = 0;
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QByteArray line = lines[i].trimmed();
        const qsizetype colon = line.indexOf(':');
        response.headers.append({line.left(colon), line.mid(colon + 1).trimmed()});
        if (line.left(colon).compare("content-length", Qt::CaseInsensitive) == 0)
            length = line.mid(colon + 1).trimmed().toLongLong();
    }
    if (headRequest || response.status == 204 || response.status == 100)
        length = 0;
    if (buffer.size() < end + 4 + length)
        return std::nullopt;
    response.body = buffer.mid(end + 4, length);
    response.complete = true;
    buffer.remove(0, end + 4 + length);
    return response;
}

// The server runs in this thread: a handshake needs the event loop, so it is waited for with it
// (QSslSocket::waitForEncrypted would block the server's side).
inline bool waitForEncrypted(QSslSocket &socket, int timeoutMs = 5000)
{
    QElapsedTimer timer;
    timer.start();
    while (!socket.isEncrypted() && timer.elapsed() < timeoutMs
           && (socket.state() != QAbstractSocket::UnconnectedState || timer.elapsed() < 50))
        QTest::qWait(2);
    return socket.isEncrypted();
}

class RawClient
{
public:
    explicit RawClient(quint16 port)
    {
        if (tlsCaFile.isEmpty()) {
            m_socket.connectToHost(QHostAddress::LocalHost, port);
            m_socket.waitForConnected(5000);
            return;
        }
        QSslConfiguration configuration = QSslConfiguration::defaultConfiguration();
        configuration.setCaCertificates(QSslCertificate::fromPath(tlsCaFile));
        m_socket.setSslConfiguration(configuration);
        m_socket.setPeerVerifyName(QStringLiteral("127.0.0.1"));
        m_socket.connectToHostEncrypted(QStringLiteral("127.0.0.1"), port);
        waitForEncrypted(m_socket);
    }
    // Not empty: clients speak TLS and trust this CA (the suite's TLS run, BROKER_TEST_TLS=1).
    static inline QString tlsCaFile;
    void send(const QByteArray &bytes)
    {
        m_socket.write(bytes);
        m_socket.flush();
    }
    // Waits (running the event loop) for the next response; an incomplete one after `timeoutMs`.
    HttpResponse receive(int timeoutMs = 5000, bool headRequest = false)
    {
        QElapsedTimer timer;
        timer.start();
        while (timer.elapsed() < timeoutMs) {
            m_buffer += m_socket.readAll();
            if (std::optional<HttpResponse> response = takeResponse(m_buffer, headRequest))
                return *response;
            if (m_socket.state() != QAbstractSocket::ConnectedState && m_socket.bytesAvailable() == 0)
                break;
            QTest::qWait(2);
        }
        return HttpResponse{};
    }
    // True when the server closes the connection within `timeoutMs`.
    bool closedWithin(int timeoutMs)
    {
        QElapsedTimer timer;
        timer.start();
        while (timer.elapsed() < timeoutMs) {
            m_buffer += m_socket.readAll();
            if (m_socket.state() == QAbstractSocket::UnconnectedState)
                return true;
            QTest::qWait(5);
        }
        return false;
    }
    QSslSocket &socket() { return m_socket; }

private:
    QSslSocket m_socket; // plain TCP unless tlsCaFile is set
    QByteArray m_buffer;
};

inline const QByteArray AdminKey = "admin-secret-key-0001";
inline const QByteArray PublisherKey = "publisher-secret-key-0002";
inline const QByteArray ConsumerKey = "consumer-secret-key-0003";

struct RestFixture
{
    explicit RestFixture(Rest::RestOptions options = {}, EngineOptions engineOptions = {})
        : errors(clock), store(makeTestStore(types, clock)), broker(*store, types, clock, engineOptions, &errors),
          users(policy, clock)
    {
        const QString path = dir.filePath("users.yaml");
        QFile file(path);
        if (!file.open(QIODevice::WriteOnly))
            qFatal("cannot write users.yaml");
        file.write("users:\n"
                   "  admin_user: {role: admin, api_key: " + AdminKey + "}\n"
                   "  publisher_user: {role: publisher, api_key: " + PublisherKey + "}\n"
                   "  consumer_user: {role: consumer, api_key: " + ConsumerKey + "}\n");
        file.close();
        if (!users.load(path).ok())
            qFatal("cannot load users.yaml");
        if (tlsByDefault())
            options.tls = suiteTls();
        server = std::make_unique<Rest::RestServer>(Rest::RestContext{broker, users, policy, errors, clock, options});
        const Result<quint16> listening = server->listen(QHostAddress::LocalHost, 0);
        if (!listening)
            qFatal("cannot listen: %s", qPrintable(listening.error().message));
        port = *listening;
    }

    // One request on a fresh connection.
    HttpResponse request(const QByteArray &method, const QByteArray &path, const QByteArray &key = {},
                         const QByteArray &body = {}, const QList<QPair<QByteArray, QByteArray>> &headers = {})
    {
        RawClient client(port);
        QByteArray bytes = method + ' ' + path + " HTTP/1.1\r\nHost: test\r\nConnection: close\r\n";
        if (!key.isEmpty())
            bytes += "X-API-Key: " + key + "\r\n";
        for (const auto &[name, value] : headers)
            bytes += name + ": " + value + "\r\n";
        if (!body.isEmpty() || method == "POST" || method == "PUT" || method == "PATCH")
            bytes += "Content-Type: application/json\r\nContent-Length: " + QByteArray::number(body.size()) + "\r\n";
        bytes += "\r\n" + body;
        client.send(bytes);
        HttpResponse response = client.receive(25'000, method == "HEAD");
        if (checksContract && response.complete) {
            ++checkedAnswers;
            const QStringList faults =
                contract().check(method, path, response.status, response.header("content-type"), response.body);
            if (!faults.isEmpty()) {
                QTest::qFail(qPrintable(QStringLiteral("the answer is not the OpenAPI document's: %1\nbody: %2")
                                            .arg(faults.join(u"\n"), QString::fromUtf8(response.body.left(600)))),
                             __FILE__, __LINE__);
            }
        }
        return response;
    }

    // BROKER_TEST_TLS=1 runs a suite over HTTPS: every fixture serves TLS with one set of
    // certificates made for the process, and every RawClient trusts their CA.
    static bool tlsByDefault() { return qEnvironmentVariableIntValue("BROKER_TEST_TLS") == 1; }
    static Rest::TlsOptions suiteTls()
    {
        static TlsCertificates certificates(30);
        static const bool made = certificates.make();
        if (!made)
            qFatal("cannot make TLS certificates: %s", qPrintable(certificates.errorString()));
        RawClient::tlsCaFile = certificates.caFile();
        Rest::TlsOptions tls;
        tls.enabled = true;
        tls.certFile = certificates.serverCertFile();
        tls.keyFile = certificates.serverKeyFile();
        return tls;
    }

    // The OpenAPI document this server serves, as a checker of answers.
    const OpenApiContract &contract()
    {
        if (!m_contract)
            m_contract.emplace(Rest::openApiDocument(server->router(), QStringLiteral("test"), broker.options()));
        return *m_contract;
    }

    // Every answer request() receives is checked against the OpenAPI document, so that the
    // document cannot drift from what the API does. Tests of the HTTP layer beneath the routes
    // (framing, timeouts, connection caps) turn it off: those answers come before any route.
    static inline bool checksContractByDefault = true;
    bool checksContract = checksContractByDefault;
    int checkedAnswers = 0;

    QTemporaryDir dir;
    SystemClock clock;
    QueueTypeRegistry types;
    ErrorManager errors;
    std::unique_ptr<QueueStore> store;
    MessageBroker broker;
    AccessPolicy policy;
    UserDirectory users;
    std::unique_ptr<Rest::RestServer> server;
    quint16 port = 0;

private:
    std::optional<OpenApiContract> m_contract;
};

} // namespace Broker::Testing
