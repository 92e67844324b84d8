// SPDX-License-Identifier: GPL-3.0-or-later
#include "queuesortproxy.h"

#include "queuetablemodel.h"

namespace Broker::Ui {

QueueSortProxy::QueueSortProxy(QueueTableModel *source, QObject *parent)
    : QSortFilterProxyModel(parent)
    , m_source(source)
{
    // Connected before setSourceModel() so that these run before the proxy's own handlers,
    // which re-sort with the values of the rows as they are now.
    connect(source, &QAbstractItemModel::dataChanged, this, &QueueSortProxy::forgetValues);
    connect(source, &QAbstractItemModel::rowsInserted, this, &QueueSortProxy::forgetValues);
    connect(source, &QAbstractItemModel::rowsRemoved, this, &QueueSortProxy::forgetValues);
    connect(source, &QAbstractItemModel::modelReset, this, &QueueSortProxy::forgetValues);
    connect(source, &QAbstractItemModel::layoutChanged, this, &QueueSortProxy::forgetValues);
    setSourceModel(source);
    setSortRole(QueueTableModel::SortRole);
    setFilterKeyColumn(QueueTableModel::Name);
    setFilterCaseSensitivity(Qt::CaseInsensitive);
}

bool QueueSortProxy::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    const int column = left.column();
    if (column == QueueTableModel::Name)
        return left.row() < right.row();
    if (!QueueTableModel::isNumeric(column))
        return m_source->rowAt(left.row()).config.type < m_source->rowAt(right.row()).config.type;
    if (m_valuesColumn != column) {
        const QList<QueueInfo> &rows = m_source->rows();
        m_values.resize(rows.size());
        for (qsizetype row = 0; row < rows.size(); ++row)
            m_values[row] = QueueTableModel::numericValue(column, rows.at(row));
        m_valuesColumn = column;
    }
    return m_values.at(left.row()) < m_values.at(right.row());
}

} // namespace Broker::Ui
