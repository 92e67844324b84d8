// SPDX-License-Identifier: GPL-3.0-or-later
#include "hostworker.h"

#include "hostoptions.h"

#include "engine/messagebroker.h"
#include "errors/errormanager.h"
#include "security/accesspolicy.h"
#include "security/userdirectory.h"
#include "rest/restserver.h"

#include <algorithm>

namespace Broker {

namespace {

// lastUsedMs changes with every authenticated request; compared here so that the UI hears about
// it at the snapshot rate, not per request.
bool sameUsers(const QList<User> &a, const QList<User> &b)
{
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](const User &x, const User &y) {
        return x.id == y.id && x.name == y.name && x.roles == y.roles && x.keyPrefix == y.keyPrefix
            && x.disabled == y.disabled && x.lastUsedMs == y.lastUsedMs;
    });
}

} // namespace

HostWorker::HostWorker(int snapshotIntervalMs, QObject *parent) : QObject(parent)
{
    m_tick.setInterval(snapshotIntervalMs);
    connect(&m_tick, &QTimer::timeout, this, &HostWorker::takeSnapshot);
    m_soon.setSingleShot(true);
    m_soon.setInterval(0);
    connect(&m_soon, &QTimer::timeout, this, &HostWorker::takeSnapshot);
    m_drainDeadline.setSingleShot(true);
    m_drainDeadline.setInterval(BrokerHost::DrainTimeoutMs);
    connect(&m_drainDeadline, &QTimer::timeout, this, &HostWorker::finishStop);
}

HostWorker::~HostWorker() = default;

StartReport HostWorker::start(const HostSettings &settings)
{
    m_tick.stop();
    m_host.stop();
    StartReport report;
    report.configFile = settings.configFile;
    const Result<void> started = m_host.start(settings);
    report.configWarnings = m_host.configWarnings();
    if (!started) {
        report.error = started.error().detail.isEmpty()
            ? started.error().message
            : started.error().message + QStringLiteral(": ") + started.error().detail;
        report.failedStage = m_host.failedStage();
        return report;
    }
    report.ok = true;
    report.apiUrl = m_host.apiUrl();
    report.storage = m_host.broker()->storageBackend();
    report.durability = durabilityName(HostOptions::durability(m_host.config()));
    report.usersFile = m_host.usersFile();
    report.issuedKeys = m_host.issuedKeys();
    report.queueTypes = m_host.broker()->queueTypes();
    report.queueDefaults = m_host.broker()->options().queueDefaults;
    report.roles = m_host.policy().roleNames();
    report.config = m_host.config();

    MessageBroker *broker = m_host.broker();
    connect(broker, &MessageBroker::queueCreated, this, &HostWorker::requestSnapshot);
    connect(broker, &MessageBroker::queueUpdated, this, &HostWorker::requestSnapshot);
    connect(broker, &MessageBroker::queueDeleted, this, &HostWorker::requestSnapshot);
    connect(broker, &MessageBroker::queuePurged, this, &HostWorker::requestSnapshot);
    connect(m_host.errors(), &ErrorManager::errorRecorded, this, [this] { m_directoryDirty = true; });
    connect(m_host.errors(), &ErrorManager::notificationRaised, this, &HostWorker::notificationRaised);

    m_lastEvent = 0;
    m_lastDirectory = {};
    m_directoryDirty = true;
    m_tick.start();
    requestSnapshot();
    return report;
}

void HostWorker::stop(std::function<void()> done)
{
    m_tick.stop();
    m_soon.stop();
    m_stopWaiters.push_back(std::move(done));
    if (m_stopWaiters.size() > 1)
        return; // a stop is under way; its end answers this one too
    if (!m_host.isRunning()) {
        finishStop();
        return;
    }
    m_drained = connect(&m_host, &BrokerHost::drained, this, &HostWorker::finishStop, Qt::SingleShotConnection);
    m_drainDeadline.start();
    m_host.stopAccepting();
}

void HostWorker::finishStop()
{
    // Drained, or the deadline passed with a client still mid-request: stop either way.
    m_drainDeadline.stop();
    disconnect(m_drained);
    // Queued: drained may be emitted from inside the REST server, which stop() destroys, and a
    // waiter may delete this worker.
    QMetaObject::invokeMethod(this, [this] {
        m_host.stop();
        std::vector<std::function<void()>> waiters;
        waiters.swap(m_stopWaiters);
        for (std::function<void()> &waiter : waiters)
            waiter();
    }, Qt::QueuedConnection);
}

void HostWorker::requestSnapshot()
{
    if (m_host.isRunning())
        m_soon.start();
}

void HostWorker::requestDirectory()
{
    m_directoryDirty = true;
    requestSnapshot();
}

void HostWorker::takeSnapshot()
{
    MessageBroker *broker = m_host.broker();
    if (!broker || m_snapshotInFlight)
        return;
    publishDirectoryIfChanged();
    // The Redis store answers later; one snapshot at a time keeps a slow store from piling them up.
    m_snapshotInFlight = true;
    broker->snapshot(m_lastEvent, [this](Result<BrokerSnapshot> snapshot) {
        m_snapshotInFlight = false;
        if (!snapshot)
            return;
        m_lastEvent = snapshot->lastEventNumber;
        Q_EMIT snapshotTaken(*snapshot);
    });
}

void HostWorker::publishDirectoryIfChanged()
{
    QList<User> users = m_host.users()->users();
    if (!m_directoryDirty && sameUsers(users, m_lastDirectory.users))
        return;
    m_directoryDirty = false;
    HostDirectory directory;
    directory.users = std::move(users);
    const ErrorManager *errors = m_host.errors();
    directory.errors = errors->recent();
    for (int severity = 0; severity < 4; ++severity)
        directory.errorTotals[size_t(severity)] = errors->total(Severity(severity));
    m_lastDirectory = directory;
    Q_EMIT directoryChanged(directory);
}

} // namespace Broker
