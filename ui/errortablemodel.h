// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "keyedtablemodel.h"

#include "core/errorrecord.h"

namespace Broker::Ui {

// The ErrorManager's log, newest first; repeats of a record update its count and last time.
class ErrorTableModel : public KeyedTableModel<ErrorRecord>
{
public:
    enum Column { Severity, Component, Code, Message, Count, Last, ColumnCount };
    static constexpr int SeverityRole = Qt::UserRole + 1; // the Severity as an int, for filters

    using KeyedTableModel::KeyedTableModel;

    int columnCount(const QModelIndex &parent = {}) const override { return parent.isValid() ? 0 : ColumnCount; }
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

protected:
    bool before(const ErrorRecord &a, const ErrorRecord &b) const override { return a.id > b.id; }
    bool sameRow(const ErrorRecord &a, const ErrorRecord &b) const override
    {
        return a.count == b.count && a.lastMs == b.lastMs;
    }
};

} // namespace Broker::Ui
