// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

namespace Broker {

// What /health and the desktop show of a webhook (error.webhook_url): never the URL's
// credentials, path or query.
struct WebhookStatus
{
    QString target;               // scheme://host[:port]
    qint64 queued = 0;
    qint64 delivered = 0;
    qint64 failed = 0;            // given up after the last attempt
    qint64 dropped = 0;           // refused because the queue was full
    QString lastError;            // of the latest failed attempt ("HTTP 500", "timed out after 5000 ms", ...)
    qint64 lastErrorAtMs = 0;
    bool failing = false;         // the latest attempt failed and nothing was delivered since
};

} // namespace Broker
