// SPDX-License-Identifier: GPL-3.0-or-later
#include "overviewpage.h"

#include "palette.h"

#include "clusternodestable.h"
#include "format.h"
#include "ratechart.h"

#include <QApplication>
#include <QClipboard>
#include <QFrame>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace Broker::Ui {

namespace {

QString statusHtml(const QString &text, Palette::Role role)
{
    return QStringLiteral("<span style='color:%1'>●</span> %2").arg(Palette::hex(role), text);
}

} // namespace

OverviewPage::OverviewPage(QWidget *parent) : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);

    auto *figuresFrame = new QFrame;
    figuresFrame->setFrameShape(QFrame::StyledPanel);
    m_figures = new QGridLayout(figuresFrame);
    m_figures->setHorizontalSpacing(32);
    m_status = addFigure(tr("Status"), 0, 0);
    m_uptime = addFigure(tr("Uptime"), 0, 1);
    m_storage = addFigure(tr("Storage"), 0, 2);
    m_queues = addFigure(tr("Queues"), 2, 0);
    m_messages = addFigure(tr("Messages queued"), 2, 1);
    m_processed = addFigure(tr("Messages processed"), 2, 2);
    m_backendTitle = new QLabel(tr("Redis connection"));
    m_backendTitle->setForegroundRole(QPalette::PlaceholderText);
    m_backendState = new QLabel;
    m_backendState->setObjectName(QStringLiteral("backendState"));
    m_backendState->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_backendState->setWordWrap(true);
    m_figures->addWidget(m_backendTitle, 4, 0, 1, 3);
    m_figures->addWidget(m_backendState, 5, 0, 1, 3);
    m_backendTitle->hide();
    m_backendState->hide();
    m_webhookState = new QLabel;
    m_webhookState->setObjectName(QStringLiteral("webhookState"));
    m_webhookState->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_webhookState->setWordWrap(true);
    m_figures->addWidget(m_webhookState, 6, 0, 1, 3);
    m_webhookState->hide();
    layout->addWidget(figuresFrame);
    m_clusterNodes = new ClusterNodesTable;
    m_clusterNodes->setMaximumHeight(m_clusterNodes->fontMetrics().height() * 10);
    m_clusterNodes->hide();
    layout->addWidget(m_clusterNodes);

    auto *endpointRow = new QHBoxLayout;
    endpointRow->addWidget(new QLabel(tr("REST endpoint:")));
    m_endpoint = new QLineEdit;
    m_endpoint->setReadOnly(true);
    m_endpoint->setObjectName(QStringLiteral("endpoint"));
    endpointRow->addWidget(m_endpoint, 1);
    auto *copy = new QPushButton(tr("Copy"));
    copy->setToolTip(tr("Copy the REST endpoint URL to the clipboard"));
    connect(copy, &QPushButton::clicked, this, [this] { QApplication::clipboard()->setText(m_endpoint->text()); });
    endpointRow->addWidget(copy);
    layout->addLayout(endpointRow);

    m_chart = new RateChart;
    m_chart->setTitle(tr("Messages per second"));
    m_chart->addSeries(tr("publish"), Palette::color(Palette::PublishSeries));
    m_chart->addSeries(tr("consume"), Palette::color(Palette::ConsumeSeries));
    layout->addWidget(m_chart, 1);
    showLink(BrokerConnection::Link::Offline, tr("stopped"));
}

QLabel *OverviewPage::addFigure(const QString &caption, int row, int column)
{
    auto *title = new QLabel(caption);
    title->setForegroundRole(QPalette::PlaceholderText);
    auto *value = new QLabel(QStringLiteral("—"));
    QFont big = value->font();
    big.setPointSizeF(big.pointSizeF() * 1.5);
    value->setFont(big);
    value->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_figures->addWidget(title, row, column);
    m_figures->addWidget(value, row + 1, column);
    return value;
}

QString OverviewPage::storageText(const StartReport &report)
{
    // The journal belongs to the memory store; on Redis, durability is the server's (AOF).
    if (report.storage == QLatin1StringView("redis")) {
        const BrokerConfig::Redis &redis = report.config.storage.redis;
        const QString where = QStringLiteral("redis %1:%2").arg(redis.host).arg(redis.port);
        return redis.database == 0 ? where : tr("%1, database %2").arg(where).arg(redis.database);
    }
    if (report.durability.isEmpty())
        return report.storage; // a remote broker: its API does not tell its journal's settings
    const QString durability = report.durability == QLatin1StringView("none")
        ? tr("volatile")
        : tr("journal, fsync %1").arg(report.durability);
    return QStringLiteral("%1 (%2)").arg(report.storage, durability);
}

void OverviewPage::showStart(const StartReport &report)
{
    m_endpoint->setText(report.ok ? report.apiUrl : QString());
    if (report.ok)
        m_storage->setText(storageText(report));
}

