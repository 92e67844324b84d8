// SPDX-License-Identifier: GPL-3.0-or-later
#include "message.h"

#include "messageid.h"

namespace Broker {

QString PublishResult::messageId(qsizetype index) const
{
    return index >= 0 && index < messageSequences.size() ? MessageId::format(messageSequences.at(index)) : QString();
}

QList<QString> PublishResult::messageIds() const
{
    QList<QString> ids;
    ids.reserve(messageSequences.size());
    for (const quint64 sequence : messageSequences)
        ids.append(MessageId::format(sequence));
    return ids;
}

} // namespace Broker
