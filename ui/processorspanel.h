// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/processorstatus.h"

#include <QGroupBox>

class QLabel;
class QTableWidget;

namespace Broker::Ui {

// The processors of one queue on its detail page (in-process consumers: C++ callables, webhook
// and exec processors from the config): kind, target, state, in flight against concurrency,
// successes, failures and the last error with its time. A failing or stopped processor says so in
// the state column and the summary line, in the "bad" colour. Hidden while the queue has none.
// Fed from snapshots: it updates the cells in place, so a tick costs a few item updates.
class ProcessorsPanel : public QGroupBox
{
    Q_OBJECT
public:
    enum Column {
        StateColumn,
        KindColumn,
        TargetColumn,
        InFlightColumn,
        SuccessesColumn,
        FailuresColumn,
        LastErrorColumn,
        ColumnCount
    };

    explicit ProcessorsPanel(QWidget *parent = nullptr);

    // The processors of the shown queue, by id (those of other queues are skipped).
    void showProcessors(const QString &queue, const ProcessorStatusList &all);

    QTableWidget *table() const { return m_table; }
    QString summary() const;

    // "failing", "stopped", "running": what the state column says of `status`.
    static QString stateText(const ProcessorStatus &status);

private:
    void setCell(int row, int column, const QString &text, const QString &tip = {});

    QLabel *m_summary;
    QTableWidget *m_table;
};

} // namespace Broker::Ui
