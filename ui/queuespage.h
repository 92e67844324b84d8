// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "curlcommand.h"
#include "runtime/brokerconnection.h"

#include <QWidget>

class QAction;
class QLineEdit;
class QMenu;
class QTableView;
class QToolBar;

namespace Broker::Ui {

class MessageBar;
class QueueProxyModel;
class QueueTableModel;

// The queues table (sortable, filterable) and what an admin does to a queue: create, publish a
// test message, browse, purge, delete, redrive dead letters, and copy any of it as curl, Python
// or C++. The selection is a queue, not a row: filtering, sorting and snapshot ticks keep it on
// the queue the user picked (hidden by the filter, it is simply not targeted until shown again),
// and when that queue is deleted nothing is selected, rather than the next queue.
class QueuesPage : public QWidget
{
    Q_OBJECT
public:
    explicit QueuesPage(BrokerConnection &client, QWidget *parent = nullptr);

    void showStart(const Broker::StartReport &report);
    void showSnapshot(const Broker::BrokerSnapshot &snapshot);

    QueueTableModel *model() const { return m_model; }
    QTableView *view() const { return m_view; }
    QLineEdit *filter() const { return m_filter; }
    MessageBar *messageBar() const { return m_bar; }
    // The queue the user picked, when it is shown; otherwise empty.
    QString selectedQueue() const;
    void selectQueue(const QString &name);

    // The page's actions, for the toolbar, the context menu and the main window's menu bar.
    QAction *newQueueAction() const { return m_newQueue; }
    QList<QAction *> queueActions() const { return m_queueActions; }
    QAction *deleteAction() const { return m_delete; }
    QMenu *copyAsMenu() const { return m_copyAs; }

    void createQueue();
    void publishMessage();
    void browseMessages();
    void purgeQueue();
    void deleteQueue();
    void redriveQueue();

protected:
    // A hidden table need not keep its order, and re-sorting 10,000 rows on every tick costs
    // most of a frame: the proxy sorts on the ticks only while the page shows, and once when it
    // is shown again.
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;

Q_SIGNALS:
    // The user opened a queue (double-click or Enter on its row): show it in full.
    void queueOpened(const QString &queue);

private:
    QAction *addAction(const QString &text, const QString &icon, const QString &tip, void (QueuesPage::*slot)());
    void buildCopyAsMenu();
    QString queueUrl(const QString &queue, const QString &tail = {}) const;
    HttpRequestSpec request(const QString &method, const QString &url, const QByteArray &body = {}) const;
    void setFilterText(const QString &text);
    void userSelectionChanged();
    void restoreSelection();
    void updateActions();

    BrokerConnection &m_client;
    StartReport m_start;
    QueueTableModel *m_model;
    QueueProxyModel *m_proxy;
    QTableView *m_view;
    QLineEdit *m_filter;
    QToolBar *m_toolbar;
    MessageBar *m_bar;
    QAction *m_newQueue = nullptr;
    QAction *m_delete = nullptr;
    QList<QAction *> m_queueActions; // enabled only with a queue selected
    QList<QAction *> m_copyQueueActions; // the "Copy as" entries about the selected queue
    QMenu *m_copyAs = nullptr;
    QString m_picked;        // the queue the user selected, by name
    bool m_restoring = false; // selection changes made by the page itself, not the user
};

} // namespace Broker::Ui
