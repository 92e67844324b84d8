// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "runtime/brokerconnection.h"

#include <QWidget>

class QGridLayout;
class QLabel;
class QSpinBox;
class QTabWidget;
class QTableWidget;

namespace Broker::Ui {

class MessageBrowser;
class ProcessorsPanel;
class QueueOptionsForm;
class RateChart;

// One queue in full, opened from the queues table: its options (editable where they can change),
// lifetime totals, consumer groups of a stream, its processors, a forecast, charts of its depth and rates, and a
// Messages tab that browses its messages by state. Fed by the same snapshots as the other pages;
// it looks its queue up by name (binary search), so a tick costs the same at 10 or 10,000 queues,
// and it keeps a chart history for this one queue only, from the moment it is opened.
class QueueDetailPage : public QWidget
{
    Q_OBJECT
public:
    enum Tab { OverviewTab, MessagesTab };

    explicit QueueDetailPage(BrokerConnection &client, QWidget *parent = nullptr);

    void showStart(const Broker::StartReport &report);
    void showSnapshot(const Broker::BrokerSnapshot &snapshot);
    // Opens `queue`: the form, the totals and the charts start over for it.
    void showQueue(const QString &queue, Tab tab = OverviewTab);
    QString queue() const { return m_queue; }

    QueueOptionsForm *optionsForm() const { return m_options; }
    MessageBrowser *messageBrowser() const { return m_messages; }
    QTabWidget *tabs() const { return m_tabs; }
    ProcessorsPanel *processorsPanel() const { return m_processors; }
    // Texts shown, for tests: "published" -> "1,234", "forecast" -> "full in 3 min 5 s".
    QString shownValue(const QString &name) const;
    int chartSamples() const;

Q_SIGNALS:
    // The user wants the queues table back.
    void backRequested();

private:
    void showInfo(const Broker::QueueInfo &queue, qint64 takenAtMs);
    void showGroups(const Broker::QueueInfo &queue);
    void saveOptions(const QJsonObject &options);
    QLabel *addValue(QGridLayout *grid, const QString &key, const QString &title, const QString &tip);

    BrokerConnection &m_client;
    StartReport m_start;
    QString m_queue;
    bool m_present = false;
    QueueCounters m_lastCounters;
    qint64 m_lastSampleMs = 0;
    QLabel *m_title;
    QLabel *m_summary;
    QTabWidget *m_tabs;
    QueueOptionsForm *m_options;
    QHash<QString, QLabel *> m_values;
    QSpinBox *m_warnWithin;
    QWidget *m_groupsBox;
    QTableWidget *m_groups;
    ProcessorsPanel *m_processors;
    RateChart *m_levels;
    RateChart *m_rates;
    MessageBrowser *m_messages;
};

} // namespace Broker::Ui
