// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QColor>
#include <QList>
#include <QString>
#include <QWidget>

#include <deque>

namespace Broker::Ui {

// A line chart of rates over the last minutes: one line per series, fed one sample per snapshot
// from a bounded ring (samples older than the window fall off). Drawn with QPainter; a y axis
// with round steps, a time axis in seconds ago, and a legend with each series' latest value.
class RateChart : public QWidget
{
public:
    // How values read on the axis and in the legend: per-second rates or plain counts.
    enum class Unit { PerSecond, Count };

    explicit RateChart(QWidget *parent = nullptr);

    void setUnit(Unit unit) { m_unit = unit; update(); }

    void setWindowSeconds(int seconds) { m_windowMs = qint64(seconds) * 1000; }
    // Adds a line; returns its index for addSample. Without a colour, the line takes one made
    // from the palette's highlight (see seriesColor), so it follows a light or dark theme.
    int addSeries(const QString &name, const QColor &color = {});
    // Distinct colours for lines from the palette: the highlight colour, then hues turned from it.
    static QColor seriesColor(const QPalette &palette, int index);
    void setTitle(const QString &title) { m_title = title; update(); }
    // One value per series, in addSeries order.
    void addSample(qint64 timeMs, const QList<double> &values);
    void clear();
    int sampleCount() const { return int(m_samples.size()); }

    QSize sizeHint() const override { return {480, 200}; }
    QSize minimumSizeHint() const override { return {240, 120}; }

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    struct Series
    {
        QString name;
        QColor color;
    };
    struct Sample
    {
        qint64 timeMs;
        QList<double> values;
    };

    QString formatValue(double value) const;

    Unit m_unit = Unit::PerSecond;
    QString m_title;
    QList<Series> m_series;
    std::deque<Sample> m_samples;
    qint64 m_windowMs = 5 * 60 * 1000;
};

} // namespace Broker::Ui
