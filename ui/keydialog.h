// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QDialog>

namespace Broker::Ui {

// Shows a freshly issued API key once, with a copy button. Only its hash is kept, so the text
// says plainly that it cannot be shown again.
class KeyDialog : public QDialog
{
    Q_OBJECT
public:
    KeyDialog(const QString &userId, const QString &apiKey, const QString &intro, QWidget *parent = nullptr);
};

} // namespace Broker::Ui
