// SPDX-License-Identifier: GPL-3.0-or-later
#include "queuespage.h"

#include "browsedialog.h"
#include "confirm.h"
#include "copyas.h"
#include "createqueuedialog.h"
#include "format.h"
#include "icons.h"
#include "messagebar.h"
#include "publishdialog.h"
#include "queueproxymodel.h"
#include "queuetablemodel.h"

#include "runtime/continuation.h"
#include <QAction>
#include <QHeaderView>
#include <QLineEdit>
#include <QMenu>
#include <QPointer>
#include <QScopedValueRollback>
#include <QTableView>
#include <QToolBar>
#include <QToolButton>
#include <QUrl>
#include <QVBoxLayout>

namespace Broker::Ui {

QueuesPage::QueuesPage(BrokerConnection &client, QWidget *parent) : QWidget(parent), m_client(client)
{
    auto *layout = new QVBoxLayout(this);
    m_bar = new MessageBar;
    layout->addWidget(m_bar);

    m_filter = new QLineEdit;
    m_filter->setObjectName(QStringLiteral("filter"));
    m_filter->setPlaceholderText(tr("Filter queues (Ctrl+F)"));
    m_filter->setToolTip(tr("Show only the queues whose name contains this text"));
    m_filter->setClearButtonEnabled(true);
    m_filter->setMinimumWidth(120);
    layout->addWidget(m_filter);

    // A tool bar rather than a row of buttons: at a narrow width the actions that do not fit go
    // to its overflow menu instead of widening the window.
    m_toolbar = new QToolBar;
    m_toolbar->setObjectName(QStringLiteral("queueActions"));
    m_toolbar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_toolbar->setIconSize(QSize(16, 16));
    m_newQueue = addAction(tr("&New queue…"), QStringLiteral("list-add"), tr("Create a queue (Ctrl+N)"), &QueuesPage::createQueue);
    m_newQueue->setShortcut(QKeySequence::New);
    m_newQueue->setData(QStringLiteral("create_queue"));
    m_queueActions.append(addAction(tr("&Publish…"), QStringLiteral("mail-send"),
                                    tr("Publish a test message to the selected queue"), &QueuesPage::publishMessage));
    m_queueActions.append(addAction(tr("&Browse…"), QStringLiteral("document-open"),
                                    tr("Look at the selected queue's messages without consuming them (double-click the queue for its detail page)"),
                                    &QueuesPage::browseMessages));
    m_queueActions.append(addAction(tr("&Redrive"), QStringLiteral("edit-redo"),
                                    tr("Move the dead letters of the selected dead-letter queue back to their queues"),
                                    &QueuesPage::redriveQueue));
    m_queueActions.append(addAction(tr("P&urge…"), QStringLiteral("edit-clear"),
                                    tr("Remove every message from the selected queue (asks first)"), &QueuesPage::purgeQueue));
    m_delete = addAction(tr("&Delete…"), QStringLiteral("edit-delete"),
                         tr("Delete the selected queue and its messages (Delete; asks first)"), &QueuesPage::deleteQueue);
    m_queueActions.append(m_delete);
    // What each queue action needs of the key, as the API checks it (%1: the queue).
    const char *const needs[] = {"publish:%1", "peek:%1", "purge_queue:%1", "purge_queue:%1", "delete_queue"};
    for (int i = 0; i < m_queueActions.size(); ++i) {
        m_queueActions[i]->setData(QString::fromLatin1(needs[i]));
        m_queueActions[i]->setProperty("permittedTip", m_queueActions[i]->toolTip());
    }
    m_newQueue->setProperty("permittedTip", m_newQueue->toolTip());
    connect(&m_client, &BrokerConnection::permissionsChanged, this, &QueuesPage::updateActions);
    buildCopyAsMenu();
    auto *copy = new QToolButton;
    copy->setObjectName(QStringLiteral("copyAs"));
    copy->setText(tr("Copy &as"));
    copy->setIcon(themeIcon(QStringLiteral("edit-copy")));
    copy->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    copy->setToolTip(tr("Copy a request for the selected queue as curl, Python or C++; the key stays a placeholder"));
    copy->setPopupMode(QToolButton::InstantPopup);
    copy->setMenu(m_copyAs);
    m_toolbar->addWidget(copy);
    if (auto *more = m_toolbar->findChild<QToolButton *>(QStringLiteral("qt_toolbar_ext_button")))
        more->setToolTip(tr("More actions: the ones that do not fit at this width"));
    layout->addWidget(m_toolbar);

    m_model = new QueueTableModel(this);
    m_proxy = new QueueProxyModel(m_model, this);
    connect(m_filter, &QLineEdit::textChanged, this, &QueuesPage::setFilterText);

    m_view = new QTableView;
    m_view->setObjectName(QStringLiteral("queues"));
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(QueueTableModel::Name, Qt::AscendingOrder);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setAlternatingRowColors(true);
    m_view->setTextElideMode(Qt::ElideMiddle); // tenant-a.orders…retry keeps both ends readable
    m_view->setWordWrap(false);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 8);
    // Fixed widths from the font: sizing to contents would read every one of 10,000 rows.
    const int digit = m_view->fontMetrics().horizontalAdvance(QLatin1Char('0'));
    for (int column = QueueTableModel::Type; column < QueueTableModel::ColumnCount; ++column)
        m_view->setColumnWidth(column, 9 * digit);
    m_view->setColumnWidth(QueueTableModel::DeadLettered, 12 * digit);
    m_view->setColumnWidth(QueueTableModel::Created, 19 * digit);
    m_view->setColumnWidth(QueueTableModel::Forecast, 16 * digit);
    m_view->horizontalHeader()->setMinimumSectionSize(4 * digit);
    m_view->horizontalHeader()->setSectionResizeMode(QueueTableModel::Name, QHeaderView::Stretch);
    m_view->setContextMenuPolicy(Qt::ActionsContextMenu);
    m_view->addActions(m_queueActions);
    auto *copyMenuAction = new QAction(tr("Copy as"), m_view);
    copyMenuAction->setMenu(m_copyAs);
    m_view->addAction(copyMenuAction);
    // Delete acts on the table only: in the filter field it still deletes text.
    auto *deleteKey = new QAction(m_view);
    deleteKey->setShortcut(QKeySequence::Delete);
    deleteKey->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(deleteKey, &QAction::triggered, this, &QueuesPage::deleteQueue);
    m_view->addAction(deleteKey);
    // activated: double-click (or the platform's single click) and Enter.
    connect(m_view, &QTableView::activated, this, [this] {
        if (const QString queue = selectedQueue(); !queue.isEmpty())
            Q_EMIT queueOpened(queue);
    });
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this, &QueuesPage::userSelectionChanged);
    // Enter in the filter moves on to the table, where the arrows pick a queue.
    connect(m_filter, &QLineEdit::returnPressed, this, [this] {
        m_view->setFocus();
        if (selectedQueue().isEmpty() && m_proxy->rowCount() > 0)
            m_view->selectRow(0);
    });
    layout->addWidget(m_view, 1);
    updateActions();
}

