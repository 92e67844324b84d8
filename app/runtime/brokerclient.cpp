// SPDX-License-Identifier: GPL-3.0-or-later
#include "brokerclient.h"

#include "desktopconfig.h"
#include "hostoptions.h"
#include "hostworker.h"

#include "engine/messagebroker.h"
#include "redis/redisconnection.h"
#include "rest/restserver.h"
#include "rest/tlsidentity.h"
#include "security/certificatemaker.h"
#include "security/userdirectory.h"
#include "storage/redisstore.h"

#include <algorithm>

namespace Broker {

namespace {

Error notRunning()
{
    return Error{ErrorCode::Unavailable, QStringLiteral("The broker is not running")};
}

template<typename T>
void fulfil(QPromise<T> &promise, T value)
{
    promise.addResult(std::move(value));
    promise.finish();
}

} // namespace

BrokerClient::BrokerClient(int snapshotIntervalMs, QObject *parent) : BrokerConnection(parent)
{
    qRegisterMetaType<Broker::BrokerSnapshot>();
    qRegisterMetaType<Broker::HostDirectory>();
    qRegisterMetaType<Broker::ApplyReport>();
    qRegisterMetaType<Broker::ErrorRecord>();
    m_thread.setObjectName(QStringLiteral("broker"));
    m_context = new QObject;
    m_context->moveToThread(&m_thread);
    m_thread.start();
    // The worker and everything it creates are made in the worker thread; every later call is
    // queued behind this one.
    QMetaObject::invokeMethod(m_context, [this, snapshotIntervalMs] {
        m_worker = new HostWorker(snapshotIntervalMs, m_context);
        connect(m_worker, &HostWorker::snapshotTaken, this, &BrokerClient::snapshotUpdated);
        connect(m_worker, &HostWorker::directoryChanged, this, &BrokerClient::directoryUpdated);
        connect(m_worker, &HostWorker::notificationRaised, this, &BrokerClient::notificationRaised);
    }, Qt::QueuedConnection);
}

BrokerClient::~BrokerClient()
{
    // The worker stops the host and ends the thread; the thread deletes the worker (a child of
    // the context) as it ends.
    QMetaObject::invokeMethod(m_context, [this] {
        QObject *context = m_context;
        m_worker->stop([context] {
            context->deleteLater();
            QThread::currentThread()->quit();
        });
    }, Qt::QueuedConnection);
    m_thread.wait();
}

void BrokerClient::setState(State state)
{
    if (m_state == state)
        return;
    m_state = state;
    Q_EMIT stateChanged(state);
    Q_EMIT linkChanged();
}

BrokerConnection::Link BrokerClient::link() const
{
    switch (m_state) {
    case State::Starting: return Link::Connecting;
    case State::Running: return Link::Online;
    case State::Stopped:
    case State::Failed: break;
    }
    return Link::Offline;
}

QString BrokerClient::linkText() const
{
    switch (m_state) {
    case State::Stopped: return tr("stopped");
    case State::Starting: return tr("starting…");
    case State::Running: return tr("running in this app");
    case State::Failed: break;
    }
    return tr("failed to start (see Settings)");
}

QFuture<StartReport> BrokerClient::start(const HostSettings &settings)
{
    setState(State::Starting);
    auto promise = std::make_shared<QPromise<StartReport>>();
    promise->start();
    QFuture<StartReport> future = promise->future();
    QMetaObject::invokeMethod(m_context, [this, settings, promise] {
        restartInWorker(settings, [promise](StartReport report) { fulfil(*promise, std::move(report)); });
    }, Qt::QueuedConnection);
    return future;
}

QFuture<Result<ApplyReport>> BrokerClient::applySettings(const HostSettings &settings, const QList<ConfigChange> &changes)
{
    auto promise = std::make_shared<QPromise<Result<ApplyReport>>>();
    promise->start();
    QFuture<Result<ApplyReport>> future = promise->future();
    QMetaObject::invokeMethod(m_context, [this, settings, changes, promise] {
        const std::optional<QByteArray> previousFile = readFileIfAny(settings.configFile);
        // No changes (Retry after a failed start): the file stays untouched.
        if (const Result<void> written = changes.isEmpty() ? Result<void>{} : writeDesktopConfig(settings.configFile, changes);
            !written) {
            fulfil(*promise, Result<ApplyReport>(written.error()));
            return;
        }
        QMetaObject::invokeMethod(this, [this] { setState(State::Starting); }, Qt::QueuedConnection);
        restartInWorker(settings, [this, promise, file = settings.configFile, previousFile](StartReport attempt) {
            ApplyReport report;
            report.attempt = std::move(attempt);
            if (report.attempt.ok) {
                fulfil(*promise, Result<ApplyReport>(std::move(report)));
                return;
            }
            rollBackInWorker(std::move(report), file, previousFile,
                             [promise](ApplyReport done) { fulfil(*promise, Result<ApplyReport>(std::move(done))); });
        });
    }, Qt::QueuedConnection);
    return future;
}

void BrokerClient::rollBackInWorker(ApplyReport report, const QString &configFile,
                                    const std::optional<QByteArray> &previousFile, std::function<void(ApplyReport)> done)
{
    // The file goes back even when nothing ever worked: what it said before is what the user had.
    if (const Result<void> restored = restoreFile(configFile, previousFile); !restored)
        report.restoreError = restored.error().message;
    if (!m_lastWorking) {
        done(std::move(report));
        return;
    }
    report.rolledBack = true;
    restartInWorker(*m_lastWorking, [report = std::move(report), done = std::move(done)](StartReport restarted) mutable {
        report.restored = std::move(restarted);
        done(std::move(report));
    });
}

void BrokerClient::restartInWorker(const HostSettings &settings, std::function<void(StartReport)> done)
{
    HostWorker *worker = m_worker;
    worker->stop([this, worker, settings, done = std::move(done)] {
        StartReport report = worker->start(settings);
        if (report.ok)
            m_lastWorking = settings;
        // Back in the main thread: BrokerClient's state is only touched there.
        QMetaObject::invokeMethod(this, [this, report] {
            m_lastStart = report;
            setState(report.ok ? State::Running : State::Failed);
            Q_EMIT descriptionChanged();
        }, Qt::QueuedConnection);
        done(std::move(report));
    });
}

QFuture<void> BrokerClient::stop()
{
    auto promise = std::make_shared<QPromise<void>>();
    promise->start();
    QFuture<void> future = promise->future();
    QMetaObject::invokeMethod(m_context, [this, promise] {
        m_worker->stop([this, promise] {
            QMetaObject::invokeMethod(this, [this] { setState(State::Stopped); }, Qt::QueuedConnection);
            promise->finish();
        });
    }, Qt::QueuedConnection);
    return future;
}

bool BrokerClient::reloadsWithoutRestart(const QList<ConfigChange> &changes, const BrokerConfig &inForce)
{
    if (!inForce.api.tls.enabled || changes.isEmpty())
        return false;
    static const QStringList reloadable = {QStringLiteral("api.tls.cert_file"), QStringLiteral("api.tls.key_file"),
                                           QStringLiteral("api.tls.client_ca_file"), QStringLiteral("api.tls.min_version")};
    return std::all_of(changes.begin(), changes.end(),
                       [](const ConfigChange &change) { return reloadable.contains(change.first); });
}

QFuture<Result<TlsReloadReport>> BrokerClient::reloadTls(const QString &configFile, const QList<ConfigChange> &changes)
{
    auto promise = std::make_shared<QPromise<Result<TlsReloadReport>>>();
    promise->start();
    QFuture<Result<TlsReloadReport>> future = promise->future();
    QMetaObject::invokeMethod(m_context, [this, configFile, changes, promise] {
        BrokerHost &host = m_worker->host();
        if (!host.isRunning()) {
            fulfil(*promise, Result<TlsReloadReport>(notRunning()));
            return;
        }
        const std::optional<QByteArray> previousFile = readFileIfAny(configFile);
        if (!changes.isEmpty()) {
            if (const Result<void> written = writeDesktopConfig(configFile, changes); !written) {
                fulfil(*promise, Result<TlsReloadReport>(written.error()));
                return;
            }
        }
        if (const Result<void> reloaded = host.reloadTls(); !reloaded) {
            // The file says what is served: the change that did not load goes out of it again.
            Error error = reloaded.error();
            if (const Result<void> restored = restoreFile(configFile, previousFile); !restored)
                error.message += QStringLiteral("; the file could not be put back: %1").arg(restored.error().message);
            fulfil(*promise, Result<TlsReloadReport>(std::move(error)));
            return;
        }
        const std::shared_ptr<const Rest::TlsIdentity> identity = host.restServer()->tlsIdentity();
        TlsReloadReport report;
        report.config = host.config();
        report.subject = identity->subject;
        report.fingerprint = identity->sha256Fingerprint;
        report.notAfter = identity->notAfter;
        fulfil(*promise, Result<TlsReloadReport>(std::move(report)));
    }, Qt::QueuedConnection);
    return future;
}

QFuture<Result<MadeCertificate>> BrokerClient::makeCertificate(const CertificateRequest &request)
{
    auto promise = std::make_shared<QPromise<Result<MadeCertificate>>>();
    promise->start();
    QFuture<Result<MadeCertificate>> future = promise->future();
    // Key generation and file writes stay out of the GUI's thread.
    QMetaObject::invokeMethod(m_context, [request, promise] { fulfil(*promise, CertificateMaker::make(request)); },
                              Qt::QueuedConnection);
    return future;
}

QStringList BrokerClient::defaultCertificateHosts()
{
    return CertificateMaker::defaultHosts();
}

QFuture<Result<QString>> BrokerClient::testRedis(const BrokerConfig &config, const QString &configFile)
{
    auto promise = std::make_shared<QPromise<Result<QString>>>();
    promise->start();
    QFuture<Result<QString>> future = promise->future();
    const Redis::ConnectionOptions options = HostOptions::redisStore(config, HostOptions::configFolder(configFile)).connection;
    QMetaObject::invokeMethod(m_context, [this, options, promise] {
        // The connection's own deadlines (connect, AUTH/SELECT, command) bound the test.
        auto *connection = new Redis::RedisConnection(options, m_context);
        const QString where = QStringLiteral("%1:%2").arg(options.host).arg(options.port);
        auto answered = std::make_shared<bool>(false);
        auto answer = [connection, promise, answered](Result<QString> result) {
            if (*answered)
                return;
            *answered = true;
            fulfil(*promise, std::move(result));
            connection->deleteLater();
        };
        connect(connection, &Redis::RedisConnection::disconnected, connection, [answer](const QString &reason) {
            answer(Error{ErrorCode::Unavailable, reason});
        });
        connect(connection, &Redis::RedisConnection::ready, connection, [connection, answer, where] {
            connection->command({QByteArrayLiteral("INFO"), QByteArrayLiteral("server")}, [answer, where](Redis::CommandResult reply) {
                if (!reply) {
                    answer(reply.error());
                    return;
                }
                if (reply->isError()) {
                    answer(Error{ErrorCode::Unavailable, QString::fromUtf8(reply->string)});
                    return;
                }
                QString version;
                for (const QByteArray &line : reply->string.split('\n')) {
                    if (line.startsWith("redis_version:"))
                        version = QString::fromLatin1(line.mid(14).trimmed());
                }
                answer(version.isEmpty() ? QStringLiteral("a Redis server answers at %1").arg(where)
                                         : QStringLiteral("Redis %1 at %2").arg(version, where));
            });
        });
        connection->open();
    }, Qt::QueuedConnection);
    return future;
}

template<typename T>
QFuture<Result<T>> BrokerClient::call(std::function<void(BrokerHost &, std::function<void(Result<T>)>)> operation)
{
    auto promise = std::make_shared<QPromise<Result<T>>>();
    promise->start();
    QFuture<Result<T>> future = promise->future();
    QMetaObject::invokeMethod(m_context, [this, promise, operation = std::move(operation)] {
        BrokerHost &host = m_worker->host();
        if (!host.isRunning()) {
            fulfil(*promise, Result<T>(notRunning()));
            return;
        }
        operation(host, [promise](Result<T> result) { fulfil(*promise, std::move(result)); });
    }, Qt::QueuedConnection);
    return future;
}

QFuture<Result<QueueInfo>> BrokerClient::createQueue(const QString &name, const QueueConfig &config)
{
    return call<QueueInfo>([name, config](BrokerHost &host, auto done) {
        host.broker()->createQueue(name, config, std::move(done));
    });
}

QFuture<Result<QueueInfo>> BrokerClient::updateQueue(const QString &name, const QueueConfigChange &change)
{
    return call<QueueInfo>([name, change](BrokerHost &host, auto done) {
        host.broker()->updateQueue(name, change, std::move(done));
    });
}

QFuture<Result<qint64>> BrokerClient::deleteQueue(const QString &name)
{
    return call<qint64>([name](BrokerHost &host, auto done) { host.broker()->deleteQueue(name, std::move(done)); });
}

QFuture<Result<qint64>> BrokerClient::purgeQueue(const QString &name)
{
    return call<qint64>([name](BrokerHost &host, auto done) { host.broker()->purgeQueue(name, std::move(done)); });
}

QFuture<Result<PublishResult>> BrokerClient::publish(const QString &queue, const QList<NewMessage> &messages)
{
    return call<PublishResult>([queue, messages](BrokerHost &host, auto done) {
        host.broker()->publish(queue, messages, desktopUser(), std::move(done));
    });
}

QFuture<Result<BrowsePage>> BrokerClient::browse(const QString &queue, qint64 offset, qint64 limit)
{
    return call<BrowsePage>([queue, offset, limit](BrokerHost &host, auto done) {
        host.broker()->browse(queue, offset, limit, std::move(done));
    });
}

QFuture<Result<BrowsePage>> BrokerClient::browse(const QString &queue, const BrowseQuery &query)
{
    return call<BrowsePage>([queue, query](BrokerHost &host, auto done) {
        host.broker()->browse(queue, query, std::move(done));
    });
}

QFuture<Result<qint64>> BrokerClient::redrive(const QString &queue, qint64 limit)
{
    return call<qint64>([queue, limit](BrokerHost &host, auto done) {
        host.broker()->redrive(queue, limit, desktopUser(), std::move(done));
    });
}

QFuture<Result<RedriveResult>> BrokerClient::redrive(const QString &queue, const RedriveRequest &request)
{
    RedriveRequest asDesktop = request;
    asDesktop.user = desktopUser();
    return call<RedriveResult>([queue, asDesktop](BrokerHost &host, auto done) {
        host.broker()->redrive(queue, asDesktop, std::move(done));
    });
}

QFuture<Result<MessageActionResult>> BrokerClient::messageAction(const QString &queue, const MessageAction &action)
{
    MessageAction asDesktop = action;
    asDesktop.user = desktopUser();
    return call<MessageActionResult>([queue, asDesktop](BrokerHost &host, auto done) {
        host.broker()->messageAction(queue, asDesktop, std::move(done));
    });
}

QFuture<Result<QList<MessageEvent>>> BrokerClient::lifecycle(const QString &, const QString &messageId)
{
    return call<QList<MessageEvent>>([messageId](BrokerHost &host, auto done) {
        done(host.broker()->lifecycle(messageId));
    });
}

// User changes are written to users.yaml before they answer; the worker then sends the
// directory again so that every page sees the change.
QFuture<Result<IssuedKey>> BrokerClient::addUser(const QString &id, const QString &name, const QStringList &roles)
{
    return call<IssuedKey>([this, id, name, roles](BrokerHost &host, auto done) {
        done(host.users()->addUser(id, name, roles));
        m_worker->requestDirectory();
    });
}

QFuture<Result<IssuedKey>> BrokerClient::rotateKey(const QString &id)
{
    return call<IssuedKey>([this, id](BrokerHost &host, auto done) {
        done(host.users()->rotateKey(id));
        m_worker->requestDirectory();
    });
}

QFuture<Result<void>> BrokerClient::setRoles(const QString &id, const QStringList &roles)
{
    return call<void>([this, id, roles](BrokerHost &host, auto done) {
        done(host.users()->setRoles(id, roles));
        m_worker->requestDirectory();
    });
}

QFuture<Result<void>> BrokerClient::setDisabled(const QString &id, bool disabled)
{
    return call<void>([this, id, disabled](BrokerHost &host, auto done) {
        done(host.users()->setDisabled(id, disabled));
        m_worker->requestDirectory();
    });
}

QFuture<Result<void>> BrokerClient::removeUser(const QString &id)
{
    return call<void>([this, id](BrokerHost &host, auto done) {
        done(host.users()->removeUser(id));
        m_worker->requestDirectory();
    });
}

QFuture<Result<QJsonObject>> BrokerClient::exportDefinitions()
{
    return call<QJsonObject>([](BrokerHost &host, auto done) { host.exportDefinitions(std::move(done)); });
}

QFuture<Result<DefinitionsImport>> BrokerClient::importDefinitions(const QJsonObject &document)
{
    return call<DefinitionsImport>([this, document](BrokerHost &host, auto done) {
        host.importDefinitions(document, desktopRoles(), [this, done = std::move(done)](Result<DefinitionsImport> summary) {
            // New users: every page should see them at once.
            if (summary && !summary->usersCreated.isEmpty())
                m_worker->requestDirectory();
            done(std::move(summary));
        });
    });
}

} // namespace Broker
