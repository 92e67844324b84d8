// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QList>
#include <QSortFilterProxyModel>

namespace Broker::Ui {

class QueueTableModel;

// The queues table as the page shows it: sorted, filtered by name, with the full queue name as a
// cell tooltip (the view elides long names in the middle) and a tooltip on every column header
// that says what the column counts and in which unit.
//
// Sorts in the order SortRole gives, without data() and QVariant: with 10,000 queues sorted by
// depth every tick re-sorts the whole table (about 130,000 comparisons), so the sort column's
// values are read once per change into a flat array and compared there. The name order is the
// source's own row order.
class QueueProxyModel : public QSortFilterProxyModel
{
    Q_OBJECT
public:
    explicit QueueProxyModel(QueueTableModel *source, QObject *parent = nullptr);

    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
    static QString columnToolTip(int column);

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
