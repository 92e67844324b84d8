// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QString>

namespace Broker::Ui {

// One REST call as a UI action made it: what "Copy as" turns into a snippet.
struct HttpRequestSpec
{
    QString method; // GET, POST, PATCH, DELETE
    QString url;
    QByteArray jsonBody; // empty: no body
};

// Snippets that do what a UI action did, for "Copy as". The key is never in them: curl reads
// $API_KEY from the shell, Python os.environ["API_KEY"], C++ qgetenv("API_KEY"), so the app never
// puts a key on the clipboard unasked.

// A curl command line, arguments quoted for POSIX shells.
QString curlCommand(const QString &method, const QString &url, const QByteArray &jsonBody = {});
QString curlCommand(const HttpRequestSpec &request);
// A Python 3 script using requests; the body is sent exactly as the app would send it.
QString pythonRequestsSnippet(const HttpRequestSpec &request);
// A small Qt 6 program with a plain QNetworkAccessManager that prints the status and the answer.
QString cppQtSnippet(const HttpRequestSpec &request);

QString shellQuote(const QString &text);
QString pythonQuote(const QString &text); // a single-quoted Python string literal
QString cppRawString(const QString &text); // a C++ raw string literal whose delimiter is not in the text

} // namespace Broker::Ui
