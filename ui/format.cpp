// SPDX-License-Identifier: GPL-3.0-or-later
#include "format.h"

#include <QDateTime>
#include <QLocale>

namespace Broker::Ui {

QString formatCount(qint64 value)
{
    return QLocale(QLocale::English).toString(value);
}

QString formatRate(double perSecond)
{
    if (perSecond < 0.05)
        return QStringLiteral("0");
    if (perSecond < 1000)
        return QStringLiteral("%1/s").arg(perSecond, 0, 'f', perSecond < 10 ? 1 : 0);
    if (perSecond < 1'000'000)
        return QStringLiteral("%1k/s").arg(perSecond / 1000, 0, 'f', 1);
    return QStringLiteral("%1M/s").arg(perSecond / 1'000'000, 0, 'f', 2);
}

QString formatDuration(qint64 seconds)
{
    if (seconds < 60)
        return QStringLiteral("%1 s").arg(seconds);
    if (seconds < 3600)
        return QStringLiteral("%1 min %2 s").arg(seconds / 60).arg(seconds % 60);
    if (seconds < 86400)
        return QStringLiteral("%1 h %2 min").arg(seconds / 3600).arg(seconds % 3600 / 60);
    return QStringLiteral("%1 d %2 h").arg(seconds / 86400).arg(seconds % 86400 / 3600);
}

QString formatMillis(qint64 ms)
{
    if (ms < 1000)
        return QStringLiteral("%1 ms").arg(ms);
    if (ms < 60'000)
        return QStringLiteral("%1 s").arg(double(ms) / 1000, 0, 'f', 1);
    return formatDuration(ms / 1000);
}

QString formatTimestamp(qint64 msSinceEpoch)
{
    if (msSinceEpoch <= 0)
        return QStringLiteral("—");
    return QDateTime::fromMSecsSinceEpoch(msSinceEpoch).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

QString formatClock(qint64 msSinceEpoch)
{
    return QDateTime::fromMSecsSinceEpoch(msSinceEpoch).toString(QStringLiteral("HH:mm:ss.zzz"));
}

} // namespace Broker::Ui
