// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/webhookstatus.h"

#include <QByteArray>

namespace Broker::Rest::NotificationMetrics {

// The brokerdesk_notification_webhook_* families of /metrics for the notification webhook
// (error.webhook_url): what waits, what went out, what was given up or refused, and whether it
// is failing now. No labels: there is one webhook, and its URL is never a label.
void append(QByteArray &out, const WebhookStatus &webhook);

} // namespace Broker::Rest::NotificationMetrics
