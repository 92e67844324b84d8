// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "curlcommand.h"

#include <functional>

class QMenu;
class QObject;
class QWidget;

namespace Broker::Ui {

enum class SnippetLanguage { Curl, Python, Cpp };

QString snippet(SnippetLanguage language, const HttpRequestSpec &request);

// A "Copy as" menu with curl, Python (requests) and C++ (QNetworkAccessManager). `request` is
// asked when an entry is chosen, so it sees the input at that moment; `copied` (optional) hears
// which snippet went to the clipboard, to say so.
QMenu *copyAsMenu(QWidget *parent, QObject *context, std::function<HttpRequestSpec()> request,
                  std::function<void(SnippetLanguage, const QString &)> copied = {});
// Adds the three entries to an existing menu (one submenu per action in a larger menu).
void addCopyAsActions(QMenu *menu, QObject *context, std::function<HttpRequestSpec()> request,
                      std::function<void(SnippetLanguage, const QString &)> copied = {});

} // namespace Broker::Ui
