// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/messageevent.h"

#include <QAbstractTableModel>
#include <QList>

namespace Broker::Ui {

// A live tail of message events, oldest at the top, bounded to `capacity` rows (the oldest go
// first). While paused, new events wait in a buffer of the same bound and appear on resume.
class EventTailModel : public QAbstractTableModel
{
public:
    enum Column { Time, Event, Queue, Message, Delivery, User, Detail, ColumnCount };
    static constexpr int MessageIdRole = Qt::UserRole + 1;
    static constexpr int KindRole = Qt::UserRole + 2; // MessageEventKind as int
    static constexpr int QueueRole = Qt::UserRole + 3;

    explicit EventTailModel(int capacity = 5000, QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override { return parent.isValid() ? 0 : int(m_rows.size()); }
    int columnCount(const QModelIndex &parent = {}) const override { return parent.isValid() ? 0 : ColumnCount; }
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

    void append(const QList<MessageEvent> &events);
    void setPaused(bool paused);
    bool isPaused() const { return m_paused; }
    int pendingCount() const { return int(m_pending.size()); }
    void clear();
    const MessageEvent &eventAt(int row) const { return m_rows.at(row); }

private:
    void show(const QList<MessageEvent> &events);

    int m_capacity;
    bool m_paused = false;
    QList<MessageEvent> m_rows;
    QList<MessageEvent> m_pending;
};

} // namespace Broker::Ui
