// SPDX-License-Identifier: GPL-3.0-or-later
#include "pagegate.h"

#include "icons.h"

#include <QLabel>
#include <QVBoxLayout>

namespace Broker::Ui {

PageGate::PageGate(QWidget *page, QWidget *parent) : QStackedWidget(parent), m_page(page)
{
    auto *notice = new QWidget;
    auto *layout = new QVBoxLayout(notice);
    layout->addStretch(1);
    auto *icon = new QLabel;
    icon->setPixmap(themeIcon(QStringLiteral("dialog-warning")).pixmap(48, 48));
    icon->setAlignment(Qt::AlignCenter);
    layout->addWidget(icon);
    m_title = new QLabel;
    m_title->setObjectName(QStringLiteral("gateTitle"));
    QFont big = m_title->font();
    big.setPointSizeF(big.pointSizeF() * 1.3);
    big.setBold(true);
    m_title->setFont(big);
    m_title->setAlignment(Qt::AlignCenter);
    layout->addWidget(m_title);
    m_explanation = new QLabel;
    m_explanation->setObjectName(QStringLiteral("gateNotice"));
    m_explanation->setWordWrap(true);
    m_explanation->setAlignment(Qt::AlignCenter);
    m_explanation->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_explanation->setMaximumWidth(560);
    layout->addWidget(m_explanation, 0, Qt::AlignHCenter);
    layout->addStretch(2);
    addWidget(m_page);
    addWidget(notice);
}

void PageGate::open()
{
    setCurrentWidget(m_page);
}

void PageGate::close(const QString &title, const QString &explanation)
{
    m_title->setText(title);
    m_explanation->setText(explanation);
    setCurrentIndex(1);
}

} // namespace Broker::Ui
