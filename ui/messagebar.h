// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QLabel>
#include <QTimer>

namespace Broker::Ui {

// A line at the top of a page telling how the last action went: errors stay until the next
// action, successes fade after a few seconds. Never a modal box: the broker keeps running.
class MessageBar : public QLabel
{
public:
    explicit MessageBar(QWidget *parent = nullptr);

    void showError(const QString &text);
    void showInfo(const QString &text);

private:
    QTimer m_hide;
};

} // namespace Broker::Ui
