// SPDX-License-Identifier: GPL-3.0-or-later
#include "notificationmetrics.h"

#include "prometheustext.h"

namespace Broker::Rest::NotificationMetrics {

void append(QByteArray &out, const WebhookStatus &webhook)
{
    appendSingle(out, "brokerdesk_notification_webhook_queued", "gauge",
              "Notifications waiting to be sent to the notification webhook.", webhook.queued);
    appendSingle(out, "brokerdesk_notification_webhook_delivered_total", "counter", "Notifications the webhook accepted.",
              webhook.delivered);
    appendSingle(out, "brokerdesk_notification_webhook_failed_total", "counter",
              "Notifications given up on after the last attempt.", webhook.failed);
    appendSingle(out, "brokerdesk_notification_webhook_dropped_total", "counter",
              "Notifications refused because the webhook's queue was full.", webhook.dropped);
    appendSingle(out, "brokerdesk_notification_webhook_failing", "gauge",
              "1 while the latest attempt failed and nothing was delivered since.", webhook.failing ? 1 : 0);
}

} // namespace Broker::Rest::NotificationMetrics
