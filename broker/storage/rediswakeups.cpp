// SPDX-License-Identifier: GPL-3.0-or-later
#include "rediswakeups.h"

namespace Broker {

namespace {

// A wait is set for at least this long, so that a consumer polling again and again with short
// waits sets it about once in that time, not once per poll.
constexpr qint64 MinimumWaitMs = 10'000;
// Beyond the wait: the time the call that sets it takes to arrive.
constexpr qint64 WaitMarginMs = 2'000;
// Queues whose wait ran out are forgotten once this many are remembered (then twice as many).
constexpr qsizetype SweepAtLeast = 256;

} // namespace

RedisWakeups::RedisWakeups(Arm arm, const Redis::ConnectionOptions &connection,
                           Redis::Subscriber::Candidates candidates, const QString &keyPrefix, const Clock &clock,
                           RedisEventRelay &events)
    : m_arm(std::move(arm)), m_clock(clock), m_events(events),
      m_subscriber(std::make_unique<Redis::Subscriber>(connection, (keyPrefix + QStringLiteral("wake")).toUtf8(),
                                                       std::move(candidates)))
{
    QObject::connect(m_subscriber.get(), &Redis::Subscriber::message, m_subscriber.get(), [this](const QByteArray &queue) {
        ++m_received;
        m_events.available(QString::fromUtf8(queue));
    });
    QObject::connect(m_subscriber.get(), &Redis::Subscriber::subscribed, m_subscriber.get(), [this] { resubscribed(); });
}

RedisWakeups::~RedisWakeups() = default;

void RedisWakeups::start()
{
    m_subscriber->start();
}

void RedisWakeups::stop()
{
    m_subscriber->stop();
}

void RedisWakeups::awaitMessages(const QString &queue, qint64 untilMs)
{
    const qint64 now = m_clock.nowMs();
    const auto covered = m_coveredUntil.constFind(queue);
    if (covered != m_coveredUntil.cend() && *covered >= untilMs)
        return;
    if (m_coveredUntil.size() >= m_sweepAt)
        forgetExpired(now);
    setWait(queue, qMax(untilMs - now, MinimumWaitMs));
}

void RedisWakeups::forgetExpired(qint64 now)
{
    m_coveredUntil.removeIf([now](const auto &entry) { return entry.value() < now; });
    m_sweepAt = qMax<qsizetype>(SweepAtLeast, 2 * m_coveredUntil.size());
}

void RedisWakeups::setWait(const QString &queue, qint64 lifeMs)
{
    m_coveredUntil.insert(queue, m_clock.nowMs() + lifeMs);
    m_arm(queue, lifeMs + WaitMarginMs, [this, queue](bool set) {
        if (!set) {
            m_coveredUntil.remove(queue); // the next wait tries again
            return;
        }
        m_events.available(queue); // what came before the wait was set
    });
}

void RedisWakeups::resubscribed()
{
    // Messages published while no subscription was up were not heard, and a server that lost
    // the connection may have lost the waits too (a restart without persistence, a failover
    // before they reached a replica): every queue still waited on has its wait set again, and is
    // looked at once that is answered. The first subscription too, for waits that began before it.
    const qint64 now = m_clock.nowMs();
    forgetExpired(now);
    const QHash<QString, qint64> waitedOn = m_coveredUntil;
    for (auto it = waitedOn.cbegin(); it != waitedOn.cend(); ++it)
        setWait(it.key(), it.value() - now);
}

} // namespace Broker
