// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "runtime/hostreport.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace Broker::Ui {

class ErrorTableModel;

// The ErrorManager's log: newest first, filtered by minimum severity, with totals per severity.
class ErrorsPage : public QWidget
{
    Q_OBJECT
public:
    explicit ErrorsPage(QWidget *parent = nullptr);

    void showDirectory(const Broker::HostDirectory &directory);
    ErrorTableModel *model() const { return m_model; }
    QTableView *view() const { return m_view; }
    void setMinimumSeverity(Broker::Severity severity);

private:
    ErrorTableModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QTableView *m_view;
    QComboBox *m_severity;
    QLabel *m_totals;
};

} // namespace Broker::Ui
