// SPDX-License-Identifier: GPL-3.0-or-later
#include "palette.h"

#include <QApplication>
#include <QEvent>
#include <QWidget>

#include <optional>

namespace Broker::Ui::Palette {

namespace {

struct Pair
{
    QRgb light;
    QRgb dark;
};

// Light variants follow Material's 800/900 tones on white; dark ones the 200/300 tones, which
// keep a contrast of at least 4.5:1 on the dark window colour below.
constexpr Pair Colours[RoleCount] = {
    {0xfdecea, 0x4a1f1f}, // ErrorBackground
    {0x8e1b1b, 0xffcdd2}, // ErrorText
    {0xe8f5e9, 0x1e3b22}, // SuccessBackground
    {0x1b5e20, 0xc8e6c9}, // SuccessText
    {0xc62828, 0xef9a9a}, // ProblemText
    {0x43a047, 0x81c784}, // Good
    {0xef6c00, 0xffb74d}, // Warning
    {0xc62828, 0xe57373}, // Bad
    {0x9e9e9e, 0x9e9e9e}, // Muted
    {0x1e88e5, 0x64b5f6}, // PublishSeries
    {0x43a047, 0x81c784}, // ConsumeSeries
    {0xc62828, 0xef9a9a}, // SeverityError
    {0xb26a00, 0xffcc80}, // SeverityWarning
    {0xfdecea, 0x4a1f1f}, // DiffRemovedBackground
    {0xe8f5e9, 0x1e3b22}, // DiffAddedBackground
};

const char *const RoleProperty = "brokerdeskTextRole";

// Re-applies a widget's text role when its palette changes (theme switch, desktop change).
class TextRoleKeeper : public QObject
{
public:
    using QObject::QObject;
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        if (event->type() == QEvent::ApplicationPaletteChange || event->type() == QEvent::StyleChange) {
            if (auto *widget = qobject_cast<QWidget *>(watched))
                apply(widget);
        }
        return QObject::eventFilter(watched, event);
    }
    static void apply(QWidget *widget)
    {
        const Role role = Role(widget->property(RoleProperty).toInt());
        QPalette palette = widget->palette();
        const QColor wanted = color(role, isDark(QApplication::palette()));
        palette.setColor(QPalette::WindowText, wanted);
        palette.setColor(QPalette::Text, wanted);
        widget->setPalette(palette);
    }
};

std::optional<QPalette> &systemPalette()
{
    static std::optional<QPalette> palette;
    return palette;
}

Theme &theme()
{
    static Theme current = Theme::System;
    return current;
}

} // namespace

bool isDark(const QPalette &palette)
{
    return palette.color(QPalette::Window).lightness() < 128;
}

bool isDark()
{
    return isDark(QApplication::palette());
}

QColor color(Role role, bool dark)
{
    return QColor::fromRgb(dark ? Colours[role].dark : Colours[role].light);
}

QColor color(Role role)
{
    return color(role, isDark());
}

QString hex(Role role)
{
    return color(role).name(QColor::HexRgb);
}

void setTextRole(QWidget *widget, Role role)
{
    static TextRoleKeeper *keeper = new TextRoleKeeper(qApp);
    widget->setProperty(RoleProperty, int(role));
    widget->removeEventFilter(keeper);
    widget->installEventFilter(keeper);
    TextRoleKeeper::apply(widget);
}

QPalette lightPalette()
{
    QPalette p(QColor(0xefefef), QColor(0xefefef));
    p.setColor(QPalette::Base, QColor(0xffffff));
    p.setColor(QPalette::AlternateBase, QColor(0xf5f5f5));
    p.setColor(QPalette::Text, QColor(0x1f1f1f));
    p.setColor(QPalette::WindowText, QColor(0x1f1f1f));
    p.setColor(QPalette::ButtonText, QColor(0x1f1f1f));
    p.setColor(QPalette::ToolTipBase, QColor(0xffffdc));
    p.setColor(QPalette::ToolTipText, QColor(0x1f1f1f));
    p.setColor(QPalette::PlaceholderText, QColor(0x808080));
    p.setColor(QPalette::Highlight, QColor(0x308cc6));
    p.setColor(QPalette::HighlightedText, QColor(0xffffff));
    p.setColor(QPalette::Link, QColor(0x1565c0));
    p.setColor(QPalette::Disabled, QPalette::Text, QColor(0x9e9e9e));
    p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0x9e9e9e));
    p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x9e9e9e));
    return p;
}

QPalette darkPalette()
{
    QPalette p(QColor(0x3c3f41), QColor(0x2b2b2b));
    p.setColor(QPalette::Window, QColor(0x2b2b2b));
    p.setColor(QPalette::Button, QColor(0x3c3f41));
    p.setColor(QPalette::Base, QColor(0x1e1e1e));
    p.setColor(QPalette::AlternateBase, QColor(0x262626));
    p.setColor(QPalette::Text, QColor(0xe6e6e6));
    p.setColor(QPalette::WindowText, QColor(0xe6e6e6));
    p.setColor(QPalette::ButtonText, QColor(0xe6e6e6));
    p.setColor(QPalette::BrightText, QColor(0xffffff));
    p.setColor(QPalette::ToolTipBase, QColor(0x3c3f41));
    p.setColor(QPalette::ToolTipText, QColor(0xe6e6e6));
    p.setColor(QPalette::PlaceholderText, QColor(0x8c8c8c));
    p.setColor(QPalette::Highlight, QColor(0x2f65ca));
    p.setColor(QPalette::HighlightedText, QColor(0xffffff));
    p.setColor(QPalette::Link, QColor(0x64b5f6));
    p.setColor(QPalette::Light, QColor(0x505354));
    p.setColor(QPalette::Midlight, QColor(0x434547));
    p.setColor(QPalette::Mid, QColor(0x5a5d5f));
    p.setColor(QPalette::Dark, QColor(0x1a1a1a));
    p.setColor(QPalette::Shadow, QColor(Qt::black));
    p.setColor(QPalette::Disabled, QPalette::Text, QColor(0x7a7a7a));
    p.setColor(QPalette::Disabled, QPalette::WindowText, QColor(0x7a7a7a));
    p.setColor(QPalette::Disabled, QPalette::ButtonText, QColor(0x7a7a7a));
    return p;
}

void applyTheme(Theme next)
{
    if (!systemPalette())
        systemPalette() = QApplication::palette();
    theme() = next;
    switch (next) {
    case Theme::System: QApplication::setPalette(*systemPalette()); break;
    case Theme::Light: QApplication::setPalette(lightPalette()); break;
    case Theme::Dark: QApplication::setPalette(darkPalette()); break;
    }
}

Theme currentTheme()
{
    return theme();
}

QString themeKey(Theme value)
{
    switch (value) {
    case Theme::Light: return QStringLiteral("light");
    case Theme::Dark: return QStringLiteral("dark");
    case Theme::System: break;
    }
    return QStringLiteral("system");
}

Theme themeFromKey(const QString &key)
{
    if (key == QLatin1StringView("light"))
        return Theme::Light;
    if (key == QLatin1StringView("dark"))
        return Theme::Dark;
    return Theme::System;
}

} // namespace Broker::Ui::Palette
