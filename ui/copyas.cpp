// SPDX-License-Identifier: GPL-3.0-or-later
#include "copyas.h"

#include <QApplication>
#include <QClipboard>
#include <QMenu>

namespace Broker::Ui {

QString snippet(SnippetLanguage language, const HttpRequestSpec &request)
{
    switch (language) {
    case SnippetLanguage::Curl: return curlCommand(request);
    case SnippetLanguage::Python: return pythonRequestsSnippet(request);
    case SnippetLanguage::Cpp: return cppQtSnippet(request);
    }
    return {};
}

void addCopyAsActions(QMenu *menu, QObject *context, std::function<HttpRequestSpec()> request,
                      std::function<void(SnippetLanguage, const QString &)> copied)
{
    struct Entry
    {
        QString text;
        QString tip;
        SnippetLanguage language;
    };
    const std::initializer_list<Entry> entries = {
        {QMenu::tr("&curl"), QMenu::tr("A curl command line; the key comes from $API_KEY"), SnippetLanguage::Curl},
        {QMenu::tr("&Python (requests)"), QMenu::tr("A Python script using requests; the key comes from os.environ[\"API_KEY\"]"),
         SnippetLanguage::Python},
        {QMenu::tr("C&++ (QNetworkAccessManager)"), QMenu::tr("A small Qt 6 program; the key comes from qgetenv(\"API_KEY\")"),
         SnippetLanguage::Cpp},
    };
    menu->setToolTipsVisible(true);
    for (const auto &[text, tip, language] : entries) {
        QAction *action = menu->addAction(text);
        action->setToolTip(tip);
        action->setData(int(language));
        QObject::connect(action, &QAction::triggered, context, [request, copied, language = language] {
            const QString code = snippet(language, request());
            QApplication::clipboard()->setText(code);
            if (copied)
                copied(language, code);
        });
    }
}

QMenu *copyAsMenu(QWidget *parent, QObject *context, std::function<HttpRequestSpec()> request,
                  std::function<void(SnippetLanguage, const QString &)> copied)
{
    auto *menu = new QMenu(parent);
    menu->setObjectName(QStringLiteral("copyAsMenu"));
    addCopyAsActions(menu, context, std::move(request), std::move(copied));
    return menu;
}

} // namespace Broker::Ui
