// SPDX-License-Identifier: GPL-3.0-or-later
#include "rowtable.h"

#include <QHeaderView>

namespace Broker::Ui {

QTableView *makeRowTable(const QString &objectName, QAbstractItemModel *model, int stretchColumn)
{
    auto *view = new QTableView;
    view->setObjectName(objectName);
    view->setModel(model);
    view->setSelectionBehavior(QAbstractItemView::SelectRows);
    view->setSelectionMode(QAbstractItemView::SingleSelection);
    view->setAlternatingRowColors(true);
    view->verticalHeader()->hide();
    view->setWordWrap(false);
    view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    view->horizontalHeader()->setSectionResizeMode(stretchColumn, QHeaderView::Stretch);
    return view;
}

} // namespace Broker::Ui
