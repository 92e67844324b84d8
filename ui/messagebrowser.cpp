// SPDX-License-Identifier: GPL-3.0-or-later
#include "messagebrowser.h"

#include "format.h"
#include "messagebar.h"
#include "jsontext.h"
#include "messagelistmodel.h"
#include "messagetransfer.h"

#include "runtime/continuation.h"

#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QFileDialog>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace Broker::Ui {

MessageBrowser::MessageBrowser(BrokerConnection &client, QWidget *parent) : QWidget(parent), m_client(client)
{
    setObjectName(QStringLiteral("messageBrowser"));
    auto *layout = new QVBoxLayout(this);
    auto *search = new QHBoxLayout;
    m_state = new QComboBox;
    m_state->setObjectName(QStringLiteral("state"));
    m_state->setToolTip(tr("Which messages to show: ready to deliver, delayed, leased to a consumer, or dead-lettered"));
    m_searchKind = new QComboBox;
    m_searchKind->setObjectName(QStringLiteral("searchKind"));
    m_search = new QLineEdit;
    m_search->setObjectName(QStringLiteral("search"));
    m_search->setClearButtonEnabled(true);
    for (const auto &[state, title] : std::initializer_list<std::pair<MessageState, QString>>{
             {MessageState::Ready, tr("Ready")},
             {MessageState::Delayed, tr("Delayed")},
             {MessageState::InFlight, tr("In flight")},
             {MessageState::Dead, tr("Dead-lettered")}})
        m_state->addItem(title, int(state));
    m_state->setItemData(3, tr("Messages of this queue that were dead-lettered (they wait in its dead-letter queue)"),
                         Qt::ToolTipRole);
    m_searchKind->addItem(tr("Payload contains"), int(SearchKind::Text));
    m_searchKind->addItem(tr("Header"), int(SearchKind::Header));
    m_searchKind->addItem(tr("Message id"), int(SearchKind::Id));
    m_searchKind->setToolTip(tr("What the search looks at: a piece of the payload text as sent (case-sensitive), "
                                "a header (key or key:value), or one message id"));
    auto updatePlaceholder = [this] {
        switch (SearchKind(m_searchKind->currentData().toInt())) {
        case SearchKind::Text: m_search->setPlaceholderText(tr("text in the payload, as sent")); break;
        case SearchKind::Header: m_search->setPlaceholderText(tr("key, or key:value")); break;
        case SearchKind::Id: m_search->setPlaceholderText(tr("msg-…")); break;
        }
    };
    updatePlaceholder();
    connect(m_searchKind, &QComboBox::currentIndexChanged, this, updatePlaceholder);
    connect(m_state, &QComboBox::currentIndexChanged, this, [this] { loadPage(0); });
    auto *find = new QPushButton(tr("&Search"));
    find->setToolTip(tr("Search on the broker (Enter in the field does the same)"));
    search->addWidget(m_state);
    search->addWidget(m_searchKind);
    search->addWidget(m_search, 1);
    search->addWidget(find);
    layout->addLayout(search);

    auto *actions = new QHBoxLayout;
    auto addAction = [&](const QString &text, const QString &tip, auto slot, bool needsSelection) {
        auto *button = new QPushButton(text);
        button->setToolTip(tip);
        connect(button, &QPushButton::clicked, this, slot);
        actions->addWidget(button);
        if (needsSelection)
            m_selectionActions.append(button);
        return button;
    };
    addAction(tr("&Copy"), tr("Copy the selected payloads as sent, one per line"), &MessageBrowser::copyPayload, true);
    actions->addStretch(1);
    addAction(tr("E&xport…"), tr("Write the selected messages, or all that match, to a JSON Lines file"),
              &MessageBrowser::exportMessages, false);
    addAction(tr("&Import…"), tr("Publish every message of a JSON Lines file to this queue (replay)"),
              &MessageBrowser::importMessages, false);
    layout->addLayout(actions);
    // The actions that change messages get a row of their own, so the browser still fits the
    // window at 800 px; it is filled below, once the table they act on exists.
    auto *messageActions = new QHBoxLayout;
    layout->addLayout(messageActions);

    auto *splitter = new QSplitter;
    m_model = new MessageListModel(this);
    m_view = new QTableView;
    m_view->setObjectName(QStringLiteral("messages"));
    m_view->setModel(m_model);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setAlternatingRowColors(true);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setContextMenuPolicy(Qt::ActionsContextMenu);
    splitter->addWidget(m_view);
    m_body = new QPlainTextEdit;
    m_body->setObjectName(QStringLiteral("payload"));
    m_body->setReadOnly(true);
    m_body->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    splitter->addWidget(m_body);
    splitter->setSizes({520, 380});
    layout->addWidget(splitter, 1);
    addMessageActions(messageActions);
    messageActions->addStretch(1);

    auto *paging = new QHBoxLayout;
    m_previous = new QPushButton(tr("◀ Previous"));
    m_next = new QPushButton(tr("Next ▶"));
    m_position = new QLabel;
    m_position->setObjectName(QStringLiteral("position"));
    auto *refreshButton = new QPushButton(tr("&Refresh"));
    paging->addWidget(m_previous);
    paging->addWidget(m_next);
    paging->addWidget(m_position, 1);
    paging->addWidget(refreshButton);
    layout->addLayout(paging);

    connect(find, &QPushButton::clicked, this, [this] { loadPage(0); });
    connect(m_search, &QLineEdit::returnPressed, this, [this] { loadPage(0); });
    connect(refreshButton, &QPushButton::clicked, this, &MessageBrowser::refresh);
    connect(m_previous, &QPushButton::clicked, this, [this] { loadPage(qMax<qint64>(0, m_offset - PageSize)); });
    connect(m_next, &QPushButton::clicked, this, [this] {
        if (m_nextOffset >= 0)
            loadPage(m_nextOffset);
    });
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) { showMessage(current); });
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this, &MessageBrowser::updateActions);
    connect(&m_client, &BrokerConnection::permissionsChanged, this, &MessageBrowser::updateActions);
    m_bar = new MessageBar(this); // floats over the bottom of the browser
    updateActions();
}

