// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

#include <functional>

class QWidget;

namespace Broker::Ui {

// Asks before a destructive action; `onYes` runs when the user picks `action`. The box opens
// window-modal with open(), never exec(): no nested event loop while snapshots keep arriving.
void confirmAction(QWidget *parent, const QString &action, const QString &question, std::function<void()> onYes);

} // namespace Broker::Ui
