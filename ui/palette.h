// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QColor>
#include <QPalette>
#include <QString>

class QWidget;

namespace Broker::Ui {

// The one place where the desktop app's colours are written down: every other file asks for a
// role. Each role has a light and a dark variant; which one applies follows the application
// palette (dark when its window colour is dark), so a desktop in dark mode and the View menu's
// override both get readable colours. Qt 6.4 has no QStyleHints::colorScheme(), hence the palette.
namespace Palette {

enum Role {
    ErrorBackground,
    ErrorText,
    SuccessBackground,
    SuccessText,
    ProblemText, // inline "what is wrong with this input" under a form
    Good,        // healthy, circuit closed
    Warning,     // degraded, half-open
    Bad,         // unhealthy, not running, read-only
    Muted,       // stopped, starting
    PublishSeries,
    ConsumeSeries,
    SeverityError,
    SeverityWarning,
    DiffRemovedBackground, // a line a change takes away (redrive preview)
    DiffAddedBackground,   // a line a change puts in
    RoleCount
};

enum class Theme { System, Light, Dark };

bool isDark(const QPalette &palette);
bool isDark(); // of the application palette
QColor color(Role role, bool dark);
QColor color(Role role); // for the application palette
QString hex(Role role);  // "#rrggbb", for rich text

// Gives `widget` the role as its text colour, and keeps it right when the palette changes.
void setTextRole(QWidget *widget, Role role);

// Applies a theme to the application. System restores the palette the desktop gave at start
// (remembered on the first call). Light and Dark set a complete palette of their own.
void applyTheme(Theme theme);
Theme currentTheme();
QString themeKey(Theme theme); // "system", "light", "dark": the QSettings value
Theme themeFromKey(const QString &key);
QPalette lightPalette();
QPalette darkPalette();

} // namespace Palette

} // namespace Broker::Ui
