// SPDX-License-Identifier: GPL-3.0-or-later
#include "messagebar.h"

namespace Broker::Ui {

MessageBar::MessageBar(QWidget *parent) : QLabel(parent)
{
    setObjectName(QStringLiteral("messageBar"));
    setWordWrap(true);
    setMargin(6);
    setTextInteractionFlags(Qt::TextSelectableByMouse);
    hide();
    m_hide.setSingleShot(true);
    m_hide.setInterval(6000);
    connect(&m_hide, &QTimer::timeout, this, &QWidget::hide);
}

void MessageBar::showError(const QString &text)
{
    m_hide.stop();
    setStyleSheet(QStringLiteral("QLabel { background: #fdecea; color: #8e1b1b; border-radius: 4px; }"));
    setText(text);
    show();
}

void MessageBar::showInfo(const QString &text)
{
    setStyleSheet(QStringLiteral("QLabel { background: #e8f5e9; color: #1b5e20; border-radius: 4px; }"));
    setText(text);
    show();
    m_hide.start();
}

} // namespace Broker::Ui
