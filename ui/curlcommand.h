// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QString>

namespace Broker::Ui {

// The curl command line that does what a UI action did, for "Copy as curl". The key is left to
// the shell as $API_KEY: the app never puts a key on the clipboard unasked. Arguments are quoted
// for POSIX shells.
QString curlCommand(const QString &method, const QString &url, const QByteArray &jsonBody = {});
QString shellQuote(const QString &text);

} // namespace Broker::Ui
