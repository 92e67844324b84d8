// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/brokersnapshot.h"

#include <QTableWidget>

namespace Broker::Ui {

// The nodes of the Redis/Valkey Cluster the broker stores in, as it sees them: address, role,
// state, slots served, this broker's connections and the redirects each node answered with.
class ClusterNodesTable : public QTableWidget
{
    Q_OBJECT
public:
    enum Column { Address, Role, State, Slots, Connections, Redirects, ColumnCount };

    explicit ClusterNodesTable(QWidget *parent = nullptr);
    // Primaries first (by address), then replicas; the selection and scroll position stay.
    void showNodes(const QList<Broker::StoreNodeStatus> &nodes);
};

} // namespace Broker::Ui
