// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "hostreport.h"

#include "core/brokersnapshot.h"
#include "core/browsequery.h"
#include "core/definitionsimport.h"
#include "core/errorrecord.h"
#include "core/message.h"
#include "core/messageaction.h"
#include "core/queueconfigchange.h"
#include "core/queueinfo.h"
#include "core/result.h"

#include <QFuture>
#include <QJsonObject>
#include <QObject>

namespace Broker {

// The one handle the desktop's pages have on a broker, whether it runs in this process
// (BrokerClient) or on a server (RemoteConnection, over its REST API and event stream): pages
// do not know which. Lives in the GUI thread. Every command answers with a QFuture that
// finishes in the GUI thread or another one: continue it with whenFinished() (continuation.h).
// Nothing here blocks the GUI thread, however slow or gone the broker is.
class BrokerConnection : public QObject
{
    Q_OBJECT
public:
    // How far the pages can trust what they show. Online: commands reach the broker and
    // snapshots are live. Connecting / Reconnecting: the last snapshot stays, its age growing.
    // Refused: the broker refused the key. Offline: no broker (stopped, failed to start).
    enum class Link { Offline, Connecting, Online, Reconnecting, Refused };
    Q_ENUM(Link)

    using QObject::QObject;

    virtual Link link() const = 0;
    // The link in words, safe to show ("connected as ops", "reconnecting in 4 s: connection refused").
    virtual QString linkText() const = 0;
    // Whether the broker runs in this process (then Settings and the embedded extras apply).
    virtual bool isEmbedded() const = 0;
    // Whether the broker would let this connection do `permission` ("create_queue",
    // "publish:orders", "manage_users"): pages show what it may not do as not permitted rather
    // than failing on click. In process: the desktop acts as the admin, so always.
    virtual bool allows(const QString &permission) const = 0;
    // What pages show about the broker itself: its API URL, storage, queue types and defaults,
    // roles. In process: the last start's report; remote: what the API told (ok once connected).
    virtual StartReport description() const = 0;

    virtual QFuture<Result<QueueInfo>> createQueue(const QString &name, const QueueConfig &config) = 0;
    virtual QFuture<Result<QueueInfo>> updateQueue(const QString &name, const QueueConfigChange &change) = 0;
    virtual QFuture<Result<qint64>> deleteQueue(const QString &name) = 0;
    virtual QFuture<Result<qint64>> purgeQueue(const QString &name) = 0;
    // One message or a batch: all of them, in order, or none.
    virtual QFuture<Result<PublishResult>> publish(const QString &queue, const QList<NewMessage> &messages) = 0;
    virtual QFuture<Result<BrowsePage>> browse(const QString &queue, const BrowseQuery &query) = 0;
    // Every state, `limit` messages from `offset` (the API's plain GET /queues/{q}/messages).
    virtual QFuture<Result<BrowsePage>> browse(const QString &queue, qint64 offset, qint64 limit) = 0;
    // Up to `limit` dead-lettered messages back to their origin queues; how many moved.
    virtual QFuture<Result<qint64>> redrive(const QString &queue, qint64 limit) = 0;
    // Chosen messages with edited payloads, or a dry run that moves nothing.
    virtual QFuture<Result<RedriveResult>> redrive(const QString &queue, const RedriveRequest &request) = 0;
    virtual QFuture<Result<MessageActionResult>> messageAction(const QString &queue, const MessageAction &action) = 0;
    // The events of one message of `queue`, oldest first.
    virtual QFuture<Result<QList<MessageEvent>>> lifecycle(const QString &queue, const QString &messageId) = 0;

    virtual QFuture<Result<IssuedKey>> addUser(const QString &id, const QString &name, const QStringList &roles) = 0;
    virtual QFuture<Result<IssuedKey>> rotateKey(const QString &id) = 0;
    virtual QFuture<Result<void>> setRoles(const QString &id, const QStringList &roles) = 0;
    virtual QFuture<Result<void>> setDisabled(const QString &id, bool disabled) = 0;
    virtual QFuture<Result<void>> removeUser(const QString &id) = 0;

    // The definitions as GET /definitions answers them; an import as POST /definitions does.
    virtual QFuture<Result<QJsonObject>> exportDefinitions() = 0;
    virtual QFuture<Result<DefinitionsImport>> importDefinitions(const QJsonObject &document) = 0;

    // Who is acting: recorded as the user in the event log for changes made from the desktop
    // in process (a remote broker records the key's user).
    static QString desktopUser() { return QStringLiteral("desktop"); }

Q_SIGNALS:
    void linkChanged();
    void permissionsChanged();
    void descriptionChanged();
    void snapshotUpdated(const Broker::BrokerSnapshot &snapshot);
    void directoryUpdated(const Broker::HostDirectory &directory);
    void notificationRaised(const Broker::ErrorRecord &record);
};

} // namespace Broker
