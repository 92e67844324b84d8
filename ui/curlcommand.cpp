// SPDX-License-Identifier: GPL-3.0-or-later
#include "curlcommand.h"

namespace Broker::Ui {

QString shellQuote(const QString &text)
{
    QString quoted = text;
    quoted.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
    return QLatin1Char('\'') + quoted + QLatin1Char('\'');
}

QString pythonQuote(const QString &text)
{
    QString quoted;
    quoted.reserve(text.size() + 2);
    quoted += QLatin1Char('\'');
    for (const QChar c : text) {
        if (c == QLatin1Char('\\') || c == QLatin1Char('\''))
            quoted += QLatin1Char('\\') + QString(c);
        else if (c == QLatin1Char('\n'))
            quoted += QStringLiteral("\\n");
        else if (c.unicode() < 0x20 || c.unicode() == 0x7f)
            quoted += QStringLiteral("\\x%1").arg(c.unicode(), 2, 16, QLatin1Char('0'));
        else
            quoted += c;
    }
    return quoted + QLatin1Char('\'');
}

QString cppRawString(const QString &text)
{
    // The shortest delimiter in a fixed series that cannot end the literal early.
    QString delimiter = QStringLiteral("json");
    for (int n = 1; text.contains(QLatin1Char(')') + delimiter + QLatin1Char('"')); ++n)
        delimiter = QStringLiteral("json%1").arg(n);
    return QStringLiteral("R\"%1(%2)%1\"").arg(delimiter, text);
}

QString curlCommand(const QString &method, const QString &url, const QByteArray &jsonBody)
{
    QString command = QStringLiteral("curl -sS");
    if (method != QLatin1StringView("GET"))
        command += QStringLiteral(" -X ") + method;
    command += QLatin1Char(' ') + shellQuote(url) + QStringLiteral(" -H \"X-API-Key: $API_KEY\"");
    if (!jsonBody.isEmpty()) {
        command += QStringLiteral(" -H 'Content-Type: application/json' -d ")
            + shellQuote(QString::fromUtf8(jsonBody));
    }
    return command;
}

QString curlCommand(const HttpRequestSpec &request)
{
    return curlCommand(request.method, request.url, request.jsonBody);
}

QString pythonRequestsSnippet(const HttpRequestSpec &request)
{
    QString text = QStringLiteral("import os\n\nimport requests\n\n");
    const bool hasBody = !request.jsonBody.isEmpty();
    if (hasBody)
        text += QStringLiteral("body = %1\n").arg(pythonQuote(QString::fromUtf8(request.jsonBody)));
    text += QStringLiteral("response = requests.request(\n    %1,\n    %2,\n")
                .arg(pythonQuote(request.method), pythonQuote(request.url));
    text += QStringLiteral("    headers={\"X-API-Key\": os.environ[\"API_KEY\"]");
    if (hasBody)
        text += QStringLiteral(", \"Content-Type\": \"application/json\"");
    text += QStringLiteral("},\n");
    if (hasBody)
        text += QStringLiteral("    data=body.encode(\"utf-8\"),\n");
    text += QStringLiteral("    timeout=10,\n)\nprint(response.status_code, response.text)\n");
    return text;
}

QString cppQtSnippet(const HttpRequestSpec &request)
{
    QString url = request.url;
    url.replace(QLatin1Char('\\'), QStringLiteral("\\\\")).replace(QLatin1Char('"'), QStringLiteral("\\\""));
    QString method = request.method;
    method.replace(QLatin1Char('"'), QString());
    QString text = QStringLiteral(
        "// Qt 6 (Core + Network): the key comes from the API_KEY environment variable.\n"
        "#include <QCoreApplication>\n"
        "#include <QDebug>\n"
        "#include <QNetworkAccessManager>\n"
        "#include <QNetworkReply>\n"
        "#include <QNetworkRequest>\n"
        "#include <QUrl>\n\n"
        "int main(int argc, char **argv)\n"
        "{\n"
        "    QCoreApplication app(argc, argv);\n"
        "    QNetworkAccessManager network;\n"
        "    QNetworkRequest request(QUrl(QStringLiteral(\"%1\")));\n"
        "    request.setRawHeader(\"X-API-Key\", qgetenv(\"API_KEY\"));\n")
                       .arg(url);
    if (!request.jsonBody.isEmpty()) {
        text += QStringLiteral("    request.setHeader(QNetworkRequest::ContentTypeHeader, QByteArray(\"application/json\"));\n"
                               "    const QByteArray body(%1); // UTF-8, as sent\n")
                    .arg(cppRawString(QString::fromUtf8(request.jsonBody)));
    } else {
        text += QStringLiteral("    const QByteArray body;\n");
    }
    text += QStringLiteral(
        "    QNetworkReply *reply = network.sendCustomRequest(request, \"%1\", body);\n"
        "    QObject::connect(reply, &QNetworkReply::finished, &app, [&app, reply] {\n"
        "        qInfo().noquote() << reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt()\n"
        "                          << QString::fromUtf8(reply->readAll());\n"
        "        reply->deleteLater();\n"
        "        app.quit();\n"
        "    });\n"
        "    return app.exec();\n"
        "}\n")
                .arg(method);
    return text;
}

} // namespace Broker::Ui
