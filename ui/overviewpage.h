// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "runtime/brokerconnection.h"

#include <QWidget>

class QGridLayout;
class QLabel;
class QLineEdit;

namespace Broker::Ui {

class ClusterNodesTable;
class RateChart;

// Health at a glance: status, uptime, counts, storage (a Redis Cluster's nodes too) and the API
// endpoint, and the broker's publish and consume rates over the last five minutes.
class OverviewPage : public QWidget
{
    Q_OBJECT
public:
    explicit OverviewPage(QWidget *parent = nullptr);

    // "memory (journal, fsync everysec)", "memory (volatile)", "redis 127.0.0.1:6379".
    static QString storageText(const Broker::StartReport &report);
    void showStart(const Broker::StartReport &report);
    // Until the broker is online, what the link is (its words), in place of the health.
    void showLink(Broker::BrokerConnection::Link link, const QString &text);
    void showSnapshot(const Broker::BrokerSnapshot &snapshot);
    void showStoreStatus(const Broker::StoreStatus &status, qint64 nowMs);
    void showWebhook(const std::optional<Broker::WebhookStatus> &webhook);

private:
    QStringList breakerParts(const Broker::StoreStatus &status, qint64 nowMs) const;
    QLabel *addFigure(const QString &caption, int row, int column);

    QLabel *m_status;
    QLabel *m_uptime;
    QLabel *m_queues;
    QLabel *m_messages;
    QLabel *m_processed;
    QLabel *m_backendTitle;
    QLabel *m_backendState; // read-only state; breaker, pool and spool of a Redis store; hidden when there is nothing to say
    QLabel *m_webhookState; // the notification webhook, while it fails
    ClusterNodesTable *m_clusterNodes; // a Redis Cluster's nodes; hidden on other stores
    QLabel *m_storage;
    QLineEdit *m_endpoint;
    RateChart *m_chart;
    QGridLayout *m_figures;
};

} // namespace Broker::Ui
