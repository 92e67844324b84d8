// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "runtime/brokerclient.h"

#include <QWidget>

class QLineEdit;
class QSortFilterProxyModel;
class QTableView;
class QToolButton;

namespace Broker::Ui {

class MessageBar;
class QueueTableModel;

// The queues table (sortable, filterable) and what an admin does to a queue: create, publish a
// test message, browse, purge, delete, redrive dead letters, and copy any of it as curl.
class QueuesPage : public QWidget
{
    Q_OBJECT
public:
    explicit QueuesPage(BrokerClient &client, QWidget *parent = nullptr);

    void showStart(const Broker::StartReport &report);
    void showSnapshot(const Broker::BrokerSnapshot &snapshot);

    QueueTableModel *model() const { return m_model; }
    QTableView *view() const { return m_view; }
    // The queue of the current row, or empty.
    QString selectedQueue() const;
    void selectQueue(const QString &name);

    // The actions, also reachable from the toolbar and the context menu.
    void createQueue();
    void publishMessage();
    void browseMessages();
    void purgeQueue();
    void deleteQueue();
    void redriveQueue();

Q_SIGNALS:
    // The user opened a queue (double-click or Enter on its row): show it in full.
    void queueOpened(const QString &queue);

private:
    QString queueUrl(const QString &queue, const QString &tail = {}) const;
    void copyCurl(const QString &method, const QString &url, const QByteArray &body = {});
    void updateActions();

    BrokerClient &m_client;
    StartReport m_start;
    QueueTableModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QTableView *m_view;
    QLineEdit *m_filter;
    MessageBar *m_bar;
    QList<QWidget *> m_queueActions; // enabled only with a queue selected
};

} // namespace Broker::Ui
