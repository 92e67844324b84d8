// SPDX-License-Identifier: GPL-3.0-or-later
#include "queuespage.h"

#include "browsedialog.h"
#include "confirm.h"
#include "createqueuedialog.h"
#include "curlcommand.h"
#include "format.h"
#include "messagebar.h"
#include "publishdialog.h"
#include "queuetablemodel.h"


#include "runtime/continuation.h"
#include <QApplication>
#include <QClipboard>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QToolButton>
#include <QUrl>
#include <QVBoxLayout>

namespace Broker::Ui {

QueuesPage::QueuesPage(BrokerClient &client, QWidget *parent) : QWidget(parent), m_client(client)
{
    auto *layout = new QVBoxLayout(this);
    m_bar = new MessageBar;
    layout->addWidget(m_bar);

    auto *toolbar = new QHBoxLayout;
    m_filter = new QLineEdit;
    m_filter->setObjectName(QStringLiteral("filter"));
    m_filter->setPlaceholderText(tr("Filter queues"));
    m_filter->setClearButtonEnabled(true);
    toolbar->addWidget(m_filter, 1);
    auto addButton = [&](const QString &text, void (QueuesPage::*action)(), bool needsQueue) {
        auto *button = new QPushButton(text);
        connect(button, &QPushButton::clicked, this, action);
        toolbar->addWidget(button);
        if (needsQueue)
            m_queueActions.append(button);
        return button;
    };
    addButton(tr("New queue…"), &QueuesPage::createQueue, false);
    addButton(tr("Publish…"), &QueuesPage::publishMessage, true);
    addButton(tr("Browse…"), &QueuesPage::browseMessages, true);
    addButton(tr("Redrive"), &QueuesPage::redriveQueue, true);
    addButton(tr("Purge…"), &QueuesPage::purgeQueue, true);
    addButton(tr("Delete…"), &QueuesPage::deleteQueue, true);

    auto *curl = new QToolButton;
    curl->setText(tr("Copy as curl"));
    curl->setPopupMode(QToolButton::InstantPopup);
    auto *curlMenu = new QMenu(curl);
    curlMenu->addAction(tr("List queues"), this, [this] { copyCurl(QStringLiteral("GET"), m_start.apiUrl + QStringLiteral("/queues")); });
    curlMenu->addAction(tr("Queue details"), this, [this] { copyCurl(QStringLiteral("GET"), queueUrl(selectedQueue())); });
    curlMenu->addAction(tr("Consume one message"), this, [this] {
        copyCurl(QStringLiteral("GET"), m_start.apiUrl + QStringLiteral("/messages/")
                     + QString::fromUtf8(QUrl::toPercentEncoding(selectedQueue())));
    });
    curlMenu->addAction(tr("Browse messages"), this, [this] {
        copyCurl(QStringLiteral("GET"), queueUrl(selectedQueue(), QStringLiteral("/messages?offset=0&limit=50")));
    });
    curlMenu->addAction(tr("Redrive"), this, [this] { copyCurl(QStringLiteral("POST"), queueUrl(selectedQueue(), QStringLiteral("/redrive"))); });
    curlMenu->addAction(tr("Purge"), this, [this] { copyCurl(QStringLiteral("POST"), queueUrl(selectedQueue(), QStringLiteral("/purge"))); });
    curlMenu->addAction(tr("Delete"), this, [this] { copyCurl(QStringLiteral("DELETE"), queueUrl(selectedQueue())); });
    curl->setMenu(curlMenu);
    toolbar->addWidget(curl);
    layout->addLayout(toolbar);

    m_model = new QueueTableModel(this);
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(QueueTableModel::SortRole);
    m_proxy->setFilterKeyColumn(QueueTableModel::Name);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    connect(m_filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);

    m_view = new QTableView;
    m_view->setObjectName(QStringLiteral("queues"));
    m_view->setModel(m_proxy);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(QueueTableModel::Name, Qt::AscendingOrder);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::SingleSelection);
    m_view->setAlternatingRowColors(true);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 8);
    // Fixed widths from the font: sizing to contents would read every one of 10,000 rows.
    const int digit = m_view->fontMetrics().horizontalAdvance(QLatin1Char('0'));
    for (int column = QueueTableModel::Type; column < QueueTableModel::ColumnCount; ++column)
        m_view->setColumnWidth(column, 11 * digit);
    m_view->setColumnWidth(QueueTableModel::DeadLettered, 14 * digit);
    m_view->setColumnWidth(QueueTableModel::Created, 21 * digit);
    m_view->setColumnWidth(QueueTableModel::Forecast, 20 * digit);
    m_view->horizontalHeader()->setSectionResizeMode(QueueTableModel::Name, QHeaderView::Stretch);
    m_view->setContextMenuPolicy(Qt::ActionsContextMenu);
    for (const auto &[text, action] : std::initializer_list<std::pair<QString, void (QueuesPage::*)()>>{
             {tr("Publish…"), &QueuesPage::publishMessage}, {tr("Browse…"), &QueuesPage::browseMessages},
             {tr("Redrive"), &QueuesPage::redriveQueue}, {tr("Purge…"), &QueuesPage::purgeQueue},
             {tr("Delete…"), &QueuesPage::deleteQueue}}) {
        auto *menuAction = new QAction(text, m_view);
        connect(menuAction, &QAction::triggered, this, action);
        m_view->addAction(menuAction);
    }
    // activated: double-click (or the platform's single click) and Enter.
    connect(m_view, &QTableView::activated, this, [this] {
        if (const QString queue = selectedQueue(); !queue.isEmpty())
            Q_EMIT queueOpened(queue);
    });
    connect(m_view->selectionModel(), &QItemSelectionModel::currentRowChanged, this, &QueuesPage::updateActions);
    layout->addWidget(m_view, 1);
    updateActions();
}

