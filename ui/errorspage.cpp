// SPDX-License-Identifier: GPL-3.0-or-later
#include "errorspage.h"

#include "errortablemodel.h"
#include "format.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace Broker::Ui {

ErrorsPage::ErrorsPage(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    auto *row = new QHBoxLayout;
    row->addWidget(new QLabel(tr("Show")));
    m_severity = new QComboBox;
    m_severity->setObjectName(QStringLiteral("severity"));
    m_severity->addItem(tr("everything"), int(Severity::Info));
    m_severity->addItem(tr("warnings and worse"), int(Severity::Warning));
    m_severity->addItem(tr("errors and worse"), int(Severity::Error));
    m_severity->addItem(tr("critical only"), int(Severity::Critical));
    row->addWidget(m_severity);
    m_totals = new QLabel;
    row->addWidget(m_totals, 1, Qt::AlignRight);
    layout->addLayout(row);

    m_model = new ErrorTableModel(this);
    m_proxy = new QSortFilterProxyModel(this);
    m_proxy->setSourceModel(m_model);
    m_proxy->setFilterRole(ErrorTableModel::SeverityRole);
    m_proxy->setFilterKeyColumn(ErrorTableModel::Severity);
    // Severities are 0..3 in rising order: "at least N" is a character class of the digits N..3.
    connect(m_severity, &QComboBox::currentIndexChanged, this, [this] {
        const int minimum = m_severity->currentData().toInt();
        m_proxy->setFilterRegularExpression(QStringLiteral("^[%1-3]$").arg(minimum));
    });
    m_view = new QTableView;
    m_view->setObjectName(QStringLiteral("errors"));
    m_view->setModel(m_proxy);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setAlternatingRowColors(true);
    m_view->setWordWrap(false);
    m_view->verticalHeader()->hide();
    m_view->horizontalHeader()->setSectionResizeMode(ErrorTableModel::Message, QHeaderView::Stretch);
    layout->addWidget(m_view, 1);
    showDirectory({});
}

void ErrorsPage::setMinimumSeverity(Severity severity)
{
    m_severity->setCurrentIndex(m_severity->findData(int(severity)));
}

void ErrorsPage::showDirectory(const HostDirectory &directory)
{
    m_model->setRows(directory.errors);
    const auto &totals = directory.errorTotals;
    m_totals->setText(tr("critical %1 · errors %2 · warnings %3 · info %4")
                          .arg(formatCount(totals[size_t(Severity::Critical)]), formatCount(totals[size_t(Severity::Error)]),
                               formatCount(totals[size_t(Severity::Warning)]), formatCount(totals[size_t(Severity::Info)])));
}

} // namespace Broker::Ui
