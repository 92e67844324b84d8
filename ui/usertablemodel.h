// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "keyedtablemodel.h"

#include "core/user.h"

namespace Broker::Ui {

// The users of users.yaml, one row each, in id order. Keys are never here: only their prefixes.
class UserTableModel : public KeyedTableModel<User>
{
public:
    enum Column { Id, Name, Roles, KeyPrefix, LastUsed, Status, ColumnCount };
    static constexpr int IdRole = Qt::UserRole + 1;

    using KeyedTableModel::KeyedTableModel;

    int columnCount(const QModelIndex &parent = {}) const override { return parent.isValid() ? 0 : ColumnCount; }
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

protected:
    bool before(const User &a, const User &b) const override { return a.id < b.id; }
    bool sameRow(const User &a, const User &b) const override;
};

} // namespace Broker::Ui
