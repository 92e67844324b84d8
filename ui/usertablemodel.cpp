// SPDX-License-Identifier: GPL-3.0-or-later
#include "usertablemodel.h"

#include "format.h"

#include <QColor>
#include <QPalette>

namespace Broker::Ui {

bool UserTableModel::sameRow(const User &a, const User &b) const
{
    return a.name == b.name && a.roles == b.roles && a.keyPrefix == b.keyPrefix && a.lastUsedMs == b.lastUsedMs
        && a.disabled == b.disabled;
}

QVariant UserTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const User &user = rowAt(index.row());
    if (role == IdRole)
        return user.id;
    if (role == Qt::ForegroundRole && user.disabled)
        return QPalette().color(QPalette::Disabled, QPalette::Text);
    if (role != Qt::DisplayRole)
        return {};
    switch (Column(index.column())) {
    case Id: return user.id;
    case Name: return user.name;
    case Roles: return user.roles.join(QStringLiteral(", "));
    case KeyPrefix: return user.keyPrefix.isEmpty() ? QString() : user.keyPrefix + QStringLiteral("…");
    case LastUsed: return user.lastUsedMs > 0 ? formatTimestamp(user.lastUsedMs) : tr("not since start");
    case Status: return user.disabled ? tr("disabled") : tr("active");
    case ColumnCount: break;
    }
    return {};
}

QVariant UserTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (Column(section)) {
    case Id: return tr("User");
    case Name: return tr("Name");
    case Roles: return tr("Roles");
    case KeyPrefix: return tr("Key");
    case LastUsed: return tr("Last used");
    case Status: return tr("Status");
    case ColumnCount: break;
    }
    return {};
}

} // namespace Broker::Ui
