// SPDX-License-Identifier: GPL-3.0-or-later
// MessageBroker's administration of queues and their messages: changing a queue's options and
// browsing its messages by state. Apart from messagebroker.cpp so that each file keeps one concern.
#include "messagebroker.h"

#include "core/validation.h"

namespace Broker {

void MessageBroker::updateQueue(const QString &name, const QueueConfigChange &change, Completion<QueueInfo> done)
{
    if (const Result<void> check = Validation::queueName(name); !check)
        return done(check.error());
    if (change.isEmpty())
        return done(Error{ErrorCode::InvalidArgument, QStringLiteral("Nothing to change")});
    if (change.deadLetterQueue && *change.deadLetterQueue == name)
        return done(Error{ErrorCode::InvalidArgument,
                          QStringLiteral("Invalid option 'dead_letter_queue': a queue cannot be its own dead-letter queue")});
    auto update = [this, name, change, done = watched("update queue", std::move(done))]() mutable {
        m_store.updateQueue(name, change, [this, name, done = std::move(done)](Result<QueueInfo> result) {
            if (result) {
                result.value().rates = m_rates.rates(name);
                Q_EMIT queueUpdated(name);
            }
            done(std::move(result));
        });
    };
    if (!change.deadLetterQueue || change.deadLetterQueue->isEmpty())
        return update();
    // Only for a queue that exists: a change refused with 404 leaves no dead-letter queue behind.
    m_store.queueInfo(name, [this, dlq = *change.deadLetterQueue, update = std::move(update)](
                                Result<QueueInfo> existing) mutable {
        if (!existing)
            return update(); // the store answers for it (not found, unavailable)
        ensureDeadLetterQueue(dlq, std::move(update));
    });
}

void MessageBroker::browse(const QString &queue, const BrowseQuery &query, Completion<BrowsePage> done)
{
    if (const Result<void> valid = Validation::all({Validation::queueName(queue), Validation::browseQuery(query, m_options)});
        !valid) {
        return done(valid.error());
    }
    m_store.browse(queue, query, watched("browse", std::move(done)));
}

} // namespace Broker
