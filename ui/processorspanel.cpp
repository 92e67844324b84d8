// SPDX-License-Identifier: GPL-3.0-or-later
#include "processorspanel.h"

#include "format.h"
#include "palette.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

namespace Broker::Ui {

ProcessorsPanel::ProcessorsPanel(QWidget *parent) : QGroupBox(tr("Processors"), parent)
{
    setObjectName(QStringLiteral("processors"));
    auto *layout = new QVBoxLayout(this);
    m_summary = new QLabel;
    m_summary->setObjectName(QStringLiteral("processorsSummary"));
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summary);
    m_table = new QTableWidget(0, ColumnCount);
    m_table->setObjectName(QStringLiteral("processorsTable"));
    m_table->setHorizontalHeaderLabels({tr("State"), tr("Kind"), tr("Target"), tr("In flight"), tr("Successes"),
                                        tr("Failures"), tr("Last error")});
    m_table->horizontalHeaderItem(StateColumn)
        ->setToolTip(
            tr("Failing: its latest delivery failed and none succeeded since. Stopped: it takes no more messages"));
    m_table->horizontalHeaderItem(TargetColumn)
        ->setToolTip(tr("Where it delivers: a webhook's scheme and host, an exec processor's program"));
    m_table->horizontalHeaderItem(InFlightColumn)
        ->setToolTip(tr("Messages it holds now, of the most it may hold at once"));
    m_table->horizontalHeaderItem(FailuresColumn)
        ->setToolTip(
            tr("Deliveries it failed (declined, an error answer, a timeout); max_deliveries decides dead-lettering"));
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(LastErrorColumn, QHeaderView::Stretch);
    m_table->setVerticalScrollMode(QAbstractItemView::ScrollPerPixel);
    layout->addWidget(m_table);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum); // the charts below take the spare height
    hide();
}

QString ProcessorsPanel::stateText(const ProcessorStatus &status)
{
    if (!status.running)
        return tr("stopped");
    return status.failing ? tr("failing") : tr("running");
}

QString ProcessorsPanel::summary() const
{
    return m_summary->text();
}

void ProcessorsPanel::setCell(int row, int column, const QString &text, const QString &tip)
{
    QTableWidgetItem *item = m_table->item(row, column);
    if (!item) {
        item = new QTableWidgetItem;
        if (column >= InFlightColumn && column <= FailuresColumn)
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_table->setItem(row, column, item);
    }
    if (item->text() != text)
        item->setText(text);
    if (item->toolTip() != tip)
        item->setToolTip(tip);
}

void ProcessorsPanel::showProcessors(const QString &queue, const ProcessorStatusList &all)
{
    ProcessorStatusList shown;
    for (const ProcessorStatus &status : all) {
        if (status.queue == queue)
            shown.append(status);
    }
    setVisible(!shown.isEmpty());
    if (shown.isEmpty()) {
        m_table->setRowCount(0);
        return;
    }
    int failing = 0;
    int stopped = 0;
    m_table->setRowCount(int(shown.size()));
    for (int row = 0; row < shown.size(); ++row) {
        const ProcessorStatus &status = shown.at(row);
        failing += status.failing && status.running ? 1 : 0;
        stopped += status.running ? 0 : 1;
        setCell(row, StateColumn, stateText(status));
        // A configured processor's name says which one it is where several share a kind.
        setCell(row, KindColumn, status.name.isEmpty() ? status.kind : tr("%1 · %2").arg(status.kind, status.name),
                tr("Processor %1").arg(status.id));
        setCell(row, TargetColumn, status.target.isEmpty() ? QStringLiteral("—") : status.target,
                status.target.isEmpty() ? tr("A C++ callable in the broker's process") : status.target);
        setCell(row, InFlightColumn, tr("%1 / %2").arg(formatCount(status.inFlight), formatCount(status.concurrency)));
        setCell(row, SuccessesColumn, formatCount(status.successes),
                status.lastSuccessAtMs > 0 ? tr("Last success %1").arg(formatTimestamp(status.lastSuccessAtMs))
                                           : QString());
        setCell(row, FailuresColumn, formatCount(status.failures));
        setCell(row, LastErrorColumn,
                status.lastError.isEmpty() ? QStringLiteral("—")
                                           : tr("%1 (%2)").arg(status.lastError, formatTimestamp(status.lastErrorAtMs)),
                status.lastError);
        // Colours are set on every tick, so they follow a theme change at the next snapshot.
        const bool bad = status.failing || !status.running;
        const QBrush stateColour(Palette::color(bad ? Palette::Bad : Palette::Good));
        m_table->item(row, StateColumn)->setForeground(stateColour);
        QFont font = m_table->item(row, StateColumn)->font();
        font.setBold(bad);
        m_table->item(row, StateColumn)->setFont(font);
        m_table->item(row, LastErrorColumn)->setForeground(status.failing ? stateColour : m_table->palette().text());
    }
    // As tall as its rows (a queue has one or two processors, rarely more), scrolling past six.
    int height = m_table->horizontalHeader()->sizeHint().height() + 2 * m_table->frameWidth();
    for (int row = 0; row < qMin(m_table->rowCount(), 6); ++row)
        height += m_table->verticalHeader()->sectionSize(row);
    m_table->setFixedHeight(height);
    QString text = shown.size() == 1 ? tr("1 processor") : tr("%1 processors").arg(shown.size());
    if (failing > 0)
        text += tr(" · %1 failing").arg(failing);
    if (stopped > 0)
        text += tr(" · %1 stopped").arg(stopped);
    if (failing + stopped == 0)
        text += tr(" · all running");
    m_summary->setText(text);
    Palette::setTextRole(m_summary, failing + stopped > 0 ? Palette::Bad : Palette::Good);
}

} // namespace Broker::Ui
