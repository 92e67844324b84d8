// SPDX-License-Identifier: GPL-3.0-or-later
#include "brokerconfig.h"

namespace Broker {

EngineOptions BrokerConfig::engineOptions() const
{
    EngineOptions options;
    options.queueDefaults.maxSize = queues.maxQueueSize;
    options.queueDefaults.ttlSeconds = queues.messageTtlSeconds;
    options.queueDefaults.visibilityTimeoutSeconds = queues.visibilityTimeoutSeconds;
    options.queueDefaults.maxDeliveries = queues.maxDeliveries;
    options.maxMessageBytes = api.limits.maxMessageBytes;
    options.maxBatch = api.limits.maxBatch;
    options.maxWaitMs = qint64(api.limits.maxWaitSeconds) * 1000;
    options.eventLogPerQueue = queues.eventLogSize;
    return options;
}

} // namespace Broker