void MessageBrowser::showStart(const StartReport &report)
{
    m_start = report;
}

void MessageBrowser::showQueue(const QString &queue)
{
    m_queue = queue;
    m_info = {};
    m_search->clear();
    {
        const QSignalBlocker quiet(m_state); // one load below, not two
        m_state->setCurrentIndex(0);
    }
    m_model->setMessages({});
    m_body->clear();
    loadPage(0);
}

void MessageBrowser::showQueueInfo(const QueueInfo &queue)
{
    const bool deadLetterQueueChanged = queue.config.deadLetterQueue != m_info.config.deadLetterQueue;
    m_info = queue;
    if (deadLetterQueueChanged)
        updateActions(); // Dead-letter… depends on it
}

void MessageBrowser::showQueues(const QList<QueueInfo> &queues)
{
    const bool hadTargets = m_queues.size() > 1;
    m_queues = queues;
    if (hadTargets != (m_queues.size() > 1))
        updateActions(); // Move… depends on it
}

void MessageBrowser::loadPage(qint64 offset)
{
    if (m_queue.isEmpty())
        return;
    m_previous->setEnabled(false);
    m_next->setEnabled(false);
    const quint64 request = ++m_request;
    whenFinished(pageSource()(offset, PageSize), this, [this, request, offset](Result<BrowsePage> page) {
        if (request != m_request)
            return; // a newer request is on its way
        if (!page) {
            showStatus(page.error().message);
            Q_EMIT pageShown();
            return;
        }
        m_offset = offset;
        m_lastTotal = page->total;
        showPage(*page);
        Q_EMIT pageShown();
    });
}

