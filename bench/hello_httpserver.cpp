// SPDX-License-Identifier: GPL-3.0-or-later
// The smallest QHttpServer application: GET /hello answers "hello". bench/instructions.sh
// measures it beside brokerd, so that the cost of QHttpServer itself is known.
//   hello_httpserver PORT
#include <QCoreApplication>
#include <QHostAddress>
#include <QHttpServer>
#include <QHttpServerResponse>

#include <cstdio>

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QHttpServer server;
    // With its type given: a QString alone would make QHttpServerResponse sniff the MIME type
    // of every body (QMimeDatabase), which costs more than the rest of the request.
    server.route(QStringLiteral("/hello"), [] { return QHttpServerResponse("text/plain", "hello"); });
    const quint16 port = server.listen(QHostAddress::LocalHost, argc > 1 ? quint16(atoi(argv[1])) : 0);
    if (port == 0)
        return 1;
    std::printf("listening on %u\n", unsigned(port));
    std::fflush(stdout);
    return app.exec();
}
