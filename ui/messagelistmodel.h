// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/message.h"

#include <QAbstractTableModel>

namespace Broker::Ui {

// One page of browsed messages (at most a few hundred: it is replaced, not merged). The last
// column says what the state adds: a lease's end, a delay's due time, or why a message was
// dead-lettered.
class MessageListModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column { Id, Published, Deliveries, Bytes, Headers, When, ColumnCount };
    static constexpr int IdRole = Qt::UserRole;

    using QAbstractTableModel::QAbstractTableModel;

    void setMessages(const QList<Broker::Message> &messages);
    const QList<Broker::Message> &messages() const { return m_messages; }
    const Broker::Message &messageAt(int row) const { return m_messages.at(row); }
    int rowOf(const QString &id) const;

    int rowCount(const QModelIndex &parent = {}) const override { return parent.isValid() ? 0 : int(m_messages.size()); }
    int columnCount(const QModelIndex &parent = {}) const override { return parent.isValid() ? 0 : ColumnCount; }
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    QList<Broker::Message> m_messages;
};

} // namespace Broker::Ui
