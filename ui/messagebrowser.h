// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "messagetransfer.h"

#include "runtime/brokerconnection.h"

#include <QFileDialog>
#include <QHash>
#include <QWidget>

#include <functional>

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QAction;
class QHBoxLayout;
class QTableView;

namespace Broker::Ui {

class MessageBar;
class MessageListModel;
class MessageTransfer;
class RedriveDialog;

// A queue's messages by state (ready, delayed, in flight with its lease end, dead-lettered),
// searched on the server (payload text, a header, an id), a page at a time and never consumed.
// The payload shows exactly as sent: indented, keys in their order. Selected messages (several
// at once) can be copied, deleted, requeued, moved or dead-lettered; a dead-letter queue's can be
// redriven with an edited payload after a dry run that shows the change.
class MessageBrowser : public QWidget
{
    Q_OBJECT
public:
    static constexpr int PageSize = 50;
    enum class SearchKind { Text, Header, Id };

    explicit MessageBrowser(BrokerConnection &client, QWidget *parent = nullptr);

    void showStart(const Broker::StartReport &report);
    void showQueue(const QString &queue);
    // The queue's latest snapshot row: what the state counts and the dead-letter status need.
    void showQueueInfo(const Broker::QueueInfo &queue);
    // The snapshot's queues (sorted by name; implicitly shared, so a tick copies nothing): the
    // targets Move… offers.
    void showQueues(const QList<Broker::QueueInfo> &queues);

    void loadPage(qint64 offset);
    void refresh() { loadPage(m_offset); }

    QString queue() const { return m_queue; }
    MessageListModel *model() const { return m_model; }
    QTableView *view() const { return m_view; }
    QLineEdit *searchField() const { return m_search; }
    QComboBox *stateBox() const { return m_state; }
    QComboBox *searchKindBox() const { return m_searchKind; }
    QString shownPayload() const;
    QString positionText() const;
    // Ids of the selected rows, in table order.
    QStringList selectedIds() const;

    // The actions, also reachable from buttons and the context menu.
    void copyPayload();
    void exportMessages();
    void importMessages();
    // What the file dialogs of those two lead to: the selection (or, with none, every message
    // of the state and search shown) written to `fileName`, or `fileName` published here.
    MessageTransfer *exportToFile(const QString &fileName);
    MessageTransfer *importFromFile(const QString &fileName);

    // Actions on the selected messages (messagebrowseractions.cpp). Delete and Dead-letter ask
    // first; Move asks for the target; Redrive opens its dialog (the selection, or with none the
    // page's dead-lettered messages). Each reports in the message bar and refreshes the page.
    void deleteSelected();
    void requeueSelected();
    void moveSelected();
    void deadLetterSelected();
    RedriveDialog *redriveMessages();
    MessageBar *messageBar() const { return m_bar; }
    // The queue whose messages the table shows: the dead-letter queue in the Dead state.
    QString actionQueue() const;

Q_SIGNALS:
    // A page arrived (or failed): for tests and the status line.
    void pageShown();

private:
    // The state and search the controls ask for (offset and limit left at their defaults).
    Broker::BrowseQuery query() const;
    // The browse the table shows (state and search), as a page source for exports.
    MessageTransfer::PageSource pageSource() const;
    void showPage(const Broker::BrowsePage &page);
    void showMessage(const QModelIndex &index);
    void updateActions();
    void showStatus(const QString &text);
    void chooseFile(QFileDialog::AcceptMode mode, const QString &title, std::function<void(const QString &)> chosen);
    void transferFinished(const QString &what, qint64 count, bool cancelled, const QString &error);
    void addMessageActions(QHBoxLayout *actions);
    // A button and its twin in the table's context menu, kept enabled and explained alike.
    QPushButton *addMessageAction(QHBoxLayout *actions, const QString &text, const std::function<void()> &run);
    void setActionState(QPushButton *button, bool enabled, const QString &tip);
    void runAction(Broker::MessageAction::Kind kind, const QStringList &ids, const QString &target);
    void actionFinished(Broker::MessageAction::Kind kind, const QString &target, const Result<MessageActionResult> &result);
    void updateMessageActions(bool selected);
    Broker::MessageState shownState() const;

    BrokerConnection &m_client;
    StartReport m_start;
    QString m_queue;
    QueueInfo m_info;
    qint64 m_offset = 0;
    qint64 m_nextOffset = -1;
    qint64 m_lastTotal = 0;
    quint64 m_request = 0; // answers to older requests are dropped
    MessageListModel *m_model;
    QComboBox *m_state;
    QComboBox *m_searchKind;
    QLineEdit *m_search;
    QTableView *m_view;
    QPlainTextEdit *m_body;
    QLabel *m_position;
    QPushButton *m_previous;
    QPushButton *m_next;
    QList<QWidget *> m_selectionActions; // enabled with one or more messages selected
    QList<Broker::QueueInfo> m_queues;
    MessageBar *m_bar;
    QPushButton *m_delete = nullptr;
    QPushButton *m_requeue = nullptr;
    QPushButton *m_move = nullptr;
    QPushButton *m_deadLetter = nullptr;
    QPushButton *m_redriveButton = nullptr;
    QHash<QPushButton *, QAction *> m_menuActions;
};

} // namespace Broker::Ui
