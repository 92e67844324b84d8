// SPDX-License-Identifier: GPL-3.0-or-later
#include "spoolstatus.h"

#include "prometheustext.h"

namespace Broker::Rest::SpoolStatus {

QJsonObject toJson(const StoreStatus &store)
{
    QJsonObject spool;
    spool.insert(QStringLiteral("messages"), store.spooledMessages);
    spool.insert(QStringLiteral("bytes"), store.spooledBytes);
    spool.insert(QStringLiteral("max_messages"), store.spoolMaxMessages);
    spool.insert(QStringLiteral("max_bytes"), store.spoolMaxBytes);
    spool.insert(QStringLiteral("queues_recreated"), store.queuesRecreated);
    spool.insert(QStringLiteral("discarded_with_deleted_queues"), store.spoolDiscarded);
    spool.insert(QStringLiteral("status"), !store.spoolBlocked.isEmpty() ? QStringLiteral("blocked")
                                           : store.spooledMessages > 0  ? QStringLiteral("holding")
                                                                        : QStringLiteral("empty"));
    if (!store.spoolBlocked.isEmpty())
        spool.insert(QStringLiteral("blocked"), store.spoolBlocked);
    return spool;
}

void appendMetrics(QByteArray &out, const StoreStatus &store)
{
    appendSingle(out, "brokerdesk_storage_spooled_bytes", "gauge", "Stored size of the publishes kept in the local spool.",
           store.spooledBytes);
    appendSingle(out, "brokerdesk_storage_spool_max_messages", "gauge",
           "Spooled publishes beyond which publishes are refused (503); 0: no bound.", store.spoolMaxMessages);
    appendSingle(out, "brokerdesk_storage_spool_max_bytes", "gauge",
           "Spooled bytes beyond which publishes are refused (503); 0: no bound.", store.spoolMaxBytes);
    appendSingle(out, "brokerdesk_storage_queues_recreated_total", "counter",
           "Queues missing in the backend when the spool drained (it lost its data), created again.",
           store.queuesRecreated);
    appendSingle(out, "brokerdesk_storage_spool_discarded_total", "counter",
           "Spooled publishes of queues deleted on purpose meanwhile, removed with their queue.", store.spoolDiscarded);
    appendSingle(out, "brokerdesk_storage_spool_blocked", "gauge",
           "1 while the spool cannot deliver its oldest batch (see /errors); it keeps the messages.",
           store.spoolBlocked.isEmpty() ? 0 : 1);
}

} // namespace Broker::Rest::SpoolStatus
