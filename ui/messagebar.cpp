// SPDX-License-Identifier: GPL-3.0-or-later
#include "messagebar.h"

#include "palette.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QStyle>
#include <QToolButton>

namespace Broker::Ui {

namespace {
constexpr int Margin = 8; // between the floating bar and the page's edges
}

MessageBar::MessageBar(QWidget *parent) : QWidget(parent), m_panel(new QWidget)
{
    setObjectName(QStringLiteral("messageBar"));
    setFixedHeight(0); // takes no room in a layout: the panel floats
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
    m_panel->setObjectName(QStringLiteral("messageBarPanel"));
    m_panel->setAutoFillBackground(true);
    auto *layout = new QHBoxLayout(m_panel);
    layout->setContentsMargins(10, 6, 4, 6);
    m_label = new QLabel;
    m_label->setWordWrap(true);
    m_label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_label, 1);
    m_close = new QToolButton;
    m_close->setObjectName(QStringLiteral("messageBarClose"));
    m_close->setAutoRaise(true);
    m_close->setText(QStringLiteral("✕"));
    m_close->setToolTip(tr("Dismiss this message"));
    m_close->setAccessibleName(tr("Dismiss"));
    layout->addWidget(m_close, 0, Qt::AlignTop);
    connect(m_close, &QToolButton::clicked, this, &MessageBar::dismiss);
    m_panel->hide();
    m_hide.setSingleShot(true);
    connect(&m_hide, &QTimer::timeout, this, &MessageBar::dismiss);
    attachPanel();
}

MessageBar::~MessageBar()
{
    delete m_panel.data(); // null when the host page went first and took it along
}

void MessageBar::setTimeouts(int infoMs, int errorMs)
{
    m_infoMs = infoMs;
    m_errorMs = errorMs;
}

QString MessageBar::text() const
{
    return m_kind == Kind::None ? QString() : m_label->text();
}

void MessageBar::showError(const QString &text)
{
    show(Kind::Error, text, m_errorMs);
}

void MessageBar::showInfo(const QString &text)
{
    show(Kind::Info, text, m_infoMs);
}

void MessageBar::dismiss()
{
    m_hide.stop();
    m_kind = Kind::None;
    m_panel->hide();
}

void MessageBar::show(Kind kind, const QString &text, int timeoutMs)
{
    m_kind = kind;
    QPalette palette = m_panel->palette();
    const Palette::Role background = kind == Kind::Error ? Palette::ErrorBackground : Palette::SuccessBackground;
    const Palette::Role foreground = kind == Kind::Error ? Palette::ErrorText : Palette::SuccessText;
    palette.setColor(QPalette::Window, Palette::color(background));
    palette.setColor(QPalette::WindowText, Palette::color(foreground));
    palette.setColor(QPalette::Text, Palette::color(foreground));
    m_panel->setPalette(palette);
    m_label->setText(text);
    attachPanel();
    placePanel();
    m_panel->show();
    m_panel->raise();
    m_hide.start(timeoutMs);
}

bool MessageBar::event(QEvent *event)
{
    if (event->type() == QEvent::ParentChange)
        attachPanel();
    return QWidget::event(event);
}

bool MessageBar::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_host && m_panel && m_panel->isVisible() && event->type() == QEvent::Resize)
        placePanel();
    return QWidget::eventFilter(watched, event);
}

void MessageBar::attachPanel()
{
    QWidget *host = parentWidget();
    if (host == m_host)
        return;
    if (m_host)
        m_host->removeEventFilter(this);
    m_host = host;
    m_panel->setParent(host); // null until the bar is placed: then the panel waits hidden
    m_panel->hide();
    if (host)
        host->installEventFilter(this);
}

void MessageBar::placePanel()
{
    if (!m_host)
        return;
    const int width = qMax(0, m_host->width() - 2 * Margin);
    const int height = qMin(m_panel->heightForWidth(width) > 0 ? m_panel->heightForWidth(width) : m_panel->sizeHint().height(),
                            qMax(0, m_host->height() / 2));
    m_panel->setGeometry(Margin, m_host->height() - height - Margin, width, height);
}

} // namespace Broker::Ui
