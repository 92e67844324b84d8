// SPDX-License-Identifier: GPL-3.0-or-later
#include "curlcommand.h"

namespace Broker::Ui {

QString shellQuote(const QString &text)
{
    QString quoted = text;
    quoted.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
    return QLatin1Char('\'') + quoted + QLatin1Char('\'');
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

} // namespace Broker::Ui