QAction *QueuesPage::addAction(const QString &text, const QString &icon, const QString &tip, void (QueuesPage::*slot)())
{
    QAction *action = m_toolbar->addAction(themeIcon(icon), text);
    action->setToolTip(tip);
    action->setStatusTip(tip);
    connect(action, &QAction::triggered, this, slot);
    return action;
}

void QueuesPage::buildCopyAsMenu()
{
    m_copyAs = new QMenu(tr("Copy as"), this);
    m_copyAs->setObjectName(QStringLiteral("copyAsMenu"));
    const auto copied = [this](SnippetLanguage, const QString &text) {
        m_bar->showInfo(tr("Copied to the clipboard: %1").arg(text.section(QLatin1Char('\n'), 0, 0)));
    };
    const auto encoded = [this] { return QString::fromUtf8(QUrl::toPercentEncoding(selectedQueue())); };
    const std::initializer_list<std::pair<QString, std::function<HttpRequestSpec()>>> requests = {
        {tr("List queues"), [this] { return request(QStringLiteral("GET"), m_start.apiUrl + QStringLiteral("/queues")); }},
        {tr("Queue details"), [this] { return request(QStringLiteral("GET"), queueUrl(selectedQueue())); }},
        {tr("Publish a message"), [this, encoded] {
             return request(QStringLiteral("POST"), m_start.apiUrl + QStringLiteral("/messages/") + encoded(),
                            QByteArrayLiteral(R"({"message":{"hello":"world"}})"));
         }},
        {tr("Consume one message"), [this, encoded] {
             return request(QStringLiteral("GET"), m_start.apiUrl + QStringLiteral("/messages/") + encoded());
         }},
        {tr("Browse messages"), [this] {
             return request(QStringLiteral("GET"), queueUrl(selectedQueue(), QStringLiteral("/messages?offset=0&limit=50")));
         }},
        {tr("Redrive"), [this] { return request(QStringLiteral("POST"), queueUrl(selectedQueue(), QStringLiteral("/redrive"))); }},
        {tr("Purge"), [this] { return request(QStringLiteral("POST"), queueUrl(selectedQueue(), QStringLiteral("/purge"))); }},
        {tr("Delete"), [this] { return request(QStringLiteral("DELETE"), queueUrl(selectedQueue())); }},
    };
    bool first = true;
    for (const auto &[title, make] : requests) {
        QMenu *sub = m_copyAs->addMenu(title);
        addCopyAsActions(sub, this, make, copied);
        if (!first)
            m_copyQueueActions.append(sub->menuAction()); // about the selected queue
        first = false;
    }
}

