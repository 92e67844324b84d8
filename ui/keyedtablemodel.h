// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QAbstractTableModel>
#include <QList>

namespace Broker::Ui {

// A table whose rows are values kept in a fixed order by a key (queue name, user id, error id).
// setRows() merges a fresh list into the current one and tells views only what changed: rows
// removed, rows inserted, and one dataChanged over the span of changed rows. Selections, scroll
// positions and sort proxies therefore survive a snapshot tick, and a tick that changes nothing
// costs one comparison per row. A kept row's key never changes, so a model that shows its key in
// column 0 (keyColumnFirst()) leaves that column out of dataChanged: a proxy sorting or filtering
// on the key then has nothing to redo (QSortFilterProxyModel re-sorts every row in the span when
// the span covers its sort column).
template<typename Row>
class KeyedTableModel : public QAbstractTableModel
{
public:
    using QAbstractTableModel::QAbstractTableModel;

    int rowCount(const QModelIndex &parent = {}) const override { return parent.isValid() ? 0 : int(m_rows.size()); }
    const Row &rowAt(int row) const { return m_rows.at(row); }
    const QList<Row> &rows() const { return m_rows; }

    // `rows` must be in the model's key order (see before()).
    void setRows(const QList<Row> &rows)
    {
        // Rows before `at` are settled, so removals and insertions at `at` never move a row
        // already marked as changed.
        int changedFirst = -1;
        int changedLast = -1;
        qsizetype at = 0;
        qsizetype from = 0;
        while (at < m_rows.size() || from < rows.size()) {
            if (from == rows.size() || (at < m_rows.size() && before(m_rows.at(at), rows.at(from)))) {
                qsizetype end = at + 1; // a run of rows that are gone
                while (end < m_rows.size() && (from == rows.size() || before(m_rows.at(end), rows.at(from))))
                    ++end;
                beginRemoveRows({}, int(at), int(end - 1));
                m_rows.remove(at, end - at);
                endRemoveRows();
            } else if (at == m_rows.size() || before(rows.at(from), m_rows.at(at))) {
                qsizetype end = from + 1; // a run of new rows
                while (end < rows.size() && (at == m_rows.size() || before(rows.at(end), m_rows.at(at))))
                    ++end;
                beginInsertRows({}, int(at), int(at + end - from - 1));
                m_rows.insert(at, end - from, Row{});
                for (qsizetype i = from; i < end; ++i)
                    m_rows[at + i - from] = rows.at(i);
                endInsertRows();
                at += end - from;
                from = end;
            } else {
                if (!sameRow(m_rows.at(at), rows.at(from))) {
                    m_rows[at] = rows.at(from);
                    changedFirst = changedFirst < 0 ? int(at) : changedFirst;
                    changedLast = int(at);
                }
                ++at;
                ++from;
            }
        }
        if (changedFirst >= 0) {
            const int firstColumn = keyColumnFirst() && columnCount() > 1 ? 1 : 0;
            Q_EMIT dataChanged(index(changedFirst, firstColumn), index(changedLast, columnCount() - 1));
        }
    }

protected:
    // The key order: true when `a` belongs before `b`; equal keys are the same row.
    virtual bool before(const Row &a, const Row &b) const = 0;
    // Whether a row shows the same as before (no dataChanged needed).
    virtual bool sameRow(const Row &a, const Row &b) const = 0;
    // Whether column 0 shows the key and nothing else.
    virtual bool keyColumnFirst() const { return false; }

private:
    QList<Row> m_rows;
};

} // namespace Broker::Ui
