// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QTableView>

namespace Broker::Ui {

// A table of whole rows, one selected at a time, alternating colours, no row numbers, columns as
// wide as their contents but `stretchColumn`, which takes the rest: the Users and Brokers pages'.
QTableView *makeRowTable(const QString &objectName, QAbstractItemModel *model, int stretchColumn);

} // namespace Broker::Ui
