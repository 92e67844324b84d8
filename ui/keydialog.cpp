// SPDX-License-Identifier: GPL-3.0-or-later
#include "keydialog.h"

#include <QApplication>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace Broker::Ui {

KeyDialog::KeyDialog(const QString &userId, const QString &apiKey, const QString &intro, QWidget *parent)
    : QDialog(parent)
{
    setWindowTitle(tr("API key for %1").arg(userId));
    auto *layout = new QVBoxLayout(this);
    auto *text = new QLabel(intro + QStringLiteral("<br><br>")
                            + tr("<b>Copy it now: it is shown only this once.</b> BrokerDesk keeps only its hash; "
                                 "a lost key can be replaced with <i>Rotate key</i> on the Users page."));
    text->setWordWrap(true);
    layout->addWidget(text);
    auto *row = new QHBoxLayout;
    auto *key = new QLineEdit(apiKey);
    key->setObjectName(QStringLiteral("apiKey"));
    key->setReadOnly(true);
    key->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    key->setMinimumWidth(key->fontMetrics().horizontalAdvance(apiKey) + 24);
    row->addWidget(key, 1);
    auto *copy = new QPushButton(tr("Copy"));
    connect(copy, &QPushButton::clicked, this, [apiKey, copy] {
        QApplication::clipboard()->setText(apiKey);
        copy->setText(tr("Copied"));
    });
    row->addWidget(copy);
    layout->addLayout(row);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::accept);
    layout->addWidget(buttons);
}

} // namespace Broker::Ui
