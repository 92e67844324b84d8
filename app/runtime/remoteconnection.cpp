// SPDX-License-Identifier: GPL-3.0-or-later
#include "remoteconnection.h"

#include "continuation.h"

#include "engine/queuetyperegistry.h"

#include <QDateTime>
#include <QJsonArray>

namespace Broker {

RemoteConnection::RemoteConnection(QString name, RemoteEndpoint endpoint, QObject *parent)
    : BrokerConnection(parent), m_name(std::move(name)), m_feed(endpoint), m_api(endpoint)
{
    // What a remote broker's API does not tell is left empty rather than guessed: its journal's
    // settings and its files are the server's.
    m_description.apiUrl = endpoint.url.toString(QUrl::RemoveUserInfo | QUrl::StripTrailingSlash);
    m_description.queueTypes = QueueTypeRegistry().names(); // the built-in types every broker of this version has
    connect(&m_feed, &RemoteFeed::stateChanged, this, &RemoteConnection::feedStateChanged);
    connect(&m_feed, &RemoteFeed::permissionsChanged, this, &RemoteConnection::permissionsKnown);
    connect(&m_feed, &RemoteFeed::snapshotUpdated, this, &RemoteConnection::forward);
    // The stream sends only changes: an idle broker's pages still move on (uptime, the charts'
    // time axis), as the embedded broker's do, once a second.
    m_idleTimer.setInterval(IdleSnapshotMs);
    connect(&m_idleTimer, &QTimer::timeout, this, [this] {
        if (link() == Link::Online && QDateTime::currentMSecsSinceEpoch() - m_lastForwardedMs >= IdleSnapshotMs - 50) {
            BrokerSnapshot again = m_feed.snapshot();
            again.takenAtMs = QDateTime::currentMSecsSinceEpoch();
            forward(again);
        }
    });
    m_directoryTimer.setInterval(DirectoryIntervalMs);
    connect(&m_directoryTimer, &QTimer::timeout, this, &RemoteConnection::readDirectory);
}

RemoteConnection::~RemoteConnection()
{
    disconnect(&m_feed, nullptr, this, nullptr); // the feed outlives this object's other members
}

void RemoteConnection::start()
{
    m_feed.start();
    m_directoryTimer.start();
    m_idleTimer.start();
}

void RemoteConnection::stop()
{
    m_directoryTimer.stop();
    m_idleTimer.stop();
    m_feed.stop();
}

void RemoteConnection::forward(BrokerSnapshot snapshot)
{
    if (m_description.storage != snapshot.storage && !snapshot.storage.isEmpty()) {
        m_description.storage = snapshot.storage;
        Q_EMIT descriptionChanged();
    }
    if (m_startedMs > 0)
        snapshot.uptimeSeconds = qMax<qint64>(0, (snapshot.takenAtMs - m_startedMs) / 1000);
    snapshot.processors = m_processors;
    m_lastForwardedMs = QDateTime::currentMSecsSinceEpoch();
    Q_EMIT snapshotUpdated(snapshot);
}

BrokerConnection::Link RemoteConnection::link() const
{
    switch (m_feed.state()) {
    case RemoteFeed::State::Idle: return Link::Offline;
    case RemoteFeed::State::Connecting: return Link::Connecting;
    case RemoteFeed::State::Connected: return Link::Online;
    case RemoteFeed::State::Reconnecting: return Link::Reconnecting;
    case RemoteFeed::State::AuthFailed: return Link::Refused;
    }
    return Link::Offline;
}

QString RemoteConnection::linkText() const
{
    return m_feed.stateText(QDateTime::currentMSecsSinceEpoch());
}

void RemoteConnection::feedStateChanged()
{
    const bool online = link() == Link::Online;
    if (online != m_description.ok) {
        m_description.ok = online;
        m_description.error = online ? QString() : m_feed.problem();
        Q_EMIT descriptionChanged();
    }
    Q_EMIT linkChanged();
    if (!online)
        return;
    readDirectory();
    // When the broker started (it may have restarted while the link was down): the snapshots'
    // uptime counts from it.
    const qint64 askedMs = QDateTime::currentMSecsSinceEpoch();
    whenFinished(m_api.uptimeSeconds(), this, [this, askedMs](const Result<qint64> &uptime) {
        if (uptime)
            m_startedMs = askedMs - *uptime * 1000;
    });
}

void RemoteConnection::permissionsKnown()
{
    Q_EMIT permissionsChanged();
    readRoles();
    readDirectory();
}

void RemoteConnection::readRoles()
{
    // GET /definitions carries every queue too: read once per connection, not on every reconnect.
    if (!allows(QStringLiteral("manage_users")) || !m_description.roles.isEmpty())
        return;
    whenFinished(m_api.exportDefinitions(), this, [this](const Result<QJsonObject> &definitions) {
        if (!definitions)
            return; // the dialog then offers no roles to pick; the API still checks what is typed
        QStringList roles;
        QStringList adminRoles;
        for (const QJsonValue &entry : definitions->value(QStringLiteral("roles")).toArray()) {
            const QString name = entry.toObject().value(QStringLiteral("name")).toString();
            roles.append(name);
            if (entry.toObject().value(QStringLiteral("permissions")).toArray().contains(QStringLiteral("*")))
                adminRoles.append(name);
        }
        if (roles == m_description.roles && adminRoles == m_description.adminRoles)
            return;
        m_description.roles = roles;
        m_description.adminRoles = adminRoles;
        Q_EMIT descriptionChanged();
    });
}

void RemoteConnection::readDirectory()
{
    if (link() != Link::Online)
        return;
    if (m_readingDirectory) {
        m_directoryAgain = true;
        return;
    }
    readProcessors();
    const bool users = allows(QStringLiteral("manage_users"));
    const bool errors = allows(QStringLiteral("view_errors"));
    if (!users && !errors)
        return;
    m_readingDirectory = true;
    // A part that could not be read keeps what was read last: a broker that fails a read once does
    // not blank the Users or Errors page.
    const auto readErrors = [this, errors](HostDirectory directory) {
        if (!errors)
            return directoryRead(std::move(directory));
        whenFinished(m_api.errors(ErrorsShown), this, [this, directory](const Result<QList<ErrorRecord>> &read) mutable {
            if (read) {
                directory.errors = *read;
                directory.errorTotals = {};
                for (const ErrorRecord &record : directory.errors)
                    directory.errorTotals[size_t(record.severity)] += record.count;
            }
            directoryRead(std::move(directory));
        });
    };
    if (!users)
        return readErrors(m_directory);
    whenFinished(m_api.users(), this, [this, readErrors](const Result<QList<User>> &read) {
        HostDirectory directory = m_directory;
        if (read)
            directory.users = *read;
        readErrors(std::move(directory));
    });
}

void RemoteConnection::readProcessors()
{
    // The event stream does not carry them; the queue detail page shows them from the snapshots.
    if (m_readingProcessors || !allows(QStringLiteral("view_metrics")))
        return;
    m_readingProcessors = true;
    whenFinished(m_api.processors(), this, [this](const Result<ProcessorStatusList> &read) {
        m_readingProcessors = false;
        if (read)
            m_processors = *read;
    });
}

void RemoteConnection::directoryRead(HostDirectory directory)
{
    m_readingDirectory = false;
    m_directory = directory;
    Q_EMIT directoryUpdated(directory);
    if (std::exchange(m_directoryAgain, false))
        readDirectory();
}

template<typename T>
QFuture<T> RemoteConnection::thenReadDirectory(QFuture<T> future)
{
    whenFinished(future, this, [this](const T &) { readDirectory(); });
    return future;
}

QFuture<Result<QueueInfo>> RemoteConnection::createQueue(const QString &name, const QueueConfig &config)
{
    return m_api.createQueue(name, config);
}

QFuture<Result<QueueInfo>> RemoteConnection::updateQueue(const QString &name, const QueueConfigChange &change)
{
    return m_api.updateQueue(name, change);
}

QFuture<Result<qint64>> RemoteConnection::deleteQueue(const QString &name)
{
    return m_api.deleteQueue(name);
}

QFuture<Result<qint64>> RemoteConnection::purgeQueue(const QString &name)
{
    return m_api.purgeQueue(name);
}

QFuture<Result<PublishResult>> RemoteConnection::publish(const QString &queue, const QList<NewMessage> &messages)
{
    return m_api.publish(queue, messages);
}

QFuture<Result<BrowsePage>> RemoteConnection::browse(const QString &queue, const BrowseQuery &query)
{
    return m_api.browse(queue, query);
}

QFuture<Result<BrowsePage>> RemoteConnection::browse(const QString &queue, qint64 offset, qint64 limit)
{
    return m_api.browse(queue, offset, limit);
}

QFuture<Result<qint64>> RemoteConnection::redrive(const QString &queue, qint64 limit)
{
    return m_api.redrive(queue, limit);
}

QFuture<Result<RedriveResult>> RemoteConnection::redrive(const QString &queue, const RedriveRequest &request)
{
    return m_api.redrive(queue, request);
}

QFuture<Result<MessageActionResult>> RemoteConnection::messageAction(const QString &queue, const MessageAction &action)
{
    return m_api.messageAction(queue, action);
}

QFuture<Result<QList<MessageEvent>>> RemoteConnection::lifecycle(const QString &queue, const QString &messageId)
{
    return m_api.lifecycle(queue, messageId);
}

QFuture<Result<IssuedKey>> RemoteConnection::addUser(const QString &id, const QString &name, const QStringList &roles)
{
    return thenReadDirectory(m_api.addUser(id, name, roles));
}

QFuture<Result<IssuedKey>> RemoteConnection::rotateKey(const QString &id)
{
    return thenReadDirectory(m_api.rotateKey(id));
}

QFuture<Result<void>> RemoteConnection::setRoles(const QString &id, const QStringList &roles)
{
    return thenReadDirectory(m_api.setRoles(id, roles));
}

QFuture<Result<void>> RemoteConnection::setDisabled(const QString &id, bool disabled)
{
    return thenReadDirectory(m_api.setDisabled(id, disabled));
}

QFuture<Result<void>> RemoteConnection::removeUser(const QString &id)
{
    return thenReadDirectory(m_api.removeUser(id));
}

QFuture<Result<QJsonObject>> RemoteConnection::exportDefinitions()
{
    return m_api.exportDefinitions();
}

QFuture<Result<DefinitionsImport>> RemoteConnection::importDefinitions(const QJsonObject &document)
{
    return thenReadDirectory(m_api.importDefinitions(document));
}

} // namespace Broker
