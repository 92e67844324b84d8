// SPDX-License-Identifier: GPL-3.0-or-later
#include "queuedetailpage.h"

#include "forecast.h"
#include "forecastalerts.h"
#include "format.h"
#include "messagebrowser.h"
#include "processorspanel.h"
#include "queueoptionsform.h"
#include "ratechart.h"

#include "core/queueconfigchange.h"
#include "runtime/continuation.h"

#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace Broker::Ui {

namespace {

constexpr int ChartMinimumHeight = 145;

const QueueInfo *findQueue(const QList<QueueInfo> &queues, const QString &name)
{
    const auto found = std::lower_bound(queues.begin(), queues.end(), name,
                                        [](const QueueInfo &info, const QString &key) { return info.name < key; });
    return found != queues.end() && found->name == name ? &*found : nullptr;
}

} // namespace

QueueDetailPage::QueueDetailPage(BrokerConnection &client, QWidget *parent) : QWidget(parent), m_client(client)
{
    setObjectName(QStringLiteral("queueDetail"));
    auto *layout = new QVBoxLayout(this);
    auto *header = new QHBoxLayout;
    auto *back = new QPushButton(tr("◀ &Queues"));
    back->setObjectName(QStringLiteral("back"));
    back->setToolTip(tr("Back to the queues table (Esc)"));
    back->setShortcut(Qt::Key_Escape);
    connect(back, &QPushButton::clicked, this, &QueueDetailPage::backRequested);
    m_title = new QLabel;
    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.3);
    m_title->setFont(titleFont);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary = new QLabel;
    m_summary->setObjectName(QStringLiteral("summary"));
    header->addWidget(back);
    header->addWidget(m_title);
    header->addWidget(m_summary, 1);
    layout->addLayout(header);

    m_tabs = new QTabWidget;
    layout->addWidget(m_tabs, 1);

    // Overview: options and totals side by side, groups, then the charts.
    auto *overview = new QWidget;
    auto *overviewLayout = new QVBoxLayout(overview);
    auto *top = new QHBoxLayout;
    m_options = new QueueOptionsForm;
    connect(m_options, &QueueOptionsForm::saveRequested, this, &QueueDetailPage::saveOptions);
    top->addWidget(m_options, 1);

    auto *totals = new QGroupBox(tr("Totals"));
    auto *grid = new QGridLayout(totals);
    addValue(grid, QStringLiteral("ready"), tr("Ready"), tr("Deliverable now"));
    addValue(grid, QStringLiteral("in_flight"), tr("In flight"), tr("Leased to a consumer, not yet acknowledged"));
    addValue(grid, QStringLiteral("delayed"), tr("Delayed"), tr("Published or nacked with a delay, not yet due"));
    addValue(grid, QStringLiteral("size"), tr("Size / max"), tr("Ready, delayed and in flight, against max_size"));
    addValue(grid, QStringLiteral("partitions"), tr("Partitions"),
             tr("Sub-queues the queue is stored as, and the messages ready in each"));
    addValue(grid, QStringLiteral("published"), tr("Published"), tr("Messages accepted since the queue was created"));
    addValue(grid, QStringLiteral("consumed"), tr("Consumed"), tr("Deliveries to consumers"));
    addValue(grid, QStringLiteral("acked"), tr("Acked"), tr("Explicit acks plus deliveries with acknowledge=true"));
    addValue(grid, QStringLiteral("nacked"), tr("Nacked"), tr("Returned by consumers"));
    addValue(grid, QStringLiteral("expired"), tr("Expired"), tr("TTL ran out before delivery"));
    addValue(grid, QStringLiteral("dead_lettered"), tr("Dead-lettered"), tr("Moved to the dead-letter queue"));
    addValue(grid, QStringLiteral("dropped"), tr("Dropped"), tr("Given up on with no dead-letter queue to take them"));
    addValue(grid, QStringLiteral("redriven"), tr("Redriven"), tr("Moved back here from a dead-letter queue"));
    addValue(grid, QStringLiteral("forecast"), tr("Forecast"),
             tr("From the one-minute publish and consume rates; blank when they balance"));
    m_warnWithin = new QSpinBox;
    m_warnWithin->setObjectName(QStringLiteral("warnWithin"));
    m_warnWithin->setRange(0, 24 * 60);
    m_warnWithin->setSuffix(tr(" min"));
    m_warnWithin->setSpecialValueText(tr("never"));
    m_warnWithin->setValue(ForecastAlerts::warnWithinMinutes());
    m_warnWithin->setToolTip(tr("Any queue forecast to fill within this time raises a tray notification"));
    connect(m_warnWithin, &QSpinBox::valueChanged, this, [](int minutes) { ForecastAlerts::setWarnWithinMinutes(minutes); });
    const int row = grid->rowCount();
    grid->addWidget(new QLabel(tr("Warn when full within:")), row, 0);
    grid->addWidget(m_warnWithin, row, 1);
    top->addWidget(totals, 1);
    overviewLayout->addLayout(top);

    m_groupsBox = new QGroupBox(tr("Consumer groups"));
    auto *groupsLayout = new QVBoxLayout(m_groupsBox);
    m_groups = new QTableWidget(0, 4);
    m_groups->setObjectName(QStringLiteral("groups"));
    m_groups->setHorizontalHeaderLabels({tr("Group"), tr("Consumers"), tr("Pending"), tr("Lag")});
    m_groups->horizontalHeaderItem(2)->setToolTip(tr("Delivered to a consumer of the group, not yet acknowledged"));
    m_groups->horizontalHeaderItem(3)->setToolTip(tr("Entries the group has not been given yet"));
    m_groups->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_groups->verticalHeader()->hide();
    m_groups->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    m_groups->setMaximumHeight(140);
    groupsLayout->addWidget(m_groups);
    overviewLayout->addWidget(m_groupsBox);
    m_processors = new ProcessorsPanel;
    overviewLayout->addWidget(m_processors);

    m_levels = new RateChart;
    m_levels->setObjectName(QStringLiteral("levelsChart"));
    m_levels->setUnit(RateChart::Unit::Count);
    m_levels->setTitle(tr("Messages"));
    m_levels->addSeries(tr("ready"));
    m_levels->addSeries(tr("in flight"));
    m_levels->addSeries(tr("delayed"));
    m_rates = new RateChart;
    m_rates->setObjectName(QStringLiteral("ratesChart"));
    m_rates->setTitle(tr("Per second"));
    for (const QString &name : {tr("publish"), tr("consume"), tr("ack"), tr("nack"), tr("dead-letter")})
        m_rates->addSeries(name);
    // The charts keep a readable height; the page scrolls rather than squeeze the figures above
    // them when consumer groups and processors take room too.
    for (RateChart *chart : {m_levels, m_rates}) {
        chart->setMinimumHeight(ChartMinimumHeight);
        overviewLayout->addWidget(chart, 1);
    }

    auto *scroll = new QScrollArea;
    scroll->setWidget(overview);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    m_tabs->addTab(scroll, tr("&Overview"));

    m_messages = new MessageBrowser(client);
    m_tabs->addTab(m_messages, tr("&Messages"));
}

