// SPDX-License-Identifier: GPL-3.0-or-later
#include "ratechart.h"

#include "format.h"

#include <QPainter>
#include <QPainterPath>

#include <cmath>

namespace Broker::Ui {

namespace {

// The smallest "round" number (1, 2 or 5 times a power of ten) at or above `value`.
double niceCeiling(double value)
{
    if (value <= 0)
        return 1;
    const double magnitude = std::pow(10.0, std::floor(std::log10(value)));
    for (const double step : {1.0, 2.0, 5.0, 10.0}) {
        if (step * magnitude >= value)
            return step * magnitude;
    }
    return 10 * magnitude;
}

} // namespace

RateChart::RateChart(QWidget *parent) : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    setAttribute(Qt::WA_OpaquePaintEvent);
}

int RateChart::addSeries(const QString &name, const QColor &color)
{
    m_series.append({name, color});
    return int(m_series.size() - 1);
}

QColor RateChart::seriesColor(const QPalette &palette, int index)
{
    const QColor base = palette.color(QPalette::Highlight);
    if (index == 0)
        return base;
    // Turn the hue by the golden angle: neighbours stay far apart however many lines there are.
    // Lightness and saturation stay the highlight's, which the theme chose to read on its Base.
    const int hue = (qMax(0, base.hslHue()) + index * 137) % 360;
    return QColor::fromHsl(hue, qMax(120, base.hslSaturation()), base.lightness());
}

QString RateChart::formatValue(double value) const
{
    return m_unit == Unit::PerSecond ? formatRate(value) : formatCount(qint64(std::llround(value)));
}

void RateChart::addSample(qint64 timeMs, const QList<double> &values)
{
    m_samples.push_back({timeMs, values});
    while (!m_samples.empty() && m_samples.front().timeMs < timeMs - m_windowMs)
        m_samples.pop_front();
    update();
}

void RateChart::clear()
{
    m_samples.clear();
    update();
}

void RateChart::paintEvent(QPaintEvent *)
{
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    const QPalette pal = palette();
    painter.fillRect(rect(), pal.color(QPalette::Base));

    auto colorOf = [&](qsizetype series) {
        const QColor &chosen = m_series[series].color;
        return chosen.isValid() ? chosen : seriesColor(pal, int(series));
    };
    const QFontMetrics metrics = fontMetrics();
    const int lineHeight = metrics.height();
    double peak = 0;
    for (const Sample &sample : m_samples) {
        for (const double value : sample.values)
            peak = std::max(peak, value);
    }
    const double top = niceCeiling(peak * 1.1);
    const QString topLabel = formatValue(top);
    const int left = metrics.horizontalAdvance(topLabel) + 12;
    const QRect plot(left, lineHeight + 10, width() - left - 12, height() - 2 * lineHeight - 20);
    if (plot.width() < 20 || plot.height() < 20)
        return;

    // Title and legend on one line above the plot.
    painter.setPen(pal.color(QPalette::Text));
    int x = plot.left();
    if (!m_title.isEmpty()) {
        QFont bold = font();
        bold.setBold(true);
        painter.setFont(bold);
        painter.drawText(x, lineHeight, m_title);
        x += QFontMetrics(bold).horizontalAdvance(m_title) + 16;
        painter.setFont(font());
    }
    for (qsizetype i = 0; i < m_series.size(); ++i) {
        const double latest = m_samples.empty() ? 0 : m_samples.back().values.value(i);
        const QString label = QStringLiteral("%1 %2").arg(m_series[i].name, formatValue(latest));
        painter.fillRect(QRect(x, lineHeight - 9, 10, 10), colorOf(i));
        painter.drawText(x + 14, lineHeight, label);
        x += metrics.horizontalAdvance(label) + 30;
    }

    // Grid: four horizontal lines with their values, time marks every minute.
    const QColor grid = pal.color(QPalette::Mid);
    painter.setPen(QPen(grid, 1, Qt::DotLine));
    for (int i = 0; i <= 4; ++i) {
        const int y = plot.bottom() - plot.height() * i / 4;
        painter.drawLine(plot.left(), y, plot.right(), y);
        painter.save();
        painter.setPen(pal.color(QPalette::PlaceholderText));
        painter.drawText(QRect(0, y - lineHeight / 2, left - 6, lineHeight), Qt::AlignRight | Qt::AlignVCenter,
                         formatValue(top * i / 4));
        painter.restore();
    }
    // The time axis spans the data there is (at least a minute), up to the whole window.
    const qint64 now = m_samples.empty() ? 0 : m_samples.back().timeMs;
    const qint64 span = m_samples.empty() ? 60'000 : now - m_samples.front().timeMs;
    const qint64 shownMs = qBound<qint64>(60'000, ((span + 59'999) / 60'000) * 60'000, m_windowMs);
    const qint64 stepMs = shownMs <= 60'000 ? 10'000 : shownMs <= 180'000 ? 30'000 : 60'000;
    painter.setPen(pal.color(QPalette::PlaceholderText));
    for (qint64 ago = 0; ago <= shownMs; ago += stepMs) {
        const int xm = plot.right() - int(double(ago) / double(shownMs) * plot.width());
        const QString label = ago == 0 ? tr("now")
            : ago % 60'000 == 0 ? tr("-%1 min").arg(ago / 60'000)
                                : tr("-%1 s").arg(ago / 1000);
        painter.drawText(QRect(xm - 40, plot.bottom() + 4, 80, lineHeight), Qt::AlignHCenter, label);
    }
    painter.setPen(QPen(grid, 1));
    painter.drawRect(plot);

    if (m_samples.size() < 2)
        return;
    for (qsizetype series = 0; series < m_series.size(); ++series) {
        QPainterPath path;
        bool first = true;
        for (const Sample &sample : m_samples) {
            const double xf = plot.right() - double(now - sample.timeMs) / double(shownMs) * plot.width();
            const double yf = plot.bottom() - sample.values.value(series) / top * plot.height();
            if (first)
                path.moveTo(xf, yf);
            else
                path.lineTo(xf, yf);
            first = false;
        }
        painter.setPen(QPen(colorOf(series), 2));
        painter.drawPath(path);
    }
}

} // namespace Broker::Ui