void MessageBrowser::showPage(const BrowsePage &page)
{
    const QStringList selected = selectedIds();
    m_model->setMessages(page.messages);
    m_nextOffset = page.nextOffset;
    m_view->resizeColumnToContents(MessageListModel::Id);
    m_view->resizeColumnToContents(MessageListModel::Published);
    const qint64 shown = page.messages.size();
    const bool filtered = query().isFiltered();
    QString position = page.total == 0 && shown == 0
        ? (filtered ? tr("No matches") : tr("No messages"))
        : tr("%1–%2 of %3").arg(formatCount(m_offset + 1), formatCount(m_offset + shown), formatCount(page.total));
    if (filtered && page.truncated)
        position += tr(" (the search stopped after %1 messages; narrow it to look further)").arg(formatCount(page.scanned));
    else if (filtered)
        position += tr(" matches");
    showStatus(position);
    m_previous->setEnabled(m_offset > 0);
    m_next->setEnabled(m_nextOffset >= 0);
    // A refresh keeps what was selected, where it is still there.
    for (const QString &id : selected) {
        const int row = m_model->rowOf(id);
        if (row >= 0)
            m_view->selectionModel()->select(m_model->index(row, 0),
                                             QItemSelectionModel::Select | QItemSelectionModel::Rows);
    }
    // The first message is shown, not selected: with nothing selected, Export takes them all.
    if (shown > 0 && !m_view->currentIndex().isValid())
        m_view->selectionModel()->setCurrentIndex(m_model->index(0, 0), QItemSelectionModel::NoUpdate);
    if (shown == 0)
        m_body->clear();
    updateActions();
}

void MessageBrowser::showMessage(const QModelIndex &index)
{
    if (!index.isValid()) {
        m_body->clear();
        return;
    }
    const Message &message = m_model->messageAt(index.row());
    QStringList facts;
    facts << tr("id: %1").arg(message.id) << tr("publisher: %1").arg(message.publisher);
    if (message.priority != 0)
        facts << tr("priority: %1").arg(message.priority);
    if (!message.headers.isEmpty())
        facts << tr("headers: %1").arg(QString::fromUtf8(QJsonDocument(message.headers).toJson(QJsonDocument::Compact)));
    if (message.leaseDeadlineMs > 0)
        facts << tr("lease ends: %1").arg(formatTimestamp(message.leaseDeadlineMs));
    if (message.dueMs > 0)
        facts << tr("due: %1").arg(formatTimestamp(message.dueMs));
    if (!message.group.isEmpty())
        facts << tr("group: %1").arg(message.group);
    if (!message.originQueue.isEmpty())
        facts << tr("dead-lettered from %1 at %2: %3")
                     .arg(message.originQueue, formatTimestamp(qint64(message.deadLetteredAt * 1000)),
                          message.deadLetterReason);
    m_body->setPlainText(prettyJson(message.data) + QStringLiteral("\n\n// ") + facts.join(QStringLiteral("\n// ")));
}

BrowseQuery MessageBrowser::query() const
{
    BrowseQuery query;
    query.state = MessageState(m_state->currentData().toInt());
    const QString term = m_search->text().trimmed();
    if (term.isEmpty())
        return query;
    switch (SearchKind(m_searchKind->currentData().toInt())) {
    case SearchKind::Text: query.text = m_search->text(); break; // spaces may matter in a payload
    case SearchKind::Id: query.id = term; break;
    case SearchKind::Header: {
        // key:value as the REST API's header= and brokerctl take it; key=value works too.
        static const QRegularExpression separator(QStringLiteral("[:=]"));
        const qsizetype at = term.indexOf(separator);
        query.headerKey = at < 0 ? term : term.left(at).trimmed();
        if (at >= 0)
            query.headerValue = term.mid(at + 1).trimmed();
        break;
    }
    }
    return query;
}

MessageTransfer::PageSource MessageBrowser::pageSource() const
{
    BrokerConnection *client = &m_client;
    const QString queue = m_queue;
    const BrowseQuery base = query();
    return [client, queue, base](qint64 offset, qint64 limit) {
        BrowseQuery page = base;
        page.offset = offset;
        page.limit = limit;
        return client->browse(queue, page);
    };
}

QStringList MessageBrowser::selectedIds() const
{
    QList<int> rows;
    for (const QModelIndex &index : m_view->selectionModel()->selectedRows())
        rows.append(index.row());
    std::sort(rows.begin(), rows.end());
    QStringList ids;
    for (const int row : rows)
        ids.append(m_model->messageAt(row).id);
    return ids;
}