void QueuesPage::showStart(const StartReport &report)
{
    m_start = report;
}

void QueuesPage::showSnapshot(const BrokerSnapshot &snapshot)
{
    m_model->setRows(snapshot.queues);
    updateActions();
}

QString QueuesPage::selectedQueue() const
{
    const QModelIndex current = m_view->currentIndex();
    return current.isValid() ? current.data(QueueTableModel::NameRole).toString() : QString();
}

void QueuesPage::selectQueue(const QString &name)
{
    const int row = m_model->rowOf(name);
    if (row >= 0)
        m_view->setCurrentIndex(m_proxy->mapFromSource(m_model->index(row, 0)));
}

void QueuesPage::updateActions()
{
    const bool selected = !selectedQueue().isEmpty();
    for (QWidget *action : std::as_const(m_queueActions))
        action->setEnabled(selected);
}

QString QueuesPage::queueUrl(const QString &queue, const QString &tail) const
{
    return m_start.apiUrl + QStringLiteral("/queues/") + QString::fromUtf8(QUrl::toPercentEncoding(queue)) + tail;
}

void QueuesPage::copyCurl(const QString &method, const QString &url, const QByteArray &body)
{
    QApplication::clipboard()->setText(curlCommand(method, url, body));
    m_bar->showInfo(tr("Copied: %1").arg(curlCommand(method, url, body)));
}

void QueuesPage::createQueue()
{
    auto *dialog = new CreateQueueDialog(m_start.queueTypes, m_start.config.queues, m_start.apiUrl, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] {
        const QString name = dialog->name();
        // Read as the engine reads a POST /queues body: what the dialog leaves out takes the
        // configured defaults.
        const Result<QueueConfig> config = QueueConfig::fromOptions(name, dialog->options(), m_start.queueDefaults);
        if (!config)
            return m_bar->showError(tr("Could not create %1: %2").arg(name, config.error().message));
        whenFinished(m_client.createQueue(name, *config), this, [this, name](Result<QueueInfo> created) {
            if (!created) {
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
    auto *dialog = new PublishDialog(queue, m_start.apiUrl, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog, queue] {
        whenFinished(m_client.publish(queue, dialog->message()), this, [this, queue](Result<PublishResult> published) {
            if (!published) {
                m_bar->showError(tr("Could not publish to %1: %2").arg(queue, published.error().message));
                return;
            }
            m_bar->showInfo(tr("Published %1 to %2 (%3 queued)")
                                .arg(published->messageIds.value(0), queue, formatCount(published->queueSize)));
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
