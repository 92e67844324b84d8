// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "brokerconnection.h"
#include "remoteapi.h"
#include "remotefeed.h"

#include <QTimer>

namespace Broker {

// A remote broker administered over its REST API (RemoteApi: commands, bounded and with
// deadlines) and followed over its event stream (RemoteFeed: snapshots, reconnects with
// Last-Event-ID). What the key may do comes from GET /me; the users and errors directory (and
// the processors, for the snapshots) are read every DirectoryIntervalMs while connected, and at
// once after a change to users, one
// request at a time (a slow broker never gets a pile of them). The stream sends changes only: while
// the broker is idle the last snapshot is handed out again every IdleSnapshotMs. Lives in the GUI
// thread.
class RemoteConnection : public BrokerConnection
{
    Q_OBJECT
public:
    static constexpr int DirectoryIntervalMs = 5000;
    static constexpr int ErrorsShown = 200;
    static constexpr int IdleSnapshotMs = 1000;

    RemoteConnection(QString name, RemoteEndpoint endpoint, QObject *parent = nullptr);
    ~RemoteConnection() override;

    // Connects (feed and directory); stop() closes the stream, the last snapshot stays.
    void start();
    void stop();

    const QString &name() const { return m_name; }
    const RemoteFeed &feed() const { return m_feed; }
    RemoteApi &api() { return m_api; }

    Link link() const override;
    QString linkText() const override;
    bool isEmbedded() const override { return false; }
    bool allows(const QString &permission) const override { return m_feed.allows(permission); }
    StartReport description() const override { return m_description; }

    QFuture<Result<QueueInfo>> createQueue(const QString &name, const QueueConfig &config) override;
    QFuture<Result<QueueInfo>> updateQueue(const QString &name, const QueueConfigChange &change) override;
    QFuture<Result<qint64>> deleteQueue(const QString &name) override;
    QFuture<Result<qint64>> purgeQueue(const QString &name) override;
    QFuture<Result<PublishResult>> publish(const QString &queue, const QList<NewMessage> &messages) override;
    QFuture<Result<BrowsePage>> browse(const QString &queue, const BrowseQuery &query) override;
    QFuture<Result<BrowsePage>> browse(const QString &queue, qint64 offset, qint64 limit) override;
    QFuture<Result<qint64>> redrive(const QString &queue, qint64 limit) override;
    QFuture<Result<RedriveResult>> redrive(const QString &queue, const RedriveRequest &request) override;
    QFuture<Result<MessageActionResult>> messageAction(const QString &queue, const MessageAction &action) override;
    QFuture<Result<QList<MessageEvent>>> lifecycle(const QString &queue, const QString &messageId) override;
    QFuture<Result<IssuedKey>> addUser(const QString &id, const QString &name, const QStringList &roles) override;
    QFuture<Result<IssuedKey>> rotateKey(const QString &id) override;
    QFuture<Result<void>> setRoles(const QString &id, const QStringList &roles) override;
    QFuture<Result<void>> setDisabled(const QString &id, bool disabled) override;
    QFuture<Result<void>> removeUser(const QString &id) override;
    QFuture<Result<QJsonObject>> exportDefinitions() override;
    QFuture<Result<DefinitionsImport>> importDefinitions(const QJsonObject &document) override;

private:
    // Hands a snapshot to the pages, its uptime counted from the broker's start.
    void forward(BrokerSnapshot snapshot);
    void feedStateChanged();
    void permissionsKnown();
    // Reads users (manage_users) then errors (view_errors), unless a read is still out.
    void readDirectory();
    void directoryRead(HostDirectory directory);
    // Reads the processors (view_metrics) for the snapshots, unless a read is still out.
    void readProcessors();
    // The roles the user dialog offers, from the definitions (manage_users).
    void readRoles();
    // Runs `future` and reads the directory again once it finished (a change to users).
    template<typename T>
    QFuture<T> thenReadDirectory(QFuture<T> future);

    QString m_name;
    RemoteFeed m_feed;
    RemoteApi m_api;
    StartReport m_description;
    HostDirectory m_directory;     // as last read
    ProcessorStatusList m_processors; // as last read (GET /processors), handed out in every snapshot
    bool m_readingProcessors = false;
    QTimer m_directoryTimer;
    QTimer m_idleTimer;
    qint64 m_lastForwardedMs = 0;
    qint64 m_startedMs = 0;        // when the broker started, by its GET /health (ms since the epoch; 0: unknown)
    bool m_readingDirectory = false;
    bool m_directoryAgain = false; // a change came while a read was out: read once more after it
};

} // namespace Broker
