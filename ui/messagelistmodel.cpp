// SPDX-License-Identifier: GPL-3.0-or-later
#include "messagelistmodel.h"

#include "format.h"

#include <QJsonDocument>

namespace Broker::Ui {

void MessageListModel::setMessages(const QList<Message> &messages)
{
    beginResetModel();
    m_messages = messages;
    endResetModel();
}

int MessageListModel::rowOf(const QString &id) const
{
    for (int row = 0; row < m_messages.size(); ++row) {
        if (m_messages.at(row).id == id)
            return row;
    }
    return -1;
}

QVariant MessageListModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const Message &message = m_messages.at(index.row());
    if (role == IdRole)
        return message.id;
    if (role == Qt::TextAlignmentRole)
        return index.column() == Deliveries || index.column() == Bytes ? int(Qt::AlignRight | Qt::AlignVCenter)
                                                                        : int(Qt::AlignLeft | Qt::AlignVCenter);
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    switch (Column(index.column())) {
    case Id: return message.id;
    case Published: return formatTimestamp(qint64(message.timestamp * 1000));
    case Deliveries: return message.deliveryCount;
    case Bytes: return formatCount(message.data.size());
    case Headers:
        return message.headers.isEmpty() ? QString()
                                         : QString::fromUtf8(QJsonDocument(message.headers).toJson(QJsonDocument::Compact));
    case When:
        if (message.leaseDeadlineMs > 0)
            return tr("lease ends %1").arg(formatTimestamp(message.leaseDeadlineMs));
        if (message.dueMs > 0)
            return tr("due %1").arg(formatTimestamp(message.dueMs));
        if (!message.originQueue.isEmpty())
            return tr("from %1: %2").arg(message.originQueue, message.deadLetterReason);
        return {};
    case ColumnCount: break;
    }
    return {};
}

QVariant MessageListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || (role != Qt::DisplayRole && role != Qt::ToolTipRole))
        return QAbstractTableModel::headerData(section, orientation, role);
    const bool tip = role == Qt::ToolTipRole;
    switch (Column(section)) {
    case Id: return tip ? tr("The message id the broker gave it") : tr("Message");
    case Published: return tip ? tr("When it was published (local time)") : tr("Published");
    case Deliveries: return tip ? tr("Deliveries so far") : tr("Deliveries");
    case Bytes: return tip ? tr("Payload size in bytes, as sent") : tr("Bytes");
    case Headers: return tip ? tr("Headers sent with the message") : tr("Headers");
    case When: return tip ? tr("In flight: when the lease ends. Delayed: when it is due. Dead: where from and why")
                          : tr("State");
    case ColumnCount: break;
    }
    return {};
}

} // namespace Broker::Ui
