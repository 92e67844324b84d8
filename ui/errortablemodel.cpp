// SPDX-License-Identifier: GPL-3.0-or-later
#include "errortablemodel.h"

#include "format.h"

#include "palette.h"

#include <QColor>

namespace Broker::Ui {

QVariant ErrorTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const ErrorRecord &record = rowAt(index.row());
    if (role == SeverityRole)
        return int(record.severity);
    if (role == Qt::ForegroundRole && index.column() == Severity) {
        switch (record.severity) {
        case Broker::Severity::Critical:
        case Broker::Severity::Error: return Palette::color(Palette::SeverityError);
        case Broker::Severity::Warning: return Palette::color(Palette::SeverityWarning);
        case Broker::Severity::Info: return {};
        }
    }
    if (role == Qt::ToolTipRole && index.column() == Message)
        return record.message;
    if (role != Qt::DisplayRole)
        return {};
    switch (Column(index.column())) {
    case Severity: return QString::fromLatin1(severityName(record.severity));
    case Component: return record.component;
    case Code: return record.code;
    case Message: return record.message;
    case Count: return formatCount(record.count);
    case Last: return formatTimestamp(record.lastMs);
    case ColumnCount: break;
    }
    return {};
}

QVariant ErrorTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (Column(section)) {
    case Severity: return tr("Severity");
    case Component: return tr("Component");
    case Code: return tr("Code");
    case Message: return tr("Message");
    case Count: return tr("Count");
    case Last: return tr("Last seen");
    case ColumnCount: break;
    }
    return {};
}

} // namespace Broker::Ui
