// SPDX-License-Identifier: GPL-3.0-or-later
#include "brokerstablemodel.h"

#include "format.h"

#include <QDateTime>

namespace Broker::Ui {

QVariant BrokersTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const BrokerRow &row = rowAt(index.row());
    if (role == Qt::ToolTipRole)
        return row.url.isEmpty() ? row.connection : QStringLiteral("%1\n%2").arg(row.url, row.connection);
    if (role == Qt::TextAlignmentRole && index.column() >= Queues && index.column() <= ConsumeRate)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole)
        return {};
    const bool figures = row.hasFigures;
    switch (Column(index.column())) {
    case Name: return row.embedded ? tr("%1 (this app)").arg(row.name) : row.name;
    case Connection: return row.connection;
    case Health: return figures ? QString::fromLatin1(healthStatusName(row.health)) : QStringLiteral("—");
    case Queues: return figures ? formatCount(row.queues) : QStringLiteral("—");
    case Messages: return figures ? formatCount(row.messages) : QStringLiteral("—");
    case PublishRate: return figures ? formatRate(row.publishRate) : QStringLiteral("—");
    case ConsumeRate: return figures ? formatRate(row.consumeRate) : QStringLiteral("—");
    case Storage: return figures ? row.storage : QStringLiteral("—");
    case Updated:
        if (row.updatedMs == 0)
            return tr("never");
        return row.connected ? tr("live")
                             : tr("%1 ago").arg(formatDuration((QDateTime::currentMSecsSinceEpoch() - row.updatedMs) / 1000));
    case ColumnCount: break;
    }
    return {};
}

QVariant BrokersTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (Column(section)) {
    case Name: return tr("Broker");
    case Connection: return tr("Connection");
    case Health: return tr("Health");
    case Queues: return tr("Queues");
    case Messages: return tr("Messages");
    case PublishRate: return tr("Publish/s");
    case ConsumeRate: return tr("Consume/s");
    case Storage: return tr("Storage");
    case Updated: return tr("Figures");
    case ColumnCount: break;
    }
    return {};
}

int BrokersTableModel::rowOf(const QString &name) const
{
    for (int i = 0; i < rowCount(); ++i) {
        if (rowAt(i).name == name)
            return i;
    }
    return -1;
}

} // namespace Broker::Ui