QLabel *QueueDetailPage::addValue(QGridLayout *grid, const QString &key, const QString &title, const QString &tip)
{
    const int row = grid->rowCount();
    auto *name = new QLabel(title + QLatin1Char(':'));
    name->setToolTip(tip);
    auto *value = new QLabel(QStringLiteral("—"));
    value->setObjectName(key);
    value->setToolTip(tip);
    value->setTextInteractionFlags(Qt::TextSelectableByMouse);
    grid->addWidget(name, row, 0);
    grid->addWidget(value, row, 1);
    m_values.insert(key, value);
    return value;
}

void QueueDetailPage::showStart(const StartReport &report)
{
    m_start = report;
    m_messages->showStart(report);
}

void QueueDetailPage::showQueue(const QString &queue, Tab tab)
{
    if (queue != m_queue) {
        m_queue = queue;
        m_present = false;
        m_levels->clear();
        m_rates->clear();
        m_lastSampleMs = 0;
        m_title->setText(queue);
        m_title->setToolTip(queue);
        m_processors->showProcessors(queue, {}); // until the next snapshot: never another queue's
        m_messages->showQueue(queue);
    }
    m_tabs->setCurrentIndex(tab);
}

void QueueDetailPage::showSnapshot(const BrokerSnapshot &snapshot)
{
    if (m_queue.isEmpty())
        return;
    // Before the queue is looked up: a processor outlives a deleted queue, stopped, and says so.
    m_processors->showProcessors(m_queue, snapshot.processors);
    const QueueInfo *queue = findQueue(snapshot.queues, m_queue);
    if (!queue) {
        if (m_present || m_summary->text().isEmpty())
            m_summary->setText(tr("This queue does not exist (any more)."));
        m_present = false;
        m_options->setSaveEnabled(false, tr("The queue is gone"));
        return;
    }
    if (!m_present)
        m_options->setSaveEnabled(true);
    m_present = true;
    showInfo(*queue, snapshot.takenAtMs);
    m_messages->showQueueInfo(*queue);
    m_messages->showQueues(snapshot.queues);
}

namespace {
QString partitionsText(const QueueInfo &queue)
{
    if (queue.partitions.isEmpty())
        return QueueDetailPage::tr("none (one queue)");
    QStringList ready;
    for (const PartitionInfo &partition : queue.partitions)
        ready.append(formatCount(partition.depth));
    return QueueDetailPage::tr("%1 · ready %2").arg(queue.partitions.size()).arg(ready.join(QStringLiteral(" · ")));
}
} // namespace

