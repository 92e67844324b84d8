// SPDX-License-Identifier: GPL-3.0-or-later
#include "queueproxymodel.h"

#include "queuetablemodel.h"

namespace Broker::Ui {

QueueProxyModel::QueueProxyModel(QueueTableModel *source, QObject *parent)
    : QSortFilterProxyModel(parent)
    , m_source(source)
{
    // Connected before setSourceModel() so that these run before the proxy's own handlers,
    // which re-sort with the values of the rows as they are now.
    connect(source, &QAbstractItemModel::dataChanged, this, &QueueProxyModel::forgetValues);
    connect(source, &QAbstractItemModel::rowsInserted, this, &QueueProxyModel::forgetValues);
    connect(source, &QAbstractItemModel::rowsRemoved, this, &QueueProxyModel::forgetValues);
    connect(source, &QAbstractItemModel::modelReset, this, &QueueProxyModel::forgetValues);
    connect(source, &QAbstractItemModel::layoutChanged, this, &QueueProxyModel::forgetValues);
    setSourceModel(source);
    setSortRole(QueueTableModel::SortRole);
    setFilterKeyColumn(QueueTableModel::Name);
    setFilterCaseSensitivity(Qt::CaseInsensitive);
}

QVariant QueueProxyModel::data(const QModelIndex &index, int role) const
{
    if (role == Qt::ToolTipRole && index.column() == QueueTableModel::Name)
        return QSortFilterProxyModel::data(index, Qt::DisplayRole);
    return QSortFilterProxyModel::data(index, role);
}

QVariant QueueProxyModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role == Qt::ToolTipRole && orientation == Qt::Horizontal) {
        const QString tip = columnToolTip(section);
        if (!tip.isEmpty())
            return tip;
    }
    return QSortFilterProxyModel::headerData(section, orientation, role);
}

bool QueueProxyModel::lessThan(const QModelIndex &left, const QModelIndex &right) const
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

QString QueueProxyModel::columnToolTip(int column)
{
    switch (column) {
    case QueueTableModel::Name: return tr("The queue's name; long names are shortened in the middle, hover a row for the whole name");
    case QueueTableModel::Type: return tr("list: first in, first out · priority: higher first · stream: read by consumer groups");
    case QueueTableModel::Depth: return tr("Messages ready to be delivered now");
    case QueueTableModel::InFlight: return tr("Messages delivered and not yet acknowledged (leased)");
    case QueueTableModel::Delayed: return tr("Messages waiting for their delay to pass");
    case QueueTableModel::DeadLettered: return tr("Messages this queue moved to its dead-letter queue");
    case QueueTableModel::PublishRate: return tr("Messages published per second (over the last second)");
    case QueueTableModel::ConsumeRate: return tr("Messages consumed per second (over the last second)");
    case QueueTableModel::Forecast: return tr("When the queue empties or fills at the last minute's publish and consume rates");
    case QueueTableModel::Created: return tr("When the queue was created (local time)");
    default: break;
    }
    return {};
}

} // namespace Broker::Ui
