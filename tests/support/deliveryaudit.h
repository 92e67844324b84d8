// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QHash>
#include <QSet>

namespace Broker::Testing {

// What a crash test counts at the end: publishes the broker acknowledged that were never
// delivered (lost), and messages delivered more than once (duplicated).
struct DeliveryAudit
{
    qint64 lost = 0;
    qint64 duplicated = 0;

    static DeliveryAudit of(const QSet<qint64> &acknowledged, const QHash<qint64, int> &deliveries)
    {
        DeliveryAudit audit;
        for (const qint64 n : acknowledged)
            audit.lost += deliveries.contains(n) ? 0 : 1;
        for (auto it = deliveries.cbegin(); it != deliveries.cend(); ++it)
            audit.duplicated += it.value() > 1 ? 1 : 0;
        return audit;
    }
};

} // namespace Broker::Testing