void QueueDetailPage::showInfo(const QueueInfo &queue, qint64 takenAtMs)
{
    m_options->showConfig(queue.name, queue.config);
    const Forecast ahead = forecast(queue);
    m_summary->setText(tr("%1 queue · created %2%3")
                           .arg(queue.config.type, formatTimestamp(qint64(queue.created * 1000)),
                                ahead.trend == Forecast::Trend::None ? QString()
                                                                     : QStringLiteral(" · ") + forecastText(ahead)));
    const QueueCounters &c = queue.counters;
    const std::pair<const char *, QString> values[] = {
        {"ready", formatCount(queue.depth)},
        {"in_flight", formatCount(queue.inFlight)},
        {"delayed", formatCount(queue.delayed)},
        {"size", queue.config.partitions > 1
                     ? tr("%1 / %2 per partition").arg(formatCount(queue.size()), formatCount(queue.config.maxSize))
                     : tr("%1 / %2").arg(formatCount(queue.size()), formatCount(queue.config.maxSize))},
        {"partitions", partitionsText(queue)},
        {"published", formatCount(c.published)},
        {"consumed", formatCount(c.delivered)},
        {"acked", formatCount(c.acked)},
        {"nacked", formatCount(c.nacked)},
        {"expired", formatCount(c.expired)},
        {"dead_lettered", formatCount(c.deadLettered)},
        {"dropped", formatCount(c.dropped)},
        {"redriven", formatCount(c.redriven)},
        {"forecast", ahead.trend == Forecast::Trend::None ? tr("steady") : forecastText(ahead)},
    };
    for (const auto &[key, text] : values)
        m_values.value(QLatin1String(key))->setText(text); // QLabel skips a text it already shows
    showGroups(queue);

    // Ack, nack and dead-letter rates from the counters' growth since the previous snapshot.
    const double seconds = m_lastSampleMs > 0 ? double(takenAtMs - m_lastSampleMs) / 1000.0 : 0;
    auto rate = [seconds](qint64 now, qint64 before) { return seconds > 0 ? qMax(0.0, double(now - before) / seconds) : 0.0; };
    if (m_lastSampleMs == 0 || takenAtMs > m_lastSampleMs) {
        m_levels->addSample(takenAtMs, {double(queue.depth), double(queue.inFlight), double(queue.delayed)});
        m_rates->addSample(takenAtMs, {queue.rates.publish1s, queue.rates.consume1s,
                                       rate(c.acked, m_lastCounters.acked), rate(c.nacked, m_lastCounters.nacked),
                                       rate(c.deadLettered, m_lastCounters.deadLettered)});
        m_lastCounters = c;
        m_lastSampleMs = takenAtMs;
    }
}

void QueueDetailPage::showGroups(const QueueInfo &queue)
{
    const bool stream = !queue.groups.isEmpty() || queue.config.type == QLatin1StringView("stream");
    m_groupsBox->setVisible(stream);
    if (!stream)
        return;
    m_groups->setRowCount(int(queue.groups.size()));
    for (int row = 0; row < queue.groups.size(); ++row) {
        const ConsumerGroupInfo &group = queue.groups.at(row);
        const QString cells[] = {group.name, group.consumers.join(QStringLiteral(", ")), formatCount(group.pending),
                                 formatCount(group.lag)};
        for (int column = 0; column < 4; ++column) {
            QTableWidgetItem *item = m_groups->item(row, column);
            if (!item) {
                item = new QTableWidgetItem;
                if (column >= 2)
                    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
                m_groups->setItem(row, column, item);
            }
            if (item->text() != cells[column])
                item->setText(cells[column]);
        }
    }
}

void QueueDetailPage::saveOptions(const QJsonObject &options)
{
    // Read as PATCH /queues/{q} reads its body: the same rules and messages.
    const Result<QueueConfigChange> change = QueueConfigChange::fromOptions(m_queue, options);
    if (!change)
        return m_options->showSaveResult(change.error().message);
    const QString queue = m_queue;
    whenFinished(m_client.updateQueue(queue, *change), this, [this, queue](const Result<QueueInfo> &updated) {
        if (queue != m_queue)
            return; // another queue is shown by now
        if (!updated)
            return m_options->showSaveResult(updated.error().message);
        m_options->showSaveResult({});
        m_options->showConfig(queue, updated->config);
    });
}

QString QueueDetailPage::shownValue(const QString &name) const
{
    const QLabel *label = m_values.value(name);
    return label ? label->text() : QString();
}

int QueueDetailPage::chartSamples() const
{
    return m_levels->sampleCount();
}

} // namespace Broker::Ui
