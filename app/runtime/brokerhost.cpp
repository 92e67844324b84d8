// SPDX-License-Identifier: GPL-3.0-or-later
#include "brokerhost.h"

#include "hostoptions.h"

#include "config/configloader.h"
#include "engine/definitions.h"
#include "engine/execprocessor.h"
#include "engine/messagebroker.h"
#include "engine/queuetyperegistry.h"
#include "engine/webhookprocessor.h"
#include "errors/errormanager.h"
#include "errors/logging.h"
#include "errors/logoutput.h"
#include "errors/webhooksender.h"
#include "rest/restserver.h"
#include "security/accesspolicy.h"
#include "security/userdirectory.h"
#include "storage/journaledstore.h"
#include "storage/memorystore.h"
#include "redis/tlsconfiguration.h"
#include "storage/redisstore.h"

#include <QDir>
#include <QFileInfo>
#include <QProcessEnvironment>

namespace Broker {

BrokerHost::BrokerHost(QObject *parent)
    : QObject(parent), m_policy(std::make_unique<AccessPolicy>()), m_types(std::make_unique<QueueTypeRegistry>())
{
}

Result<std::unique_ptr<QueueStore>> BrokerHost::openRedisStore(const BrokerConfig &config, const QString &usersPath)
{
    const BrokerConfig::Redis &redis = config.storage.redis;
    const QString configDir = HostOptions::configFolder(m_settings.configFile);
    const RedisStoreOptions options = HostOptions::redisStore(config, configDir);
    // Every connect reads the TLS files again; reading them once now makes unusable ones stop
    // the start with the option named, instead of a broker that keeps failing to reconnect.
    if (redis.tls) {
        if (const Result<QSslConfiguration> tls = Redis::tlsConfiguration(options.connection); !tls)
            return Error{ErrorCode::InvalidArgument, QStringLiteral("storage.redis.%1").arg(tls.error().message)};
    }
    auto store = std::make_unique<RedisStore>(options, *m_types, m_clock);
    if (redis.spool) {
        Result<std::unique_ptr<PublishSpool>> spool =
            PublishSpool::open(HostOptions::spoolPath(config, usersPath), HostOptions::spoolLimits(config));
        if (!spool)
            return spool.error();
        store->setSpool(std::move(spool.value()));
    }
    store->start();
    // The password and the username never reach the log.
    qCInfo(lcStorage).noquote() << QStringLiteral("redis %1:%2%7 db %3, prefix \"%4\", pool %5%6")
                                       .arg(redis.host)
                                       .arg(redis.port)
                                       .arg(redis.database)
                                       .arg(options.keyPrefix)
                                       .arg(redis.poolSize)
                                       .arg(store->spool() ? QStringLiteral(", publish spool ") + store->spool()->path()
                                                           : QString())
                                       .arg(redis.tls ? QStringLiteral(" (TLS, verified as %1%2)")
                                                            .arg(Redis::tlsPeerName(options.connection),
                                                                 redis.tlsCertFile.isEmpty() ? QString()
                                                                                             : QStringLiteral(", client certificate"))
                                                      : QString());
    return std::unique_ptr<QueueStore>(std::move(store));
}

Result<std::unique_ptr<QueueStore>> BrokerHost::openStore(const BrokerConfig &config, const QString &usersPath)
{
    if (config.storage.backend == StorageBackend::Redis)
        return openRedisStore(config, usersPath);
    const BrokerConfig::Journal &journal = config.storage.journal;
    if (!journal.enabled)
        return std::unique_ptr<QueueStore>(std::make_unique<MemoryStore>(*m_types, m_clock));
    const JournaledStore::Options options = HostOptions::journal(config, usersPath);
    JournaledStore::ReplayReport report;
    Result<std::unique_ptr<JournaledStore>> opened = JournaledStore::open(*m_types, m_clock, options, &report);
    if (!opened) {
        return Error{ErrorCode::Unavailable,
                     QStringLiteral("%1 (brokerd --repair-journal %2 keeps every intact record)")
                         .arg(opened.error().message, options.path)};
    }
    qCInfo(lcStorage).noquote() << QStringLiteral("journal %1: replayed %2 records (%3 bytes) in %4 ms, fsync %5")
                                       .arg(options.path)
                                       .arg(report.records)
                                       .arg(report.bytes)
                                       .arg(report.elapsedMs)
                                       .arg(fsyncPolicyName(journal.fsync));
    if (report.tornTail) {
        const QString what = report.droppedAllZero
            ? QStringLiteral("%1 zero bytes (what a crash leaves in a file being extended)").arg(report.droppedBytes)
            : QStringLiteral("%1 bytes of a record a crash cut short").arg(report.droppedBytes);
        qCWarning(lcStorage).noquote() << QStringLiteral("journal %1: dropped %2 after the last intact record; a copy is in %3")
                                              .arg(options.path, what, report.keptTailPath);
    }
    m_journalPath = options.path;
    return std::unique_ptr<QueueStore>(std::move(opened.value()));
}

Result<QStringList> BrokerHost::repairJournal(const QString &path)
{
    const QueueTypeRegistry types;
    const SystemClock clock;
    const Result<JournaledStore::RepairReport> report = JournaledStore::repair(types, clock, path);
    if (!report)
        return report.error();
    QStringList lines;
    for (const QString &damage : report->damaged)
        lines.append(QStringLiteral("damaged: ") + damage);
    lines.append(QStringLiteral("kept %1 records; dropped %2 damaged bytes, %3 records this build cannot read and %4 that "
                                "depended on what was lost (%5 kept with the lease receipts they draw now); the original is "
                                "%6")
                     .arg(report->kept)
                     .arg(report->skippedBytes)
                     .arg(report->undecodable)
                     .arg(report->dependent)
                     .arg(report->adjusted)
                     .arg(report->originalCopy));
    return lines;
}

const AccessPolicy &BrokerHost::policy() const
{
    return *m_policy;
}

QString BrokerHost::usersFile() const
{
    return m_users ? m_users->path() : QString();
}

int BrokerHost::userCount() const
{
    return m_users ? int(m_users->users().size()) : 0;
}

QString BrokerHost::storageBackend() const
{
    return m_broker ? m_broker->storageBackend() : QString();
}

BrokerHost::~BrokerHost()
{
    stop();
}

Result<void> BrokerHost::start(const HostSettings &settings)
{
    stop();
    m_settings = settings;
    m_config = BrokerConfig{};
    m_configWarnings.clear();
    m_issuedKeys.clear();
    m_failedStage = StartStage::Config;

    if (!settings.configFile.isEmpty()) {
        Result<LoadedConfig> loaded = ConfigLoader::loadFile(settings.configFile);
        if (!loaded)
            return loaded.error();
        m_config = std::move(loaded->config);
        m_configWarnings = loaded->warnings;
        for (const QString &note : std::as_const(loaded->notes))
            qCInfo(lcConfig).noquote() << note;
    }
    if (const Result<void> env = ConfigLoader::applyEnvironment(m_config, QProcessEnvironment::systemEnvironment()); !env)
        return env;
    LogOutput::setLevel(m_config.core.logLevel);
    const QString configDir = HostOptions::configFolder(settings.configFile);
    if (const Result<void> logFile = LogOutput::setFile(
            m_config.errors.logToFile ? QDir(configDir).absoluteFilePath(m_config.errors.logFile) : QString(),
            m_config.errors.maxLogBytes);
        !logFile)
        return logFile;

    *m_policy = AccessPolicy{};
    for (const auto &[name, permissions] : m_config.security.roles) {
        if (const Result<void> defined = m_policy->defineRole(name, permissions); !defined)
            return Error{ErrorCode::InvalidArgument, QStringLiteral("security.roles: %1").arg(defined.error().message)};
    }

    QString usersPath = settings.usersFile;
    if (usersPath.isEmpty())
        usersPath = QDir(configDir).absoluteFilePath(m_config.security.usersFile);
    m_failedStage = StartStage::Users;
    auto users = std::make_unique<UserDirectory>(*m_policy, m_clock);
    // New keys reach the file only once everything else has started (finishStart): a start that
    // fails on a busy port must not leave the hash of a key that nobody was shown.
    Result<QList<IssuedKey>> issued = users->load(usersPath, settings.createUsersFile, UserDirectory::NewKeys::SavedLater);
    if (!issued)
        return issued.error();
    if (m_config.core.production() && !issued->isEmpty()) {
        QStringList ids;
        for (const IssuedKey &key : std::as_const(issued.value()))
            ids.append(key.userId);
        return Error{ErrorCode::InvalidArgument,
                     QStringLiteral("core.environment is production, and %1 asks for new keys for %2 (placeholders or "
                                    "no users): production never makes a key on its own. Write each user's key (or "
                                    "api_key_sha256) into the file, or start once with core.environment: development "
                                    "to have keys made and shown")
                         .arg(QFileInfo(usersPath).fileName(), ids.join(u", "))};
    }
    m_issuedKeys = std::move(issued.value());

    m_errors = std::make_unique<ErrorManager>(m_clock, m_config.errors.maxRecords);
    m_errors->setNotifiedSeverities(m_config.errors.notifyOn);
    if (!m_config.errors.webhookUrl.isEmpty())
        m_errors->setWebhook(HostOptions::notificationWebhook(m_config), m_config.core.name);
    m_users = std::move(users);
    m_failedStage = StartStage::Storage;
    Result<std::unique_ptr<QueueStore>> store = openStore(m_config, usersPath);
    if (!store) {
        stop();
        return store.error();
    }
    m_store = std::move(store.value());
    m_broker = std::make_unique<MessageBroker>(*m_store, *m_types, m_clock, HostOptions::engine(m_config), m_errors.get());
    m_definitions = std::make_unique<Definitions>(*m_broker, *m_users, *m_policy);
    registerConfiguredProcessors();
    if (!settings.serveApi)
        return finishStart();

    m_failedStage = StartStage::Listen;
    const QString bindText = settings.bindOverride.isEmpty() ? m_config.api.bind : settings.bindOverride;
    QHostAddress address;
    if (bindText == QLatin1StringView("localhost"))
        address = QHostAddress(QHostAddress::LocalHost);
    else if (!address.setAddress(bindText)) {
        stop();
        return Error{ErrorCode::InvalidArgument, QStringLiteral("api.bind '%1' is not an IP address").arg(bindText)};
    }
    if (m_config.core.production() && !address.isLoopback() && !m_config.api.tls.enabled
        && !m_config.api.plaintextBehindProxy) {
        m_failedStage = StartStage::Config;
        stop();
        return Error{ErrorCode::InvalidArgument,
                     QStringLiteral("core.environment is production: the API would take API keys in plain HTTP on %1. "
                                    "Turn on api.tls, listen on 127.0.0.1 behind a TLS-terminating proxy, or set "
                                    "api.plaintext_behind_proxy: true when only such a proxy can reach this address")
                         .arg(bindText)};
    }
    const int port = settings.portOverride >= 0 ? settings.portOverride : m_config.api.port;
    m_rest = std::make_unique<Rest::RestServer>(
        Rest::RestContext{*m_broker, *m_users, *m_policy, *m_errors, m_clock, HostOptions::rest(m_config, configDir)});
    const Result<quint16> listening = m_rest->listen(address, quint16(port));
    if (!listening) {
        stop();
        return listening.error();
    }
    m_apiAddress = address;
    if (const std::shared_ptr<const Rest::TlsIdentity> identity = m_rest->tlsIdentity()) {
        qCInfo(lcEngine).noquote() << QStringLiteral("API over HTTPS: certificate %1, SHA-256 %2, valid until %3%4")
                                          .arg(identity->subject, identity->sha256Fingerprint,
                                               identity->notAfter.toString(Qt::ISODate),
                                               identity->clientCertificates ? QStringLiteral(", client certificates required")
                                                                            : QString());
    } else if (!address.isLoopback() && !m_config.api.plaintextBehindProxy) {
        m_errors->record(Severity::Warning, QStringLiteral("api"), QStringLiteral("plaintext_api"),
                         QStringLiteral("The API listens on %1 in plain HTTP: API keys and messages cross the network "
                                        "unencrypted. Turn on api.tls (brokerd --make-cert DIR makes a certificate).")
                             .arg(bindText));
    }
    connect(m_rest.get(), &Rest::RestServer::drained, this, &BrokerHost::drained);
    return finishStart();
}

void BrokerHost::registerConfiguredProcessors()
{
    // Each new engine gets them (a restart or an applied configuration starts a new one). What the
    // log says never includes a URL's path or query, a header's value, a secret or an argument.
    for (const BrokerConfig::Processor &processor : std::as_const(m_config.processors)) {
        std::unique_ptr<AsyncProcessor> handler;
        if (processor.type == u"webhook")
            handler = std::make_unique<WebhookProcessor>(HostOptions::webhookProcessor(processor));
        else
            handler = std::make_unique<ExecProcessor>(HostOptions::execProcessor(processor));
        const QString target = handler->target();
        const int id = m_broker->registerProcessor(processor.queue, std::move(handler), processor.concurrency, processor.name);
        qCInfo(lcEngine).noquote() << QStringLiteral("processor %1%2: %3 %4 on queue %5, concurrency %6, timeout %7 ms")
                                          .arg(id)
                                          .arg(processor.name.isEmpty() ? QString() : QStringLiteral(" '%1'").arg(processor.name))
                                          .arg(processor.type, target, processor.queue)
                                          .arg(processor.concurrency)
                                          .arg(processor.timeoutMs);
    }
}

Result<void> BrokerHost::finishStart()
{
    m_failedStage = StartStage::Users;
    if (const Result<void> saved = m_users->saveNewKeys(); !saved) {
        stop();
        m_issuedKeys.clear(); // not in the file: they would not work after a restart
        return saved;
    }
    return {};
}

QString BrokerHost::apiUrl() const
{
    if (!m_rest)
        return {};
    const QString host = m_apiAddress.protocol() == QAbstractSocket::IPv6Protocol
        ? QLatin1Char('[') + m_apiAddress.toString() + QLatin1Char(']')
        : m_apiAddress.toString();
    const bool tls = m_rest->tlsIdentity() != nullptr;
    return QStringLiteral("%1://%2:%3").arg(tls ? QStringLiteral("https") : QStringLiteral("http"), host).arg(m_rest->port());
}

Result<void> BrokerHost::reloadTls()
{
    if (!m_rest)
        return Error{ErrorCode::Unavailable, QStringLiteral("The API is not running")};
    BrokerConfig config;
    if (!m_settings.configFile.isEmpty()) {
        Result<LoadedConfig> loaded = ConfigLoader::loadFile(m_settings.configFile);
        if (!loaded)
            return loaded.error();
        config = std::move(loaded->config);
    }
    if (const Result<void> env = ConfigLoader::applyEnvironment(config, QProcessEnvironment::systemEnvironment()); !env)
        return env;
    const QString configDir = HostOptions::configFolder(m_settings.configFile);
    const Rest::TlsOptions options = HostOptions::tls(config, configDir);
    const Result<void> reloaded = m_rest->reloadTls(options);
    if (!reloaded) {
        m_errors->record(Severity::Error, QStringLiteral("api"), QStringLiteral("tls_reload_failed"),
                         QStringLiteral("TLS certificate not reloaded (the old one is still served): %1")
                             .arg(reloaded.error().message));
        return reloaded;
    }
    m_config.api.tls = config.api.tls;
    const std::shared_ptr<const Rest::TlsIdentity> identity = m_rest->tlsIdentity();
    qCInfo(lcEngine).noquote() << QStringLiteral("TLS certificate reloaded: %1, SHA-256 %2, valid until %3")
                                      .arg(identity->subject, identity->sha256Fingerprint,
                                           identity->notAfter.toString(Qt::ISODate));
    return {};
}

namespace {

Error hostNotRunning()
{
    return Error{ErrorCode::Unavailable, QStringLiteral("The broker is not running")};
}

} // namespace

void BrokerHost::exportDefinitions(std::function<void(Result<QJsonObject>)> done)
{
    if (!m_definitions) {
        done(hostNotRunning());
        return;
    }
    m_definitions->exportDocument([done = std::move(done)](Result<DefinitionsDocument> document) {
        done(document ? Result<QJsonObject>(document->toJson()) : Result<QJsonObject>(document.error()));
    });
}

void BrokerHost::importDefinitions(const QJsonObject &document, const QStringList &actorRoles,
                                   std::function<void(Result<DefinitionsImport>)> done)
{
    if (!m_definitions) {
        done(hostNotRunning());
        return;
    }
    const Result<DefinitionsDocument> read = m_definitions->read(document);
    if (!read) {
        done(read.error());
        return;
    }
    if (const Result<void> allowed = m_definitions->mayAddUsers(actorRoles, *read); !allowed) {
        done(allowed.error());
        return;
    }
    m_definitions->import(*read, std::move(done));
}

void BrokerHost::stopAccepting()
{
    if (!m_rest) {
        Q_EMIT drained();
        return;
    }
    m_broker->endLongPolls();
    m_rest->stopAccepting();
}

void BrokerHost::stop()
{
    // Writes on their way to the disk complete first, while their clients can still be
    // answered; then the API goes, then the engine, then the store it drives; waiting consumers
    // are answered on the way.
    if (m_store)
        m_store->flush();
    m_rest.reset();
    m_definitions.reset();
    m_broker.reset();
    m_store.reset();
    m_users.reset();
    m_errors.reset();
    m_journalPath.clear();
}

} // namespace Broker
