// SPDX-License-Identifier: GPL-3.0-or-later
#include "storedmessage.h"

#include <cstring>

namespace Broker {

void StoredMessage::setData(QByteArrayView bytes)
{
    payloadSize = quint32(bytes.size());
    payload = std::make_unique_for_overwrite<char[]>(std::size_t(bytes.size()));
    if (!bytes.isEmpty())
        std::memcpy(payload.get(), bytes.data(), std::size_t(bytes.size()));
}

MessageExtras &StoredMessage::ensureExtras()
{
    if (!extras)
        extras = std::make_unique<MessageExtras>();
    return *extras;
}

StoredMessage StoredMessage::clone() const
{
    StoredMessage copy;
    copy.sequence = sequence;
    copy.timestampUs = timestampUs;
    copy.notBeforeMs = notBeforeMs;
    copy.priority = priority;
    copy.deliveryCount = deliveryCount;
    copy.publisher = publisher;
    copy.setData(data());
    if (extras)
        copy.extras = std::make_unique<MessageExtras>(*extras);
    return copy;
}

qint64 StoredMessage::ttlStartMs() const
{
    if (extras && extras->ttlStartMs != 0)
        return extras->ttlStartMs;
    return timestampUs / 1000;
}

} // namespace Broker
