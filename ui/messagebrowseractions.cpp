// SPDX-License-Identifier: GPL-3.0-or-later
// The message browser's actions on chosen messages: delete, requeue, move, dead-letter, redrive.
#include "messagebrowser.h"

#include "confirm.h"
#include "format.h"
#include "messagebar.h"
#include "messagelistmodel.h"
#include "redrivedialog.h"

#include "runtime/continuation.h"

#include <QAction>
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QTableView>

namespace Broker::Ui {

QPushButton *MessageBrowser::addMessageAction(QHBoxLayout *actions, const QString &text, const std::function<void()> &run)
{
    auto *button = new QPushButton(text);
    connect(button, &QPushButton::clicked, this, run);
    actions->addWidget(button);
    auto *action = new QAction(text, this);
    connect(action, &QAction::triggered, this, run);
    m_view->addAction(action);
    m_menuActions.insert(button, action);
    return button;
}

void MessageBrowser::addMessageActions(QHBoxLayout *actions)
{
    // Mnemonics chosen clear of the browser's others and of the detail page's tabs and Queues.
    m_delete = addMessageAction(actions, tr("&Delete…"), [this] { deleteSelected(); });
    m_delete->setObjectName(QStringLiteral("deleteMessages"));
    m_requeue = addMessageAction(actions, tr("Req&ueue"), [this] { requeueSelected(); });
    m_requeue->setObjectName(QStringLiteral("requeueMessages"));
    m_move = addMessageAction(actions, tr("Mo&ve to…"), [this] { moveSelected(); });
    m_move->setObjectName(QStringLiteral("moveMessages"));
    m_deadLetter = addMessageAction(actions, tr("Dead-le&tter…"), [this] { deadLetterSelected(); });
    m_deadLetter->setObjectName(QStringLiteral("deadLetterMessages"));
    m_redriveButton = addMessageAction(actions, tr("R&edrive…"), [this] { redriveMessages(); });
    m_redriveButton->setObjectName(QStringLiteral("redriveMessages"));
}

MessageState MessageBrowser::shownState() const
{
    return MessageState(m_state->currentData().toInt());
}

QString MessageBrowser::actionQueue() const
{
    // Dead-lettered messages of a queue live in its dead-letter queue; a queue without one shows
    // its own (it is a dead-letter queue itself).
    if (shownState() == MessageState::Dead && !m_info.config.deadLetterQueue.isEmpty())
        return m_info.config.deadLetterQueue;
    return m_queue;
}

void MessageBrowser::setActionState(QPushButton *button, bool enabled, const QString &tip)
{
    button->setEnabled(enabled);
    button->setToolTip(tip);
    if (QAction *action = m_menuActions.value(button)) {
        action->setEnabled(enabled);
        action->setToolTip(tip);
    }
}

void MessageBrowser::updateMessageActions(bool selected)
{
    if (!m_delete)
        return;
    const MessageState state = shownState();
    const QString none = tr("Select one or more messages first");
    setActionState(m_delete, selected,
                   selected ? tr("Delete the selected messages for good (asks first)") : none);
    const bool requeueable = state == MessageState::Delayed || state == MessageState::InFlight;
    setActionState(m_requeue, selected && requeueable,
                   !requeueable ? tr("Only delayed or in-flight messages can be requeued: ready ones already are")
                   : selected   ? tr("Make the selected messages ready now; a consumer's lease ends and its receipt "
                                     "no longer acks")
                                : none);
    const bool otherQueue = m_queues.size() > 1;
    setActionState(m_move, selected && otherQueue,
                   !otherQueue ? tr("There is no other queue to move messages to")
                   : selected  ? tr("Move the selected messages to another queue, ready there, deliveries counted afresh")
                               : none);
    const bool hasDeadLetterQueue = !m_info.config.deadLetterQueue.isEmpty();
    const bool deadAlready = state == MessageState::Dead;
    setActionState(m_deadLetter, selected && hasDeadLetterQueue && !deadAlready,
                   deadAlready            ? tr("These messages are dead-lettered already")
                   : !hasDeadLetterQueue ? tr("This queue has no dead-letter queue (set one in its options)")
                   : selected             ? tr("Move the selected messages to %1 with the reason \"manual\" (asks first)")
                                                .arg(m_info.config.deadLetterQueue)
                                          : none);
    bool deadLettered = false;
    for (const Message &message : m_model->messages()) {
        if (!message.originQueue.isEmpty()) {
            deadLettered = true;
            break;
        }
    }
    setActionState(m_redriveButton, deadLettered,
                   deadLettered ? tr("Send the selected dead-lettered messages (or all on this page) back to their "
                                     "origin queues, payloads editable, with a preview first. Redrive on the "
                                     "Queues page takes the whole queue.")
                                : tr("Only dead-lettered messages can be redriven: show the Dead-lettered state, "
                                     "or open a dead-letter queue"));
    // What the connection's key may not do is greyed and says so, as the API would refuse it.
    // The actions work on the queue the shown messages are in (the dead-letter queue when showing
    // dead-lettered ones), and the API checks that one.
    const QString queue = actionQueue();
    const std::pair<QPushButton *, QString> needs[] = {
        {m_delete, QStringLiteral("purge_queue:") + queue},
        {m_requeue, QStringLiteral("consume:") + queue},
        {m_move, QStringLiteral("consume:") + queue},
        {m_deadLetter, QStringLiteral("purge_queue:") + queue},
        {m_redriveButton, QStringLiteral("purge_queue:") + queue},
    };
    for (const auto &[button, permission] : needs) {
        if (!m_client.allows(permission))
            setActionState(button, false, tr("Not permitted: this connection's key lacks %1").arg(permission));
    }
}

void MessageBrowser::deleteSelected()
{
    const QStringList ids = selectedIds();
    if (ids.isEmpty())
        return;
    const QString queue = actionQueue();
    confirmAction(this, tr("Delete"),
                  tr("%n message(s) will be deleted from %1; this cannot be undone.", nullptr, int(ids.size())).arg(queue),
                  [this, ids] { runAction(MessageAction::Kind::Delete, ids, {}); });
}

void MessageBrowser::requeueSelected()
{
    const QStringList ids = selectedIds();
    if (!ids.isEmpty())
        runAction(MessageAction::Kind::Requeue, ids, {});
}

void MessageBrowser::deadLetterSelected()
{
    const QStringList ids = selectedIds();
    if (ids.isEmpty() || m_info.config.deadLetterQueue.isEmpty())
        return;
    confirmAction(this, tr("Dead-letter"),
                  tr("%n message(s) will leave %1 for its dead-letter queue %2; consumers will not get them "
                     "unless they are redriven.",
                     nullptr, int(ids.size()))
                      .arg(m_queue, m_info.config.deadLetterQueue),
                  [this, ids] { runAction(MessageAction::Kind::DeadLetter, ids, {}); });
}

void MessageBrowser::moveSelected()
{
    const QStringList ids = selectedIds();
    if (ids.isEmpty())
        return;
    const QString from = actionQueue();
    auto *dialog = new QDialog(this);
    dialog->setObjectName(QStringLiteral("moveDialog"));
    dialog->setWindowTitle(tr("Move messages"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    auto *layout = new QFormLayout(dialog);
    layout->addRow(new QLabel(tr("Move %n message(s) from %1 to:", nullptr, int(ids.size())).arg(from)));
    auto *target = new QComboBox;
    target->setObjectName(QStringLiteral("moveTarget"));
    target->setToolTip(tr("The queue the messages go to; they are ready there at once"));
    for (const QueueInfo &queue : std::as_const(m_queues)) {
        if (queue.name != from)
            target->addItem(queue.name);
    }
    layout->addRow(tr("&Queue:"), target);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("&Move"));
    layout->addRow(buttons);
    connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
    connect(buttons, &QDialogButtonBox::accepted, dialog, [this, dialog, target, ids] {
        if (target->currentText().isEmpty())
            return;
        runAction(MessageAction::Kind::Move, ids, target->currentText());
        dialog->accept();
    });
    dialog->open(); // window-modal, no nested event loop
}

void MessageBrowser::runAction(MessageAction::Kind kind, const QStringList &ids, const QString &target)
{
    MessageAction action;
    action.kind = kind;
    action.ids = ids;
    action.target = target;
    action.user = BrokerConnection::desktopUser();
    whenFinished(m_client.messageAction(actionQueue(), action), this,
                 [this, kind, target](const Result<MessageActionResult> &result) { actionFinished(kind, target, result); });
}

void MessageBrowser::actionFinished(MessageAction::Kind kind, const QString &target,
                                    const Result<MessageActionResult> &result)
{
    if (!result) {
        m_bar->showError(result.error().message);
        return;
    }
    const int affected = int(result->affected);
    QString text;
    switch (kind) {
    case MessageAction::Kind::Delete: text = tr("Deleted %n message(s)", nullptr, affected); break;
    case MessageAction::Kind::Requeue: text = tr("Requeued %n message(s): ready now", nullptr, affected); break;
    case MessageAction::Kind::Move: text = tr("Moved %n message(s) to %1", nullptr, affected).arg(target); break;
    case MessageAction::Kind::DeadLetter:
        text = tr("Dead-lettered %n message(s) to %1", nullptr, affected).arg(m_info.config.deadLetterQueue);
        break;
    }
    if (!result->missing.isEmpty())
        text += tr("; %n were no longer there", nullptr, int(result->missing.size()));
    m_bar->showInfo(text);
    m_view->clearSelection(); // the rows acted on are gone or elsewhere
    refresh();
}

RedriveDialog *MessageBrowser::redriveMessages()
{
    QList<Message> messages;
    const QStringList selected = selectedIds();
    for (const QString &id : selected) {
        const Message &message = m_model->messageAt(m_model->rowOf(id));
        if (!message.originQueue.isEmpty())
            messages.append(message);
    }
    if (selected.isEmpty()) {
        for (const Message &message : m_model->messages()) {
            if (!message.originQueue.isEmpty())
                messages.append(message);
        }
    }
    if (messages.isEmpty()) {
        m_bar->showError(tr("None of the selected messages is dead-lettered: there is nothing to redrive"));
        return nullptr;
    }
    auto *dialog = new RedriveDialog(m_client, m_queue, messages, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &RedriveDialog::redriven, this, [this](qint64 moved, const QStringList &missing, const QString &error) {
        if (!error.isEmpty())
            return m_bar->showError(tr("Redrive failed: %1").arg(error));
        QString text = tr("Redrove %n message(s) to their origin queues", nullptr, int(moved));
        if (!missing.isEmpty())
            text += tr("; %n were no longer dead-lettered here", nullptr, int(missing.size()));
        m_bar->showInfo(text);
        m_view->clearSelection();
        refresh();
    });
    dialog->open();
    return dialog;
}

} // namespace Broker::Ui
