// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QSortFilterProxyModel>

namespace Broker::Ui {

// The queues table as the page shows it: sorted, filtered by name, with the full queue name as a
// cell tooltip (the view elides long names in the middle) and a tooltip on every column header
// that says what the column counts and in which unit.
class QueueProxyModel : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    explicit QueueProxyModel(QObject *parent = nullptr);

    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
    static QString columnToolTip(int column);
};

} // namespace Broker::Ui
