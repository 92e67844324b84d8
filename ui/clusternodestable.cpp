// SPDX-License-Identifier: GPL-3.0-or-later
#include "clusternodestable.h"

#include "palette.h"

#include <QHeaderView>

#include <algorithm>

namespace Broker::Ui {

ClusterNodesTable::ClusterNodesTable(QWidget *parent) : QTableWidget(0, ColumnCount, parent)
{
    setObjectName(QStringLiteral("clusterNodes"));
    setHorizontalHeaderLabels({tr("Node"), tr("Role"), tr("State"), tr("Slots"), tr("Connections"),
                               tr("Redirects (moved / ask)")});
    horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    horizontalHeader()->setSectionResizeMode(Address, QHeaderView::Stretch);
    verticalHeader()->hide();
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setAlternatingRowColors(true);
}

void ClusterNodesTable::showNodes(const QList<StoreNodeStatus> &nodes)
{
    QList<StoreNodeStatus> sorted = nodes;
    std::stable_sort(sorted.begin(), sorted.end(), [](const StoreNodeStatus &a, const StoreNodeStatus &b) {
        return a.primary != b.primary ? a.primary : a.address < b.address;
    });
    setRowCount(int(sorted.size()));
    for (int row = 0; row < sorted.size(); ++row) {
        const StoreNodeStatus &node = sorted[row];
        // A primary this broker has no connection up to is out of reach from here, whatever the
        // cluster says of it.
        const bool unreachable = node.primary && node.connectionsReady == 0;
        const bool down = unreachable || node.health == QLatin1StringView("failed");
        const QString state = unreachable ? tr("out of reach")
                              : node.health.isEmpty() ? tr("online")
                                                      : node.health;
        const QStringList cells{node.address,
                                node.primary ? tr("primary") : tr("replica"),
                                state,
                                node.primary ? QString::number(node.slotCount) : QStringLiteral("—"),
                                node.primary ? tr("%1 of %2 up").arg(node.connectionsReady).arg(node.connections)
                                             : QStringLiteral("—"),
                                QStringLiteral("%1 / %2").arg(node.movedRedirects).arg(node.askRedirects)};
        for (int column = 0; column < ColumnCount; ++column) {
            auto *cell = new QTableWidgetItem(cells[column]);
            if (column == State)
                cell->setForeground(Palette::color(down ? Palette::Bad : Palette::Good));
            if (column == Slots || column == Redirects)
                cell->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            setItem(row, column, cell);
        }
    }
}

} // namespace Broker::Ui