HttpRequestSpec QueuesPage::request(const QString &method, const QString &url, const QByteArray &body) const
{
    return HttpRequestSpec{method, url, body};
}

void QueuesPage::showStart(const StartReport &report)
{
    m_start = report;
}

void QueuesPage::showSnapshot(const BrokerSnapshot &snapshot)
{
    {
        const QScopedValueRollback guard(m_restoring, true);
        m_model->setRows(snapshot.queues);
    }
    restoreSelection();
}

void QueuesPage::setFilterText(const QString &text)
{
    {
        const QScopedValueRollback guard(m_restoring, true);
        m_proxy->setFilterFixedString(text);
    }
    restoreSelection();
}

void QueuesPage::userSelectionChanged()
{
    if (m_restoring)
        return; // the model or the filter moved rows; the pick stays what it was
    const QModelIndexList rows = m_view->selectionModel()->selectedRows();
    m_picked = rows.isEmpty() ? QString() : rows.first().data(QueueTableModel::NameRole).toString();
    updateActions();
}

// Puts the selection back on the picked queue after rows moved: a row that was removed may have
// handed "current" to its neighbour, which must never become the target of an action.
void QueuesPage::restoreSelection()
{
    const QScopedValueRollback guard(m_restoring, true);
    QItemSelectionModel *selection = m_view->selectionModel();
    const int sourceRow = m_picked.isEmpty() ? -1 : m_model->rowOf(m_picked);
    if (!m_picked.isEmpty() && sourceRow < 0)
        m_picked.clear(); // deleted: nothing is selected now
    const QModelIndex shown = sourceRow < 0 ? QModelIndex() : m_proxy->mapFromSource(m_model->index(sourceRow, 0));
    if (shown.isValid()) {
        const QModelIndexList rows = selection->selectedRows();
        if (rows.size() != 1 || rows.first().row() != shown.row())
            selection->setCurrentIndex(shown, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    } else if (selection->hasSelection() || selection->currentIndex().isValid()) {
        selection->clear();
    }
    updateActions();
}

void QueuesPage::showEvent(QShowEvent *event)
{
    m_proxy->setDynamicSortFilter(true);
    QWidget::showEvent(event);
}

void QueuesPage::hideEvent(QHideEvent *event)
{
    m_proxy->setDynamicSortFilter(false);
    QWidget::hideEvent(event);
}

QString QueuesPage::selectedQueue() const
{
    const int sourceRow = m_picked.isEmpty() ? -1 : m_model->rowOf(m_picked);
    if (sourceRow < 0 || !m_proxy->mapFromSource(m_model->index(sourceRow, 0)).isValid())
        return {};
    return m_picked;
}

void QueuesPage::selectQueue(const QString &name)
{
    m_picked = m_model->rowOf(name) >= 0 ? name : QString();
    restoreSelection();
    if (!m_picked.isEmpty())
        m_view->scrollTo(m_view->currentIndex());
}

void QueuesPage::updateActions()
{
    const QString queue = selectedQueue();
    const bool selected = !queue.isEmpty();
    // An action the key may not use stays visible, greyed, and says what it lacks.
    const auto permit = [this](QAction *action, const QString &permission, bool applicable) {
        const bool allowed = m_client.allows(permission);
        action->setEnabled(applicable && allowed);
        action->setToolTip(allowed ? action->property("permittedTip").toString()
                                   : tr("Not permitted: this connection's key lacks %1").arg(permission));
    };
    permit(m_newQueue, m_newQueue->data().toString(), true);
    for (QAction *action : std::as_const(m_queueActions)) {
        QString permission = action->data().toString();
        permission.replace(QLatin1StringView("%1"), selected ? queue : QStringLiteral("*"));
        permit(action, permission, selected);
    }
    for (QAction *action : std::as_const(m_copyQueueActions))
        action->setEnabled(selected);
}

QString QueuesPage::queueUrl(const QString &queue, const QString &tail) const
{
    return m_start.apiUrl + QStringLiteral("/queues/") + QString::fromUtf8(QUrl::toPercentEncoding(queue)) + tail;
}

void QueuesPage::createQueue()
{
    auto *dialog = new CreateQueueDialog(m_start.queueTypes, m_start.config.queues, m_start.apiUrl,
                                         [this](const QString &name) { return m_model->rowOf(name) >= 0; }, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &CreateQueueDialog::createRequested, this, [this, dialog = QPointer(dialog)](const QString &name, const QJsonObject &options) {
        // Read as the engine reads a POST /queues body: what the dialog leaves out takes the
        // configured defaults.
        const Result<QueueConfig> config = QueueConfig::fromOptions(name, options, m_start.queueDefaults);
        if (!config)
            return dialog->finish(config.error().message);
        whenFinished(m_client.createQueue(name, *config), this, [this, name, dialog](Result<QueueInfo> created) {
            if (dialog)
                dialog->finish(created ? QString() : created.error().message);
            if (!created) {
                if (!dialog)
                    m_bar->showError(tr("Could not create %1: %2").arg(name, created.error().message));
                return;
            }
            m_bar->showInfo(tr("Queue %1 created").arg(name));
        });
    });
    dialog->open();
}

void QueuesPage::publishMessage()
{
    const QString queue = selectedQueue();
    if (queue.isEmpty())
        return;
    const int row = m_model->rowOf(queue);
    auto *dialog = new PublishDialog(queue, m_model->rowAt(row).config.type, m_start.apiUrl, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &PublishDialog::publishRequested, this, [this, dialog = QPointer(dialog), queue](const NewMessage &message) {
        whenFinished(m_client.publish(queue, {message}), this, [this, queue, dialog](Result<PublishResult> published) {
            if (dialog)
                dialog->finish(published ? QString() : published.error().message);
            if (!published) {
                if (!dialog)
                    m_bar->showError(tr("Could not publish to %1: %2").arg(queue, published.error().message));
                return;
            }
            m_bar->showInfo(tr("Published %1 to %2 (%3 queued)")
                                .arg(published->messageId(0), queue, formatCount(published->queueSize)));
        });
    });
    dialog->open();
}

void QueuesPage::browseMessages()
{
    const QString queue = selectedQueue();
    if (queue.isEmpty())
        return;
    auto *dialog = new BrowseDialog(m_client, m_start, queue, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->open();
}

void QueuesPage::purgeQueue()
{
    const QString queue = selectedQueue();
    if (queue.isEmpty())
        return;
    confirmAction(this, tr("Purge"), tr("Remove every message from %1? Messages in flight are removed too.").arg(queue), [this, queue] {
        whenFinished(m_client.purgeQueue(queue), this, [this, queue](Result<qint64> purged) {
            if (!purged)
                m_bar->showError(tr("Could not purge %1: %2").arg(queue, purged.error().message));
            else
                m_bar->showInfo(tr("Purged %1 messages from %2").arg(formatCount(*purged), queue));
        });
    });
}

void QueuesPage::deleteQueue()
{
    const QString queue = selectedQueue();
    if (queue.isEmpty())
        return;
    confirmAction(this, tr("Delete"), tr("Delete %1 and all its messages?").arg(queue), [this, queue] {
        whenFinished(m_client.deleteQueue(queue), this, [this, queue](Result<qint64> deleted) {
            if (!deleted)
                m_bar->showError(tr("Could not delete %1: %2").arg(queue, deleted.error().message));
            else
                m_bar->showInfo(tr("Queue %1 deleted").arg(queue));
        });
    });
}

void QueuesPage::redriveQueue()
{
    const QString queue = selectedQueue();
    if (queue.isEmpty())
        return;
    whenFinished(m_client.redrive(queue, 0), this, [this, queue](Result<qint64> moved) {
        if (!moved)
            m_bar->showError(tr("Could not redrive %1: %2").arg(queue, moved.error().message));
        else
            m_bar->showInfo(tr("Moved %1 messages from %2 back to their queues").arg(formatCount(*moved), queue));
    });
}

} // namespace Broker::Ui
