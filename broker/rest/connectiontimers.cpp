// SPDX-License-Identifier: GPL-3.0-or-later
#include "connectiontimers.h"

#include <QDeadlineTimer>

#include <algorithm>

namespace Broker::Rest {

ConnectionTimers::ConnectionTimers(QObject *parent) : QObject(parent)
{
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, &ConnectionTimers::fire);
}

qint64 ConnectionTimers::nowMs()
{
    return QDeadlineTimer::current().deadline(); // steady clock; never 0 on a running system
}

void ConnectionTimers::start(Kind kind, int timeoutMs)
{
    const qint64 now = nowMs();
    // The clock counts whole milliseconds: `now` may be up to 1 ms behind the true time, so the
    // deadline is a millisecond later, or it could come up to 1 ms early.
    m_due[kind] = now + qMax(timeoutMs, 0) + 1;
    if (m_armedFor == 0 || m_due[kind] < m_armedFor)
        arm(now);
}

void ConnectionTimers::arm(qint64 now)
{
    qint64 next = 0;
    for (const qint64 due : m_due) {
        if (due != 0 && (next == 0 || due < next))
            next = due;
    }
    m_armedFor = next;
    if (next == 0) {
        m_timer.stop();
        return;
    }
    m_timer.start(int(std::clamp<qint64>(next - now, 0, std::numeric_limits<int>::max())));
}

void ConnectionTimers::fire()
{
    m_armedFor = 0;
    const qint64 now = nowMs();
    for (int kind = Idle; kind <= Drain; ++kind) {
        if (m_due[kind] != 0 && m_due[kind] <= now) {
            m_due[kind] = 0;
            Q_EMIT expired(Kind(kind)); // may stop the others, or start them again
        }
    }
    if (m_armedFor == 0)
        arm(nowMs());
}

} // namespace Broker::Rest