void MessageBrowser::updateActions()
{
    const bool selected = m_view->selectionModel()->hasSelection();
    for (QWidget *action : std::as_const(m_selectionActions))
        action->setEnabled(selected);
    updateMessageActions(selected);
}

void MessageBrowser::showStatus(const QString &text)
{
    m_position->setText(text);
}

QString MessageBrowser::shownPayload() const
{
    return m_body->toPlainText();
}

QString MessageBrowser::positionText() const
{
    return m_position->text();
}

void MessageBrowser::copyPayload()
{
    QByteArrayList payloads;
    for (const QString &id : selectedIds())
        payloads.append(m_model->messageAt(m_model->rowOf(id)).data);
    QApplication::clipboard()->setText(QString::fromUtf8(payloads.join('\n')));
    showStatus(tr("Copied %n payload(s) as sent", nullptr, int(payloads.size())));
}

} // namespace Broker::Ui

namespace Broker::Ui {

void MessageBrowser::chooseFile(QFileDialog::AcceptMode mode, const QString &title,
                                std::function<void(const QString &)> chosen)
{
    // open(), not the static getters: those run a nested event loop while snapshots arrive.
    auto *dialog = new QFileDialog(this, title);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setAcceptMode(mode);
    dialog->setFileMode(mode == QFileDialog::AcceptSave ? QFileDialog::AnyFile : QFileDialog::ExistingFile);
    dialog->setNameFilters({tr("JSON Lines (*.jsonl *.ndjson)"), tr("All files (*)")});
    dialog->setDefaultSuffix(QStringLiteral("jsonl"));
    if (mode == QFileDialog::AcceptSave)
        dialog->selectFile(m_queue + QStringLiteral(".jsonl"));
    connect(dialog, &QFileDialog::fileSelected, this, std::move(chosen));
    dialog->open();
}

void MessageBrowser::exportMessages()
{
    if (m_queue.isEmpty())
        return;
    chooseFile(QFileDialog::AcceptSave, tr("Export messages of %1").arg(m_queue),
               [this](const QString &fileName) { exportToFile(fileName); });
}

void MessageBrowser::importMessages()
{
    if (m_queue.isEmpty())
        return;
    chooseFile(QFileDialog::AcceptOpen, tr("Import messages into %1").arg(m_queue),
               [this](const QString &fileName) { importFromFile(fileName); });
}

MessageTransfer *MessageBrowser::exportToFile(const QString &fileName)
{
    MessageTransfer *transfer = nullptr;
    const QStringList selected = selectedIds();
    if (!selected.isEmpty()) {
        QList<Message> messages;
        for (const QString &id : selected)
            messages.append(m_model->messageAt(m_model->rowOf(id)));
        transfer = MessageTransfer::exportMessages(fileName, messages, this);
    } else {
        transfer = MessageTransfer::exportTo(fileName, pageSource(), m_lastTotal, this);
    }
    connect(transfer, &MessageTransfer::finished, this, [this](qint64 count, bool cancelled, const QString &error) {
        transferFinished(tr("Exported"), count, cancelled, error);
    });
    return transfer;
}

MessageTransfer *MessageBrowser::importFromFile(const QString &fileName)
{
    MessageTransfer *transfer = MessageTransfer::importFrom(fileName, m_client, m_queue, this);
    connect(transfer, &MessageTransfer::finished, this, [this](qint64 count, bool cancelled, const QString &error) {
        transferFinished(tr("Imported"), count, cancelled, error);
        refresh();
    });
    return transfer;
}

void MessageBrowser::transferFinished(const QString &what, qint64 count, bool cancelled, const QString &error)
{
    if (!error.isEmpty())
        showStatus(tr("%1 %2 messages, then stopped: %3").arg(what, formatCount(count), error));
    else if (cancelled)
        showStatus(tr("Cancelled after %1 messages").arg(formatCount(count)));
    else
        showStatus(tr("%1 %2 messages").arg(what, formatCount(count)));
}

} // namespace Broker::Ui
