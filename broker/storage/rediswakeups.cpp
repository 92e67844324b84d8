// SPDX-License-Identifier: GPL-3.0-or-later
#include "rediswakeups.h"

namespace Broker {

namespace {

// A marker lives at least this long, so that a consumer polling again and again with short
// waits sets it about once in that time, not once per poll.
constexpr qint64 MinimumMarkerMs = 10'000;
// Beyond the wait: clocks of brokers and the time the SET takes to arrive.
constexpr qint64 MarkerMarginMs = 2'000;
// Queues whose marker ran out are forgotten once this many are remembered (then twice as many).
constexpr qsizetype SweepAtLeast = 256;

} // namespace

RedisWakeups::RedisWakeups(Redis::RedisClient &client, const Redis::ConnectionOptions &connection,
                           Redis::Subscriber::Candidates candidates, const QString &keyPrefix, const Clock &clock,
                           RedisEventRelay &events)
    : m_client(client), m_prefix(keyPrefix), m_clock(clock), m_events(events),
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
    setMarker(queue, qMax(untilMs - now, MinimumMarkerMs));
}

void RedisWakeups::forgetExpired(qint64 now)
{
    m_coveredUntil.removeIf([now](const auto &entry) { return entry.value() < now; });
    m_sweepAt = qMax<qsizetype>(SweepAtLeast, 2 * m_coveredUntil.size());
}

void RedisWakeups::setMarker(const QString &queue, qint64 lifeMs)
{
    m_coveredUntil.insert(queue, m_clock.nowMs() + lifeMs);
    const QByteArray key = m_prefix.toUtf8() + '{' + queue.toUtf8() + QByteArrayLiteral("}:waiting");
    m_client.command({QByteArrayLiteral("SET"), key, QByteArrayLiteral("1"), QByteArrayLiteral("PX"),
                      QByteArray::number(lifeMs + MarkerMarginMs)},
                     [this, queue](Redis::CommandResult result) {
                         if (!result || result->isError()) {
                             m_coveredUntil.remove(queue); // the next wait tries again
                             return;
                         }
                         m_events.available(queue); // what came before the marker
                     },
                     key);
}

void RedisWakeups::resubscribed()
{
    // Messages published while no subscription was up were not heard, and a server that lost
    // the connection may have lost the markers too (a restart without persistence, a failover
    // before they reached a replica): every queue still waited on gets its marker again, and is
    // looked at once that is answered. The first subscription too, for waits that began before it.
    const qint64 now = m_clock.nowMs();
    forgetExpired(now);
    const QHash<QString, qint64> waitedOn = m_coveredUntil;
    for (auto it = waitedOn.cbegin(); it != waitedOn.cend(); ++it)
        setMarker(it.key(), it.value() - now);
}

} // namespace Broker
