// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "runtime/brokerconnection.h"

#include <QHash>
#include <QWidget>

#include <deque>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;
class QTreeWidget;

namespace Broker::Ui {

class EventTailModel;
class RateChart;

// Message flow: the publish and consume rate of one queue (or all) over the last minutes, a live
// tail of message events with pause and filter, and the lifecycle of the selected message with
// the time between its steps.
class FlowPage : public QWidget
{
    Q_OBJECT
public:
    explicit FlowPage(BrokerConnection &client, QWidget *parent = nullptr);

    void showSnapshot(const Broker::BrokerSnapshot &snapshot);
    void clear();

    EventTailModel *tail() const { return m_tail; }
    QTableView *tailView() const { return m_tailView; }
    QTreeWidget *timeline() const { return m_timeline; }
    void setPaused(bool paused);
    // Whether the tail holds still because the pointer is over it or a row is selected: new
    // events wait (counted in holdLabel()) so that nothing moves under a click.
    bool isHeld() const { return m_held; }
    QLabel *holdLabel() const { return m_holdLabel; }
    void showLifecycle(const QString &queue, const QString &messageId);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    struct RatePoint
    {
        qint64 timeMs;
        double publish;
        double consume;
    };
    void recordRates(const BrokerSnapshot &snapshot);
    void redrawChart();
    void updateHold();
    void showTailState();

    BrokerConnection &m_client;
    QComboBox *m_queuePicker;
    RateChart *m_chart;
    EventTailModel *m_tail;
    QSortFilterProxyModel *m_tailFilter;
    QTableView *m_tailView;
    QLineEdit *m_filter;
    QPushButton *m_pause;
    QLabel *m_holdLabel;
    bool m_userPaused = false;
    bool m_hovered = false;
    bool m_held = false;
    QTreeWidget *m_timeline;
    struct History
    {
        std::deque<RatePoint> points;
        qint64 lastBusyMs = 0;
    };
    // Rate history, one point a second, of the whole broker ("") and of a bounded set of queues:
    // the busiest ones and the one chosen. 10,000 queues do not mean 10,000 histories; a queue
    // picked for the first time charts from that moment on.
    QHash<QString, History> m_history;
    QStringList m_pickerNames;
    qint64 m_lastHistoryMs = 0;
    QString m_lifecycleQueue; // the queue it was selected in: the API shows a message to those who may peek there
    QString m_lifecycleId;
};

} // namespace Broker::Ui
