// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "keyedtablemodel.h"

#include "core/brokersnapshot.h"

namespace Broker::Ui {

// One broker the desktop follows, as the brokers table shows it.
struct BrokerRow
{
    QString name;
    bool embedded = false;  // the broker this app runs; listed first
    QString url;
    QString connection;     // "connected", "reconnecting in 3 s: connection refused", "key refused", ...
    bool connected = false; // the figures are live (not stale, not missing)
    bool hasFigures = false;
    HealthStatus health = HealthStatus::Healthy;
    QString storage;
    int queues = 0;
    qint64 messages = 0;
    double publishRate = 0;
    double consumeRate = 0;
    qint64 updatedMs = 0;   // when the figures were last heard of (ms since the epoch; 0: never)

    friend bool operator==(const BrokerRow &, const BrokerRow &) = default;
};

// Every broker's connection, health, queues, messages, rates and storage in one table: the
// embedded broker first, then the remote ones by name.
class BrokersTableModel : public KeyedTableModel<BrokerRow>
{
public:
    enum Column { Name, Connection, Health, Queues, Messages, PublishRate, ConsumeRate, Storage, Updated, ColumnCount };
    using KeyedTableModel::KeyedTableModel;

    int columnCount(const QModelIndex &parent = {}) const override { return parent.isValid() ? 0 : ColumnCount; }
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
    int rowOf(const QString &name) const;

protected:
    bool before(const BrokerRow &a, const BrokerRow &b) const override
    {
        return a.embedded != b.embedded ? a.embedded : a.name < b.name;
    }
    bool sameRow(const BrokerRow &a, const BrokerRow &b) const override { return a == b; }
    bool keyColumnFirst() const override { return true; }
};

} // namespace Broker::Ui
