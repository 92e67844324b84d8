// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "brokerhost.h"
#include "hostreport.h"

#include "core/brokersnapshot.h"
#include "core/errorrecord.h"

#include <QObject>
#include <QTimer>

#include <functional>
#include <vector>

namespace Broker {

// The broker side of the desktop app: owns a BrokerHost and everything it creates, all of it in
// the worker thread this object lives in. Publishes a snapshot about four times a second and at
// once (coalesced) when queues are created, deleted or purged, and the users and error log when
// they change. Made in the worker thread and used only there; BrokerClient reaches it through
// queued calls.
class HostWorker : public QObject
{
    Q_OBJECT
public:
    explicit HostWorker(int snapshotIntervalMs, QObject *parent = nullptr);
    ~HostWorker() override;

    BrokerHost &host() { return m_host; }

    StartReport start(const HostSettings &settings);
    // Stops the API gracefully (requests in progress are answered, long polls end), then the host.
    // `done` runs in the worker thread once everything is down.
    void stop(std::function<void()> done);
    // Asks for a snapshot soon (coalesced with other requests in the same event-loop turn).
    void requestSnapshot();
    // Sends users and errors again even if they look unchanged (after a user command).
    void requestDirectory();

Q_SIGNALS:
    void snapshotTaken(const Broker::BrokerSnapshot &snapshot);
    void directoryChanged(const Broker::HostDirectory &directory);
    void notificationRaised(const Broker::ErrorRecord &record);

private:
    void finishStop();
    void takeSnapshot();
    void forgetSnapshots();
    void publishDirectoryIfChanged();

    BrokerHost m_host;
    QTimer m_tick;
    QTimer m_soon;
    QTimer m_drainDeadline;
    QMetaObject::Connection m_drained;
    quint64 m_lastEvent = 0;
    bool m_snapshotInFlight = false;
    quint64 m_snapshotGeneration = 0; // one per broker started: answers for an earlier one are dropped
    bool m_directoryDirty = true;
    HostDirectory m_lastDirectory;
    std::vector<std::function<void()>> m_stopWaiters;
};

} // namespace Broker
