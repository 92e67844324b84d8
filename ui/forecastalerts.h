// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/brokersnapshot.h"
#include "core/errorrecord.h"

#include <QObject>
#include <QStringList>

namespace Broker::Ui {

// Watches every snapshot for queues forecast to reach max_size soon and raises one notification
// per queue when it crosses into the warning window (QSettings "forecast/warnWithinMinutes",
// default 10; 0 turns warnings off). A queue is warned about again only after its forecast left
// the window by half as much again, so a rate hovering at the edge does not warn every tick.
class ForecastAlerts : public QObject
{
    Q_OBJECT
public:
    static constexpr int DefaultWarnWithinMinutes = 10;
    static QString settingsKey() { return QStringLiteral("forecast/warnWithinMinutes"); }
    static int warnWithinMinutes();
    static void setWarnWithinMinutes(int minutes);

    using QObject::QObject;

    void check(const Broker::BrokerSnapshot &snapshot);
    // The queues warned about and still in (or near) the window, in name order.
    const QStringList &warned() const { return m_warned; }

Q_SIGNALS:
    // A warning in the shape of the app's other notifications (tray and status bar).
    void alertRaised(const Broker::ErrorRecord &record);

private:
    QStringList m_warned;
};

} // namespace Broker::Ui
