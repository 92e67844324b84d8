// SPDX-License-Identifier: GPL-3.0-or-later
#include "flowpage.h"

#include "eventtailmodel.h"
#include "format.h"
#include "palette.h"
#include "ratechart.h"

#include "core/messageid.h"


#include "runtime/continuation.h"
#include <QAbstractItemView>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace Broker::Ui {

namespace {

constexpr qint64 HistoryMs = 5 * 60 * 1000;
constexpr qint64 HistoryStepMs = 1000;
constexpr size_t BusiestTracked = 10; // the busiest queues of each second start being tracked
constexpr qsizetype MaxTracked = 32;  // queue histories kept at most

} // namespace

FlowPage::FlowPage(BrokerConnection &client, QWidget *parent) : QWidget(parent), m_client(client)
{
    auto *layout = new QVBoxLayout(this);
    auto *chartRow = new QHBoxLayout;
    chartRow->addWidget(new QLabel(tr("Rates of")));
    m_queuePicker = new QComboBox;
    m_queuePicker->setObjectName(QStringLiteral("queuePicker"));
    m_queuePicker->setMinimumContentsLength(24);
    m_queuePicker->addItem(tr("all queues"), QString());
    chartRow->addWidget(m_queuePicker);
    chartRow->addStretch(1);
    layout->addLayout(chartRow);
    m_chart = new RateChart;
    m_chart->setWindowSeconds(int(HistoryMs / 1000));
    m_chart->addSeries(tr("publish"), Palette::color(Palette::PublishSeries));
    m_chart->addSeries(tr("consume"), Palette::color(Palette::ConsumeSeries));
    m_chart->setMinimumHeight(160);
    layout->addWidget(m_chart, 2);
    connect(m_queuePicker, &QComboBox::currentIndexChanged, this, &FlowPage::redrawChart);

    auto *tailRow = new QHBoxLayout;
    tailRow->addWidget(new QLabel(tr("Live events")));
    m_filter = new QLineEdit;
    m_filter->setObjectName(QStringLiteral("tailFilter"));
    m_filter->setPlaceholderText(tr("Filter by queue, event, message or user"));
    m_filter->setClearButtonEnabled(true);
    tailRow->addWidget(m_filter, 1);
    m_filter->setToolTip(tr("Show only the events that contain this text in any column"));
    m_holdLabel = new QLabel;
    m_holdLabel->setObjectName(QStringLiteral("tailHold"));
    m_holdLabel->setToolTip(tr("The list holds still while the pointer is on it or a row is selected; "
                               "move the pointer away and press Esc to catch up"));
    m_holdLabel->hide();
    tailRow->addWidget(m_holdLabel);
    m_pause = new QPushButton(tr("&Pause"));
    m_pause->setObjectName(QStringLiteral("pause"));
    m_pause->setCheckable(true);
    m_pause->setToolTip(tr("Stop adding new events to the list; they wait and appear on resume"));
    tailRow->addWidget(m_pause);
    auto *clearButton = new QPushButton(tr("C&lear"));
    clearButton->setToolTip(tr("Remove every event from the list (the broker keeps its own log)"));
    tailRow->addWidget(clearButton);
    layout->addLayout(tailRow);

    m_tail = new EventTailModel(5000, this);
    m_tailFilter = new QSortFilterProxyModel(this);
    m_tailFilter->setSourceModel(m_tail);
    m_tailFilter->setFilterKeyColumn(-1); // any column
    m_tailFilter->setFilterCaseSensitivity(Qt::CaseInsensitive);
    connect(m_filter, &QLineEdit::textChanged, m_tailFilter, &QSortFilterProxyModel::setFilterFixedString);
    connect(m_pause, &QPushButton::toggled, this, &FlowPage::setPaused);
    connect(clearButton, &QPushButton::clicked, m_tail, &EventTailModel::clear);

    auto *splitter = new QSplitter;
    m_tailView = new QTableView;
    m_tailView->setObjectName(QStringLiteral("tail"));
    m_tailView->setModel(m_tailFilter);
    m_tailView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_tailView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_tailView->verticalHeader()->hide();
    m_tailView->verticalHeader()->setDefaultSectionSize(m_tailView->fontMetrics().height() + 6);
    m_tailView->horizontalHeader()->setStretchLastSection(true);
    m_tailView->setWordWrap(false);
    const int digit = m_tailView->fontMetrics().horizontalAdvance(QLatin1Char('0'));
    m_tailView->setColumnWidth(EventTailModel::Time, 13 * digit);
    m_tailView->setColumnWidth(EventTailModel::Event, 14 * digit);
    m_tailView->setColumnWidth(EventTailModel::Queue, 15 * digit);
    m_tailView->setColumnWidth(EventTailModel::Message, 21 * digit);
    m_tailView->setColumnWidth(EventTailModel::Delivery, 9 * digit);
    m_tailView->setColumnWidth(EventTailModel::User, 10 * digit);
    m_tailView->setMouseTracking(true);
    m_tailView->viewport()->installEventFilter(this);
    m_tailView->installEventFilter(this);
    splitter->addWidget(m_tailView);
    m_timeline = new QTreeWidget;
    m_timeline->setObjectName(QStringLiteral("timeline"));
    m_timeline->setHeaderLabels({tr("Step"), tr("At"), tr("After"), tr("Detail")});
    m_timeline->setRootIsDecorated(false);
    splitter->addWidget(m_timeline);
    splitter->setSizes({600, 400});
    layout->addWidget(splitter, 3);

    connect(m_tailView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                const QString id = current.data(EventTailModel::MessageIdRole).toString();
                if (!id.isEmpty())
                    showLifecycle(current.data(EventTailModel::QueueRole).toString(), id);
            });
    connect(m_tailView->selectionModel(), &QItemSelectionModel::selectionChanged, this, &FlowPage::updateHold);
    // Keep the newest row in view unless the user scrolled up to read.
    connect(m_tailFilter, &QAbstractItemModel::rowsInserted, this, [this] {
        if (!m_pause->isChecked() && m_tailView->selectionModel()->selectedRows().isEmpty())
            m_tailView->scrollToBottom();
    });
}

