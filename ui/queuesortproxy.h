// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QList>
#include <QSortFilterProxyModel>

namespace Broker::Ui {

class QueueTableModel;

// Sorts and filters the queues table in the order SortRole gives, without data() and QVariant.
// With 10,000 queues sorted by depth every tick re-sorts the whole table (about 130,000
// comparisons): the values of the sort column are read once per change into a flat array, and
// the comparisons run on that. The name order is the source's own row order.
class QueueSortProxy : public QSortFilterProxyModel
{
public:
    explicit QueueSortProxy(QueueTableModel *source, QObject *parent = nullptr);

protected:
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

private:
    void forgetValues() { m_valuesColumn = -1; }

    QueueTableModel *m_source;
    // The sort column's values by source row, valid while m_valuesColumn is that column.
    mutable QList<double> m_values;
    mutable int m_valuesColumn = -1;
};

} // namespace Broker::Ui
