// SPDX-License-Identifier: GPL-3.0-or-later
#include "browsedialog.h"

#include "format.h"
#include "jsontext.h"


#include "runtime/continuation.h"
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonDocument>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

namespace Broker::Ui {

BrowseDialog::BrowseDialog(BrokerClient &client, const QString &queue, QWidget *parent)
    : QDialog(parent), m_client(client), m_queue(queue)
{
    setWindowTitle(tr("Messages in %1").arg(queue));
    resize(900, 520);
    auto *layout = new QVBoxLayout(this);
    auto *splitter = new QSplitter;
    m_table = new QTableWidget(0, 4);
    m_table->setHorizontalHeaderLabels({tr("Message"), tr("Published"), tr("Deliveries"), tr("Bytes")});
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    splitter->addWidget(m_table);
    m_body = new QPlainTextEdit;
    m_body->setReadOnly(true);
    m_body->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    splitter->addWidget(m_body);
    splitter->setSizes({450, 450});
    layout->addWidget(splitter, 1);

    auto *row = new QHBoxLayout;
    m_previous = new QPushButton(tr("◀ Previous"));
    m_next = new QPushButton(tr("Next ▶"));
    m_position = new QLabel;
    row->addWidget(m_previous);
    row->addWidget(m_next);
    row->addWidget(m_position, 1);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    QPushButton *refresh = buttons->addButton(tr("Refresh"), QDialogButtonBox::ActionRole);
    row->addWidget(buttons);
    layout->addLayout(row);

    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(refresh, &QPushButton::clicked, this, [this] { loadPage(m_offset); });
    connect(m_previous, &QPushButton::clicked, this, [this] { loadPage(qMax<qint64>(0, m_offset - PageSize)); });
    connect(m_next, &QPushButton::clicked, this, [this] {
        if (m_nextOffset >= 0)
            loadPage(m_nextOffset);
    });
    connect(m_table, &QTableWidget::currentCellChanged, this, [this](int current) { showMessage(current); });
    loadPage(0);
}

void BrowseDialog::loadPage(qint64 offset)
{
    m_previous->setEnabled(false);
    m_next->setEnabled(false);
    whenFinished(m_client.browse(m_queue, offset, PageSize), this, [this, offset](Result<BrowsePage> page) {
        if (!page) {
            m_position->setText(page.error().message);
            return;
        }
        m_offset = offset;
        showPage(*page);
    });
}

void BrowseDialog::showPage(const BrowsePage &page)
{
    m_messages = page.messages;
    m_nextOffset = page.nextOffset;
    m_table->setRowCount(int(m_messages.size()));
    for (int row = 0; row < m_messages.size(); ++row) {
        const Message &message = m_messages.at(row);
        m_table->setItem(row, 0, new QTableWidgetItem(message.id));
        m_table->setItem(row, 1, new QTableWidgetItem(formatTimestamp(qint64(message.timestamp * 1000))));
        m_table->setItem(row, 2, new QTableWidgetItem(QString::number(message.deliveryCount)));
        m_table->setItem(row, 3, new QTableWidgetItem(formatCount(message.data.size())));
    }
    m_table->resizeColumnsToContents();
    m_position->setText(page.total == 0 ? tr("The queue is empty")
                                        : tr("%1–%2 of %3")
                                              .arg(formatCount(m_offset + 1),
                                                   formatCount(m_offset + m_messages.size()), formatCount(page.total)));
    m_previous->setEnabled(m_offset > 0);
    m_next->setEnabled(m_nextOffset >= 0);
    if (!m_messages.isEmpty())
        m_table->setCurrentCell(0, 0);
    else
        m_body->clear();
}

void BrowseDialog::showMessage(int row)
{
    if (row < 0 || row >= m_messages.size())
        return;
    const Message &message = m_messages.at(row);
    QString text = prettyJson(message.data);
    QStringList facts;
    facts << tr("publisher: %1").arg(message.publisher);
    if (message.priority != 0)
        facts << tr("priority: %1").arg(message.priority);
    if (!message.headers.isEmpty())
        facts << tr("headers: %1").arg(QString::fromUtf8(QJsonDocument(message.headers).toJson(QJsonDocument::Compact)));
    if (!message.originQueue.isEmpty())
        facts << tr("dead-lettered from %1 at %2: %3")
                     .arg(message.originQueue, formatTimestamp(qint64(message.deadLetteredAt * 1000)),
                          message.deadLetterReason);
    m_body->setPlainText(text + QStringLiteral("\n\n// ") + facts.join(QStringLiteral("\n// ")));
}

int BrowseDialog::shownCount() const
{
    return int(m_messages.size());
}

QString BrowseDialog::shownJson() const
{
    return m_body->toPlainText();
}

} // namespace Broker::Ui
