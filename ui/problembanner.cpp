// SPDX-License-Identifier: GPL-3.0-or-later
#include "problembanner.h"

#include "palette.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

namespace Broker::Ui {

ProblemBanner::ProblemBanner(QWidget *parent) : QWidget(parent)
{
    setAutoFillBackground(true);
    auto *layout = new QVBoxLayout(this);
    m_text = new QLabel;
    m_text->setObjectName(QStringLiteral("problemText"));
    m_text->setTextFormat(Qt::RichText);
    m_text->setWordWrap(true);
    m_text->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_text);
    m_buttons = new QHBoxLayout;
    m_buttons->addStretch(1);
    layout->addLayout(m_buttons);
    hide();
}

void ProblemBanner::showProblem(const QString &text)
{
    clear();
    m_text->setText(text);
    applyColours();
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
    m_text->clear();
    hide();
}

void ProblemBanner::changeEvent(QEvent *event)
{
    if (event->type() == QEvent::PaletteChange)
        applyColours();
    QWidget::changeEvent(event);
}

void ProblemBanner::applyColours()
{
    const bool dark = Palette::isDark(); // the application's: this widget's own is the banner's colours
    const QColor background = Palette::color(Palette::ErrorBackground, dark);
    const QColor text = Palette::color(Palette::ErrorText, dark);
    QPalette colours = palette();
    if (colours.color(QPalette::Window) == background && colours.color(QPalette::WindowText) == text)
        return; // setting the same palette again would come back here as a PaletteChange
    colours.setColor(QPalette::Window, background);
    colours.setColor(QPalette::WindowText, text);
    colours.setColor(QPalette::Text, text);
    setPalette(colours);
}

QString ProblemBanner::text() const
{
    return isHidden() ? QString() : m_text->text();
}

} // namespace Broker::Ui