void FlowPage::setPaused(bool paused)
{
    m_userPaused = paused;
    m_pause->setChecked(paused);
    updateHold();
}

bool FlowPage::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_tailView->viewport()) {
        if (event->type() == QEvent::Enter || event->type() == QEvent::HoverEnter) {
            m_hovered = true;
            updateHold();
        } else if (event->type() == QEvent::Leave || event->type() == QEvent::HoverLeave) {
            m_hovered = false;
            updateHold();
        }
    } else if (watched == m_tailView && event->type() == QEvent::KeyPress
               && static_cast<QKeyEvent *>(event)->key() == Qt::Key_Escape && m_tailView->selectionModel()->hasSelection()) {
        m_tailView->clearSelection(); // Esc lets the tail run again
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

// The model is paused while the user paused it or while the list is held; leaving both lets the
// waiting events in at once and scrolls to the newest.
void FlowPage::updateHold()
{
    m_held = m_hovered || m_tailView->selectionModel()->hasSelection();
    const bool wasPaused = m_tail->isPaused();
    m_tail->setPaused(m_userPaused || m_held);
    if (wasPaused && !m_tail->isPaused())
        m_tailView->scrollToBottom();
    showTailState();
}

void FlowPage::showTailState()
{
    const int waiting = m_tail->pendingCount();
    m_pause->setText(m_userPaused ? tr("Resume (%1 waiting)").arg(waiting) : tr("&Pause"));
    if (m_held && !m_userPaused) {
        m_holdLabel->setText(m_tailView->selectionModel()->hasSelection()
                                 ? tr("Paused: a row is selected · %1 new (Esc resumes)").arg(waiting)
                                 : tr("Paused while pointing · %1 new").arg(waiting));
        m_holdLabel->show();
    } else {
        m_holdLabel->hide();
    }
}

void FlowPage::clear()
{
    m_history.clear();
    m_chart->clear();
    m_tail->clear();
}

void FlowPage::showSnapshot(const BrokerSnapshot &snapshot)
{
    m_tail->append(snapshot.recentEvents);
    if (m_tail->isPaused() && !snapshot.recentEvents.isEmpty())
        showTailState();
    if (!m_lifecycleId.isEmpty()) {
        for (const MessageEvent &event : snapshot.recentEvents) {
            if (MessageId::format(event.sequence) == m_lifecycleId) {
                showLifecycle(m_lifecycleQueue, m_lifecycleId); // the selected message moved on
                break;
            }
        }
    }
    recordRates(snapshot);
}

void FlowPage::recordRates(const BrokerSnapshot &snapshot)
{
    if (snapshot.takenAtMs - m_lastHistoryMs < HistoryStepMs)
        return;
    const qint64 now = snapshot.takenAtMs;
    m_lastHistoryMs = now;
    auto add = [&](const QString &key, const QueueRates &rates) {
        History &history = m_history[key];
        history.points.push_back({now, rates.publish1s, rates.consume1s});
        while (!history.points.empty() && history.points.front().timeMs < now - HistoryMs)
            history.points.pop_front();
        if (rates.publish1s > 0 || rates.consume1s > 0)
            history.lastBusyMs = now;
    };
    add(QString(), snapshot.rates);

    // Start tracking the busiest queues of this moment; the snapshot is sorted by name, so the
    // queues already tracked are found by binary search. Cost per second: one pass over the
    // queues plus a few dozen lookups, whatever the number of queues.
    std::vector<const QueueInfo *> busiest;
    for (const QueueInfo &queue : snapshot.queues) {
        if (queue.rates.publish1s > 0 || queue.rates.consume1s > 0)
            busiest.push_back(&queue);
    }
    const auto load = [](const QueueInfo *q) { return q->rates.publish1s + q->rates.consume1s; };
    const size_t top = std::min<size_t>(busiest.size(), BusiestTracked);
    std::partial_sort(busiest.begin(), busiest.begin() + qsizetype(top), busiest.end(),
                      [&](const QueueInfo *a, const QueueInfo *b) { return load(a) > load(b); });
    for (size_t i = 0; i < top; ++i)
        m_history[busiest[i]->name];
    const QString chosen = m_queuePicker->currentData().toString();
    for (auto it = m_history.begin(); it != m_history.end();) {
        if (it.key().isEmpty()) {
            ++it;
            continue;
        }
        const auto found = std::lower_bound(snapshot.queues.begin(), snapshot.queues.end(), it.key(),
                                            [](const QueueInfo &q, const QString &name) { return q.name < name; });
        const bool exists = found != snapshot.queues.end() && found->name == it.key();
        const bool stale = it->lastBusyMs < now - HistoryMs && it.key() != chosen;
        if (!exists || (stale && !it->points.empty())) {
            it = m_history.erase(it); // deleted, or idle for the whole window
            continue;
        }
        add(it.key(), found->rates);
        ++it;
    }
    // Never more than MaxTracked histories: the longest idle go first.
    while (m_history.size() > MaxTracked + 1) {
        auto idlest = m_history.end();
        for (auto it = m_history.begin(); it != m_history.end(); ++it) {
            if (!it.key().isEmpty() && it.key() != chosen && (idlest == m_history.end() || it->lastBusyMs < idlest->lastBusyMs))
                idlest = it;
        }
        m_history.erase(idlest);
    }

    // The picker offers the whole broker and the tracked queues; rebuilt only when they change.
    QStringList names = m_history.keys();
    names.removeAll(QString());
    names.sort();
    if (names != m_pickerNames && !m_queuePicker->view()->isVisible()) {
        m_pickerNames = names;
        const QSignalBlocker blocker(m_queuePicker);
        while (m_queuePicker->count() > 1)
            m_queuePicker->removeItem(1);
        for (const QString &name : std::as_const(names))
            m_queuePicker->addItem(name, name);
        m_queuePicker->setCurrentIndex(qMax(0, m_queuePicker->findData(chosen)));
    }
    const auto shown = m_history.constFind(m_queuePicker->currentData().toString());
    if (shown != m_history.cend() && !shown->points.empty())
        m_chart->addSample(shown->points.back().timeMs, {shown->points.back().publish, shown->points.back().consume});
    else
        m_chart->addSample(now, {0, 0});
}

void FlowPage::redrawChart()
{
    m_chart->clear();
    const auto points = m_history.constFind(m_queuePicker->currentData().toString());
    if (points == m_history.cend())
        return;
    for (const RatePoint &point : points->points)
        m_chart->addSample(point.timeMs, {point.publish, point.consume});
}

void FlowPage::showLifecycle(const QString &queue, const QString &messageId)
{
    m_lifecycleQueue = queue;
    m_lifecycleId = messageId;
    whenFinished(m_client.lifecycle(queue, messageId), this, [this, messageId](Result<QList<MessageEvent>> events) {
        if (messageId != m_lifecycleId)
            return; // another message was selected meanwhile
        m_timeline->clear();
        if (!events)
            return;
        qint64 previous = 0;
        for (const MessageEvent &event : *events) {
            auto *item = new QTreeWidgetItem(m_timeline);
            item->setText(0, QString::fromLatin1(messageEventKindName(event.kind)));
            item->setText(1, formatClock(event.timeMs));
            item->setText(2, previous == 0 ? QString() : QStringLiteral("+") + formatMillis(event.timeMs - previous));
            QString detail = event.queue;
            if (!event.user.isEmpty())
                detail += QStringLiteral(" · ") + event.user;
            if (!event.detail.isEmpty())
                detail += QStringLiteral(" · ") + event.detail;
            item->setText(3, detail);
            previous = event.timeMs;
        }
        for (int column = 0; column < 3; ++column)
            m_timeline->resizeColumnToContents(column);
    });
}

} // namespace Broker::Ui
