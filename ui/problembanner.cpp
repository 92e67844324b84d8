// SPDX-License-Identifier: GPL-3.0-or-later
#include "problembanner.h"

#include "messagebar.h"

#include <QHBoxLayout>
#include <QPushButton>
#include <QVBoxLayout>

namespace Broker::Ui {

ProblemBanner::ProblemBanner(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_text = new MessageBar;
    m_text->setObjectName(QStringLiteral("problemText"));
    m_text->setTextFormat(Qt::RichText);
    layout->addWidget(m_text);
    m_buttons = new QHBoxLayout;
    m_buttons->addStretch(1);
    layout->addLayout(m_buttons);
    hide();
}

void ProblemBanner::showProblem(const QString &text)
{
    clear();
    m_text->showError(text);
    show();
}

QPushButton *ProblemBanner::addAction(const QString &text, std::function<void()> action)
{
    auto *button = new QPushButton(text);
    connect(button, &QPushButton::clicked, this, [action = std::move(action)] { action(); });
    m_buttons->addWidget(button);
    return button;
}

void ProblemBanner::clear()
{
    // Index 0 is the stretch that keeps the buttons on the right.
    while (m_buttons->count() > 1) {
        QLayoutItem *item = m_buttons->takeAt(1);
        if (QWidget *button = item->widget()) {
            // Out of the tree at once (a click may be running in it): deleted when that is over.
            button->hide();
            button->setParent(nullptr);
            button->deleteLater();
        }
        delete item;
    }
    m_text->hide();
    hide();
}

QString ProblemBanner::text() const
{
    return isHidden() ? QString() : m_text->text();
}

} // namespace Broker::Ui
