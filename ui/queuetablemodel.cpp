// SPDX-License-Identifier: GPL-3.0-or-later
#include "queuetablemodel.h"

#include "forecast.h"
#include "format.h"

#include <algorithm>

namespace Broker::Ui {

namespace {
bool samePartitions(const QueueInfo &a, const QueueInfo &b)
{
    return std::equal(a.partitions.cbegin(), a.partitions.cend(), b.partitions.cbegin(), b.partitions.cend(),
                      [](const PartitionInfo &x, const PartitionInfo &y) {
                          return x.depth == y.depth && x.inFlight == y.inFlight && x.delayed == y.delayed;
                      });
}
} // namespace

bool QueueTableModel::sameRow(const QueueInfo &a, const QueueInfo &b) const
{
    return a.depth == b.depth && a.inFlight == b.inFlight && a.delayed == b.delayed
        && a.counters.deadLettered == b.counters.deadLettered && a.rates.publish1s == b.rates.publish1s
        && a.rates.consume1s == b.rates.consume1s && a.rates.publish1m == b.rates.publish1m
        && a.rates.consume1m == b.rates.consume1m && a.config == b.config && a.created == b.created && samePartitions(a, b);
}

QVariant QueueTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const QueueInfo &queue = rowAt(index.row());
    if (role == NameRole)
        return queue.name;
    if (role == Qt::TextAlignmentRole)
        return index.column() <= Type ? int(Qt::AlignLeft | Qt::AlignVCenter) : int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && index.column() == Name) {
        QString tip = QStringLiteral("max size %1, TTL %2, visibility timeout %3, max deliveries %4")
                          .arg(formatCount(queue.config.maxSize), formatDuration(queue.config.ttlSeconds),
                               formatDuration(queue.config.visibilityTimeoutSeconds))
                          .arg(queue.config.maxDeliveries);
        if (!queue.config.deadLetterQueue.isEmpty())
            tip += QStringLiteral(", dead letters to %1").arg(queue.config.deadLetterQueue);
        return tip;
    }
    if (role == SortRole && isNumeric(index.column()))
        return numericValue(index.column(), queue);
    if (role != Qt::DisplayRole && role != SortRole)
        return {};
    switch (Column(index.column())) {
    case Name: return queue.name;
    case Type: return queue.config.type;
    case Depth: return formatCount(queue.depth);
    case InFlight: return formatCount(queue.inFlight);
    case Delayed: return formatCount(queue.delayed);
    case DeadLettered: return formatCount(queue.counters.deadLettered);
    case PublishRate: return formatRate(queue.rates.publish1s);
    case ConsumeRate: return formatRate(queue.rates.consume1s);
    case Forecast: return forecastText(forecast(queue));
    case Created: return formatTimestamp(qint64(queue.created * 1000));
    case ColumnCount: break;
    }
    return {};
}

QVariant QueueTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (Column(section)) {
    case Name: return tr("Name");
    case Type: return tr("Type");
    case Depth: return tr("Depth");
    case InFlight: return tr("In flight");
    case Delayed: return tr("Delayed");
    case DeadLettered: return tr("Dead-lettered");
    case PublishRate: return tr("Publish");
    case ConsumeRate: return tr("Consume");
    case Forecast: return tr("Forecast");
    case Created: return tr("Created");
    case ColumnCount: break;
    }
    return {};
}

double QueueTableModel::numericValue(int column, const QueueInfo &queue)
{
    switch (Column(column)) {
    case Depth: return double(queue.depth);
    case InFlight: return double(queue.inFlight);
    case Delayed: return double(queue.delayed);
    case DeadLettered: return double(queue.counters.deadLettered);
    case PublishRate: return queue.rates.publish1s;
    case ConsumeRate: return queue.rates.consume1s;
    case Forecast: {
        const Ui::Forecast ahead = forecast(queue);
        switch (ahead.trend) {
        case Ui::Forecast::Trend::Fills: return ahead.seconds;
        case Ui::Forecast::Trend::None: return 2 * ForecastRules::HorizonSeconds;
        case Ui::Forecast::Trend::Empties: return 3 * ForecastRules::HorizonSeconds + ahead.seconds;
        }
        return 0;
    }
    case Created: return queue.created;
    case Name:
    case Type:
    case ColumnCount: break;
    }
    return 0;
}

int QueueTableModel::rowOf(const QString &name) const
{
    const auto found = std::lower_bound(rows().begin(), rows().end(), name,
                                        [](const QueueInfo &info, const QString &key) { return info.name < key; });
    return found != rows().end() && found->name == name ? int(found - rows().begin()) : -1;
}

} // namespace Broker::Ui
