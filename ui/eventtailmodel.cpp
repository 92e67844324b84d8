// SPDX-License-Identifier: GPL-3.0-or-later
#include "eventtailmodel.h"

#include "format.h"

#include "core/messageid.h"

namespace Broker::Ui {

EventTailModel::EventTailModel(int capacity, QObject *parent) : QAbstractTableModel(parent), m_capacity(capacity) {}

void EventTailModel::append(const QList<MessageEvent> &events)
{
    if (events.isEmpty())
        return;
    if (m_paused) {
        m_pending += events;
        if (m_pending.size() > m_capacity)
            m_pending.remove(0, m_pending.size() - m_capacity);
        return;
    }
    show(events);
}

void EventTailModel::show(const QList<MessageEvent> &events)
{
    // Only the newest `capacity` of a large burst are ever visible; skip the rest at once.
    const qsizetype skip = qMax<qsizetype>(0, events.size() - m_capacity);
    const qsizetype incoming = events.size() - skip;
    const qsizetype overflow = m_rows.size() + incoming - m_capacity;
    if (overflow > 0) {
        beginRemoveRows({}, 0, int(overflow - 1));
        m_rows.remove(0, overflow);
        endRemoveRows();
    }
    beginInsertRows({}, int(m_rows.size()), int(m_rows.size() + incoming - 1));
    m_rows.append(events.mid(skip));
    endInsertRows();
}

void EventTailModel::setPaused(bool paused)
{
    if (m_paused == paused)
        return;
    m_paused = paused;
    if (!paused && !m_pending.isEmpty()) {
        const QList<MessageEvent> pending = std::exchange(m_pending, {});
        show(pending);
    }
}

void EventTailModel::clear()
{
    beginResetModel();
    m_rows.clear();
    m_pending.clear();
    endResetModel();
}

QVariant EventTailModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const MessageEvent &event = m_rows.at(index.row());
    const bool queueWide = event.kind == MessageEventKind::Purged;
    if (role == MessageIdRole)
        return queueWide ? QString() : MessageId::format(event.sequence);
    if (role == KindRole)
        return int(event.kind);
    if (role == QueueRole)
        return event.queue;
    if (role != Qt::DisplayRole)
        return {};
    switch (Column(index.column())) {
    case Time: return formatClock(event.timeMs);
    case Event: return QString::fromLatin1(messageEventKindName(event.kind));
    case Queue: return event.queue;
    case Message: return queueWide ? QString() : MessageId::format(event.sequence);
    case Delivery: return event.deliveryCount > 0 ? QVariant(event.deliveryCount) : QVariant();
    case User: return event.user;
    case Detail: return event.detail;
    case ColumnCount: break;
    }
    return {};
}

QVariant EventTailModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (Column(section)) {
    case Time: return tr("Time");
    case Event: return tr("Event");
    case Queue: return tr("Queue");
    case Message: return tr("Message");
    case Delivery: return tr("Delivery");
    case User: return tr("User");
    case Detail: return tr("Detail");
    case ColumnCount: break;
    }
    return {};
}

} // namespace Broker::Ui
