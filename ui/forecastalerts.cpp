// SPDX-License-Identifier: GPL-3.0-or-later
#include "forecastalerts.h"

#include "forecast.h"

#include <QSettings>

namespace Broker::Ui {

int ForecastAlerts::warnWithinMinutes()
{
    return qMax(0, QSettings().value(settingsKey(), DefaultWarnWithinMinutes).toInt());
}

void ForecastAlerts::setWarnWithinMinutes(int minutes)
{
    QSettings().setValue(settingsKey(), qMax(0, minutes));
}

void ForecastAlerts::check(const BrokerSnapshot &snapshot)
{
    // Read every check (a few times a second, a cached lookup) so that a change made on the
    // queue detail page applies at once without wiring every page to this object.
    const int minutes = warnWithinMinutes();
    const double window = 60.0 * minutes;
    if (window <= 0) {
        m_warned.clear();
        return;
    }
    // Warned queues are kept in the snapshot's name order and matched by walking both lists
    // together: no hashing of thousands of names four times a second.
    QStringList stillNear;
    qsizetype warnedAt = 0;
    // The queues that crossed into the window at this check; one notification names the soonest
    // and counts the others, so that many queues filling at once do not flood the tray.
    const QueueInfo *soonest = nullptr;
    Forecast soonestForecast;
    int crossed = 0;
    for (const QueueInfo &queue : snapshot.queues) {
        const Forecast ahead = forecast(queue);
        if (ahead.trend != Forecast::Trend::Fills)
            continue;
        while (warnedAt < m_warned.size() && m_warned.at(warnedAt) < queue.name)
            ++warnedAt;
        if (warnedAt < m_warned.size() && m_warned.at(warnedAt) == queue.name) {
            if (ahead.seconds <= 1.5 * window)
                stillNear.append(queue.name);
            continue;
        }
        if (ahead.seconds > window)
            continue;
        stillNear.append(queue.name);
        ++crossed;
        if (!soonest || ahead.seconds < soonestForecast.seconds) {
            soonest = &queue;
            soonestForecast = ahead;
        }
    }
    if (soonest) {
        ErrorRecord record;
        record.severity = Severity::Warning;
        record.component = tr("forecast");
        record.code = QStringLiteral("queue_filling");
        record.message = tr("%1 is %2 (%3 of max %4)")
                             .arg(soonest->name, forecastText(soonestForecast))
                             .arg(soonest->size())
                             .arg(soonest->config.maxSize);
        if (crossed > 1)
            record.message += tr("; %n more queue(s) will be full within %1 min", nullptr, crossed - 1)
                                  .arg(minutes);
        record.count = crossed;
        record.firstMs = record.lastMs = snapshot.takenAtMs;
        Q_EMIT alertRaised(record);
    }
    m_warned = std::move(stillNear);
}

} // namespace Broker::Ui
