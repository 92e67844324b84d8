// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "keyedtablemodel.h"

#include "core/queueinfo.h"

namespace Broker::Ui {

// The queues of a snapshot, one row each, in name order. Numeric columns answer SortRole with
// numbers so that a sort proxy orders them as numbers; Forecast sorts the soonest full first,
// then queues with no forecast, then those that drain. numericValue() gives the same numbers
// without a QVariant, for a proxy that sorts 10,000 rows each tick (QueueProxyModel).
class QueueTableModel : public KeyedTableModel<QueueInfo>
{
public:
    enum Column { Name, Type, Depth, InFlight, Delayed, DeadLettered, PublishRate, ConsumeRate, Forecast, Created, ColumnCount };
    static constexpr int SortRole = Qt::UserRole;
    static constexpr int NameRole = Qt::UserRole + 1;

    using KeyedTableModel::KeyedTableModel;

    int columnCount(const QModelIndex &parent = {}) const override { return parent.isValid() ? 0 : ColumnCount; }
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
    // The row of a queue, or -1.
    int rowOf(const QString &name) const;
    static bool isNumeric(int column) { return column > Type && column < ColumnCount; }
    // What SortRole answers for a numeric column, as a double (counts stay exact below 2^53).
    static double numericValue(int column, const QueueInfo &queue);

protected:
    bool before(const QueueInfo &a, const QueueInfo &b) const override { return a.name < b.name; }
    bool sameRow(const QueueInfo &a, const QueueInfo &b) const override;
    bool keyColumnFirst() const override { return true; }
};

} // namespace Broker::Ui