void OverviewPage::showLink(BrokerConnection::Link link, const QString &text)
{
    using Link = BrokerConnection::Link;
    switch (link) {
    case Link::Online: return; // the next snapshot tells the health
    case Link::Connecting:
    case Link::Offline: m_status->setText(statusHtml(text, Palette::Muted)); break;
    case Link::Reconnecting: m_status->setText(statusHtml(text, Palette::Warning)); return; // the chart's history stays
    case Link::Refused: m_status->setText(statusHtml(text, Palette::Bad)); break;
    }
    m_chart->clear();
}

void OverviewPage::showSnapshot(const BrokerSnapshot &snapshot)
{
    switch (snapshot.health) {
    case HealthStatus::Healthy: m_status->setText(statusHtml(tr("healthy"), Palette::Good)); break;
    case HealthStatus::Degraded: m_status->setText(statusHtml(tr("degraded"), Palette::Warning)); break;
    case HealthStatus::Unhealthy: m_status->setText(statusHtml(tr("unhealthy"), Palette::Bad)); break;
    }
    m_uptime->setText(formatDuration(snapshot.uptimeSeconds));
    m_queues->setText(formatCount(snapshot.queues.size()));
    m_messages->setText(formatCount(snapshot.messagesTotal));
    m_processed->setText(formatCount(snapshot.messagesProcessed));
    m_chart->addSample(snapshot.takenAtMs, {snapshot.rates.publish1s, snapshot.rates.consume1s});
    showStoreStatus(snapshot.storeStatus, snapshot.takenAtMs);
    showWebhook(snapshot.notificationWebhook);
}

void OverviewPage::showWebhook(const std::optional<WebhookStatus> &webhook)
{
    // Said only while it fails: a working webhook needs no room on the page.
    const bool failing = webhook && webhook->failing;
    m_webhookState->setVisible(failing);
    if (!failing)
        return;
    m_webhookState->setText(
        statusHtml(tr("Notification webhook to %1 is failing: %2 (%3 given up, %4 dropped)")
                       .arg(webhook->target.toHtmlEscaped(), webhook->lastError.toHtmlEscaped())
                       .arg(webhook->failed)
                       .arg(webhook->dropped),
                   Palette::Warning));
}

void OverviewPage::showStoreStatus(const StoreStatus &status, qint64 nowMs)
{
    // Shown for backends with a breaker (Redis) and for any store that refuses changes.
    const bool shown = !status.breaker.isEmpty() || !status.writable;
    m_clusterNodes->setVisible(status.cluster);
    if (status.cluster)
        m_clusterNodes->showNodes(status.nodes);
    m_backendTitle->setVisible(shown);
    m_backendState->setVisible(shown);
    if (!shown)
        return;
    m_backendTitle->setText(status.breaker.isEmpty() ? tr("Storage")
                            : status.cluster         ? tr("Redis Cluster")
                                                     : tr("Redis connection"));
    QStringList parts;
    if (!status.writable)
        parts.append(statusHtml(tr("read-only, changes refused: %1").arg(status.readOnlyReason.toHtmlEscaped()), Palette::Bad));
    if (!status.breaker.isEmpty())
        parts += breakerParts(status, nowMs);
    m_backendState->setText(parts.join(QStringLiteral(" · ")));
}

QStringList OverviewPage::breakerParts(const StoreStatus &status, qint64 nowMs) const
{
    QString breaker;
    if (status.breaker == QLatin1StringView("closed"))
        breaker = statusHtml(tr("circuit breaker closed"), Palette::Good);
    else if (status.breaker == QLatin1StringView("open"))
        breaker = statusHtml(tr("circuit breaker open, next try in %1")
                                 .arg(formatDuration(std::max<qint64>(0, status.breakerRetryAtMs - nowMs) / 1000)),
                             Palette::Bad);
    else
        breaker = statusHtml(tr("circuit breaker half-open (probing)"), Palette::Warning);
    QStringList parts{breaker, tr("%1 of %2 connections up").arg(status.connectionsReady).arg(status.connections)};
    if (status.cluster && !status.allSlotsServed)
        parts.append(statusHtml(tr("some slots have no primary in reach"), Palette::Warning));
    if (!status.wakeupNode.isEmpty())
        parts.append(tr("wake-ups via %1").arg(status.wakeupNode.toHtmlEscaped()));
    else
        parts.append(statusHtml(tr("not subscribed to other brokers' wake-ups%1")
                                    .arg(status.wakeupError.isEmpty() ? QString()
                                                                      : QStringLiteral(": ") + status.wakeupError.toHtmlEscaped()),
                                Palette::Warning));
    if (status.spooledMessages > 0)
        parts.append(tr("%1 publishes spooled until Redis answers").arg(formatCount(status.spooledMessages)));
    if (status.breakerOpened > 0)
        parts.append(tr("opened %n time(s)", nullptr, int(status.breakerOpened)));
    if (status.breaker != QLatin1StringView("closed") && !status.lastError.isEmpty())
        parts.append(status.lastError.toHtmlEscaped());
    return parts;
}

} // namespace Broker::Ui
