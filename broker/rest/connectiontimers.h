// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QTimer>

#include <array>

namespace Broker::Rest {

// A connection's timeouts (idle, head, request, output drain) on one QTimer. Starting and
// stopping a timeout only notes its deadline; the timer is re-armed only when a deadline comes
// before the one it is armed for, and when it fires it hands out what is due and arms itself
// for the next. A keep-alive connection thus sets the event dispatcher's timers about once per
// timeout period instead of six times per request. A timeout never fires before its deadline;
// it may fire up to the coarse timer's slack (5 %) after it.
class ConnectionTimers : public QObject
{
    Q_OBJECT
public:
    enum Kind { Idle, Head, Request, Drain };

    explicit ConnectionTimers(QObject *parent = nullptr);

    void start(Kind kind, int timeoutMs);
    void stop(Kind kind) { m_due[kind] = 0; }
    void stopAll() { m_due.fill(0); }
    bool isActive(Kind kind) const { return m_due[kind] != 0; }

Q_SIGNALS:
    void expired(Broker::Rest::ConnectionTimers::Kind kind);

private:
    static qint64 nowMs();
    void fire();
    void arm(qint64 now);

    std::array<qint64, 4> m_due{}; // steady-clock ms; 0: not running
    qint64 m_armedFor = 0;         // when the timer fires; 0: not armed
    QTimer m_timer;
};

} // namespace Broker::Rest
