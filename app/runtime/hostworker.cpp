// SPDX-License-Identifier: GPL-3.0-or-later
#include "hostworker.h"

#include "hostoptions.h"

#include "engine/messagebroker.h"
#include "errors/errormanager.h"
#include "security/accesspolicy.h"
#include "security/userdirectory.h"
#include "rest/restserver.h"

#include <QTcpServer>

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

// A port nobody listens on at `bind` right now, for the user to pick when theirs is taken; 0 when
// the address itself cannot be listened on.
int freePortOn(const QString &bind)
{
    const QHostAddress address = bind == QLatin1StringView("localhost") ? QHostAddress(QHostAddress::LocalHost)
                                                                        : QHostAddress(bind);
    QTcpServer probe;
    if (address.isNull() || !probe.listen(address, 0))
        return 0;
    return probe.serverPort();
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
    forgetSnapshots();
    m_host.stop();
    StartReport report;
    report.configFile = settings.configFile;
    const Result<void> started = m_host.start(settings);
    report.configWarnings = m_host.configWarnings();
    report.configLoaded = started || m_host.failedStage() != StartStage::Config;
    if (report.configLoaded)
        report.config = m_host.config();
    // What runs is what the form shows: the command line's choices over the file's.
    report.configuredPort = report.config.api.port;
    if (settings.portOverride >= 0) {
        report.commandLinePort = settings.portOverride;
        report.config.api.port = settings.portOverride;
    }
    if (!settings.bindOverride.isEmpty()) {
        report.commandLineBind = settings.bindOverride;
        report.config.api.bind = settings.bindOverride;
    }
    if (!started) {
        report.error = started.error().detail.isEmpty()
            ? started.error().message
            : started.error().message + QStringLiteral(": ") + started.error().detail;
        report.failedStage = m_host.failedStage();
        if (report.failedStage == StartStage::Listen && started.error().code == ErrorCode::Conflict)
            report.freePort = freePortOn(report.config.api.bind);
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
    for (const QString &role : std::as_const(report.roles)) {
        if (m_host.policy().grantsEverything({role}))
            report.adminRoles.append(role);
    }

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

void HostWorker::forgetSnapshots()
{
    // A snapshot still asked of the broker that goes away may never be answered (its store is
    // destroyed with the request), or be answered late: either way it must not hold back the
    // next broker's snapshots, nor show the old broker's state. Event numbers start again too.
    ++m_snapshotGeneration;
    m_snapshotInFlight = false;
    m_lastEvent = 0;
}

void HostWorker::takeSnapshot()
{
    MessageBroker *broker = m_host.broker();
    if (!broker || m_snapshotInFlight)
        return;
    publishDirectoryIfChanged();
    // The Redis store answers later; one snapshot at a time keeps a slow store from piling them up.
    m_snapshotInFlight = true;
    broker->snapshot(m_lastEvent, [this, generation = m_snapshotGeneration](Result<BrokerSnapshot> snapshot) {
        if (generation != m_snapshotGeneration)
            return; // asked of a broker that has gone since
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
