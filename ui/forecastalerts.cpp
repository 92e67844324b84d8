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
    const double window = 60.0 * warnWithinMinutes();
    if (window <= 0) {
        m_warned.clear();
        return;
    }
    QSet<QString> stillNear;
    for (const QueueInfo &queue : snapshot.queues) {
        const Forecast ahead = forecast(queue);
        if (ahead.trend != Forecast::Trend::Fills)
            continue;
        if (m_warned.contains(queue.name)) {
            if (ahead.seconds <= 1.5 * window)
                stillNear.insert(queue.name);
            continue;
        }
        if (ahead.seconds > window)
            continue;
        stillNear.insert(queue.name);
        ErrorRecord record;
        record.severity = Severity::Warning;
        record.component = tr("forecast");
        record.code = QStringLiteral("queue_filling");
        record.message = tr("%1 is %2 (%3 of max %4)")
                             .arg(queue.name, forecastText(ahead))
                             .arg(queue.size())
                             .arg(queue.config.maxSize);
        record.firstMs = record.lastMs = snapshot.takenAtMs;
        Q_EMIT alertRaised(record);
    }
    m_warned = std::move(stillNear);
}

} // namespace Broker::Ui
