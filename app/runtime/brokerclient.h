// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "brokerconnection.h"
#include "hostreport.h"

#include "core/brokersnapshot.h"
#include "core/certificaterequest.h"
#include "core/browsequery.h"
#include "core/configchange.h"
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
#include <QPromise>
#include <QThread>

#include <functional>
#include <memory>
#include <optional>

namespace Broker {

class BrokerHost;
class HostWorker;

// The desktop app's handle on the broker: lives in the main thread and runs the broker (engine,
// store, REST API) in a worker thread named "broker" that it owns. Commands go in as queued calls
// and answer with a QFuture finished in the worker thread; continue it with whenFinished()
// (continuation.h) to come back to the main thread. Snapshots come out as signals about four
// times a second and at once when queues are created, changed, deleted or purged. Nothing here blocks on
// the worker except the destructor, which stops it and waits for the thread to end.
class BrokerClient : public BrokerConnection
{
    Q_OBJECT
public:
    enum class State { Stopped, Starting, Running, Failed };
    Q_ENUM(State)

    explicit BrokerClient(int snapshotIntervalMs = 250, QObject *parent = nullptr);
    ~BrokerClient() override;

    State state() const { return m_state; }
    const StartReport &lastStart() const { return m_lastStart; }

    Link link() const override;
    QString linkText() const override;
    bool isEmbedded() const override { return true; }
    bool allows(const QString &) const override { return true; }
    StartReport description() const override { return m_lastStart; }

    // Starts the host (stopping a running one first, gracefully). stateChanged follows.
    QFuture<StartReport> start(const HostSettings &settings);
    QFuture<void> stop();
    // Writes `changes` into the configuration file (in the worker thread: no file I/O in the
    // GUI's), then restarts the host with `settings`. An error when the file could not be written:
    // then nothing was changed and the running broker goes on as it was. When the restart fails
    // and a start had worked before, the file is put back byte for byte and the broker restarts
    // on the last settings that worked (ApplyReport::restored): a failed Apply never leaves the
    // broker down when it was up.
    QFuture<Result<ApplyReport>> applySettings(const HostSettings &settings, const QList<ConfigChange> &changes);

    // Writes `changes` (only api.tls's files and min_version: reloadsWithoutRestart()) into the
    // configuration file and serves the certificate they name to the connections accepted from
    // now on, without a restart: open connections, long polls and leases go on. When the new
    // certificate or key does not load, the file is put back, the old certificate stays served,
    // and the error says why. No changes: the files in force are read again (renewed in place).
    QFuture<Result<TlsReloadReport>> reloadTls(const QString &configFile, const QList<ConfigChange> &changes);
    // Whether `changes` can be applied by reloadTls() while the API runs with `inForce`.
    static bool reloadsWithoutRestart(const QList<ConfigChange> &changes, const BrokerConfig &inForce);

    // Makes a self-signed certificate and key (`brokerd --make-cert`'s) in the worker thread.
    QFuture<Result<MadeCertificate>> makeCertificate(const CertificateRequest &request);
    // The names a certificate made without any is for: localhost, 127.0.0.1, ::1, this machine's name.
    static QStringList defaultCertificateHosts();

    // Connects to the Redis server that `config` names (storage.redis: AUTH with the ACL user,
    // SELECT, TLS with its files taken from `configFile`'s folder, as the store would) in the worker
    // thread and asks for its version: "Redis 7.0.15 at host:port", or why not (refused, timed
    // out, wrong password, certificate not trusted). Works whether or not the broker runs;
    // nothing is changed.
    QFuture<Result<QString>> testRedis(const BrokerConfig &config, const QString &configFile);

    QFuture<Result<QueueInfo>> createQueue(const QString &name, const QueueConfig &config) override;
    // Changes the options `change` names; a snapshot follows at once (queueUpdated).
    QFuture<Result<QueueInfo>> updateQueue(const QString &name, const QueueConfigChange &change) override;
    QFuture<Result<qint64>> deleteQueue(const QString &name) override;
    QFuture<Result<qint64>> purgeQueue(const QString &name) override;
    // One message or a batch (up to the engine's max_batch): all of them, in order, or none.
    QFuture<Result<PublishResult>> publish(const QString &queue, const QList<NewMessage> &messages) override;
    QFuture<Result<BrowsePage>> browse(const QString &queue, qint64 offset, qint64 limit) override;
    // Messages of one state, filtered server-side (BrowseQuery: state, page, text, header, id).
    QFuture<Result<BrowsePage>> browse(const QString &queue, const BrowseQuery &query) override;
    QFuture<Result<qint64>> redrive(const QString &queue, qint64 limit) override;
    // A redrive of chosen messages with edited payloads, or a dry run that moves nothing.
    QFuture<Result<RedriveResult>> redrive(const QString &queue, const RedriveRequest &request) override;
    // Delete, requeue, move or dead-letter chosen messages (MessageAction).
    QFuture<Result<MessageActionResult>> messageAction(const QString &queue, const MessageAction &action) override;
    QFuture<Result<QList<MessageEvent>>> lifecycle(const QString &queue, const QString &messageId) override;

    QFuture<Result<IssuedKey>> addUser(const QString &id, const QString &name, const QStringList &roles) override;
    QFuture<Result<IssuedKey>> rotateKey(const QString &id) override;
    QFuture<Result<void>> setRoles(const QString &id, const QStringList &roles) override;
    QFuture<Result<void>> setDisabled(const QString &id, bool disabled) override;
    QFuture<Result<void>> removeUser(const QString &id) override;

    // The definitions (queues with options, roles, users without keys) as one JSON document, the
    // same as GET /definitions answers.
    QFuture<Result<QJsonObject>> exportDefinitions() override;
    // Imports such a document as POST /definitions does, with the desktop's (admin) rights: a bad
    // document is an InvalidArgument error and changes nothing; otherwise what is missing is
    // added and the summary says what was done (new users' keys in it, once).
    QFuture<Result<DefinitionsImport>> importDefinitions(const QJsonObject &document) override;

    // The roles the desktop acts with where the engine asks (an import's new users): the person
    // at the desktop runs the broker, so it may do what an admin may.
    static QStringList desktopRoles() { return {QStringLiteral("admin")}; }

Q_SIGNALS:
    void stateChanged(Broker::BrokerClient::State state);

private:
    // Runs `operation(host, complete)` in the worker thread; an error when the host is not running.
    template<typename T>
    QFuture<Result<T>> call(std::function<void(BrokerHost &, std::function<void(Result<T>)>)> operation);
    void setState(State state);
    // In the worker thread: stops the host, starts it with `settings`, and reports to `done`.
    void restartInWorker(const HostSettings &settings, std::function<void(StartReport)> done);
    // In the worker thread: after a failed start on new settings, puts `previousFile` back and
    // restarts on the last settings that worked.
    void rollBackInWorker(ApplyReport report, const QString &configFile, const std::optional<QByteArray> &previousFile,
                          std::function<void(ApplyReport)> done);

    QThread m_thread;
    QObject *m_context = nullptr;   // lives in m_thread: the target of every queued call
    HostWorker *m_worker = nullptr; // made, used and deleted in m_thread only
    std::optional<HostSettings> m_lastWorking; // worker thread only: the settings of the last start that succeeded
    State m_state = State::Stopped;
    StartReport m_lastStart;
};

} // namespace Broker
