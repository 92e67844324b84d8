// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "hostsettings.h"

#include "core/brokerconfig.h"
#include "core/clock.h"
#include "core/definitionsimport.h"
#include "core/result.h"
#include "core/user.h"

#include <QHostAddress>
#include <QJsonObject>
#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>

namespace Broker {

class AccessPolicy;
class Definitions;
class ErrorManager;
class MessageBroker;
class QueueStore;
class QueueTypeRegistry;
class UserDirectory;
namespace Rest {
class RestServer;
}

// Owns everything one broker consists of: configuration, users and roles, the store, the
// engine and its error manager. Lives in one thread (the engine's) and is used only from there.
// This header names the engine's classes without their definitions, so that programs and tests
// that only run a host (brokerd) need nothing but the runtime; code that uses broker(), users()
// or errors() includes and links the rooms it talks to.
class BrokerHost : public QObject
{
    Q_OBJECT
public:
    // How long a graceful stop waits for requests in progress before it stops anyway.
    static constexpr int DrainTimeoutMs = 10'000;

    explicit BrokerHost(QObject *parent = nullptr);
    ~BrokerHost() override;

    // Loads configuration (file, then environment) and users, and starts the engine. Errors say
    // which file and line is wrong. Keys generated for placeholders (or for the admin of a new
    // users file) are in issuedKeys() afterwards; their hashes are written only when the start
    // succeeds, so a failed start leaves no key behind that nobody saw (the next start makes new
    // ones).
    Result<void> start(const HostSettings &settings);
    // Offline repair of a memory store's journal with the queue types this host knows: what it
    // found and did, as lines for a person.
    static Result<QStringList> repairJournal(const QString &path);
    void stop();
    // Graceful stop of the API: no new connections, long polls end, requests in progress are
    // answered; drained() follows.
    void stopAccepting();
    bool isRunning() const { return m_broker != nullptr; }
    StartStage failedStage() const { return m_failedStage; }

    const BrokerConfig &config() const { return m_config; }
    const QStringList &configWarnings() const { return m_configWarnings; }
    const QList<IssuedKey> &issuedKeys() const { return m_issuedKeys; }
    QString usersFile() const;
    int userCount() const;
    // "memory" or "redis"; empty while not running.
    QString storageBackend() const;
    // The journal file of a durable memory store; empty when the store is volatile.
    QString journalPath() const { return m_journalPath; }

    MessageBroker *broker() const { return m_broker.get(); }
    UserDirectory *users() const { return m_users.get(); }
    const AccessPolicy &policy() const;
    ErrorManager *errors() const { return m_errors.get(); }
    Rest::RestServer *restServer() const { return m_rest.get(); }
    // The broker's definitions as one document (GET /definitions's JSON); an error when the
    // queues could not be listed or the host is not running. `done` runs in this thread.
    void exportDefinitions(std::function<void(Result<QJsonObject>)> done);
    // Imports a definitions document as POST /definitions does, acting with `actorRoles`: the
    // whole document is checked first (InvalidArgument, and nothing changes, when it is bad),
    // then what is missing is added. `done` runs in this thread.
    void importDefinitions(const QJsonObject &document, const QStringList &actorRoles,
                           std::function<void(Result<DefinitionsImport>)> done);

    // Where the API listens, e.g. "http://127.0.0.1:8080" or "https://…" (empty when it does not).
    QString apiUrl() const;
    // Reads api.tls from the configuration file (and environment) again and serves the new
    // certificate and key to the connections accepted from now on, keeping the open ones (brokerd's
    // SIGHUP, the desktop's Apply of new TLS files). Nothing else of the file is applied. On
    // failure the old certificate stays and the error says why (it is also recorded).
    Result<void> reloadTls();

Q_SIGNALS:
    void drained();

private:
    // The last step of a start: writes the hashes of new keys. Stops the host when it cannot.
    Result<void> finishStart();
    // The config's processors: list, on the engine just made.
    void registerConfiguredProcessors();
    Result<std::unique_ptr<QueueStore>> openStore(const BrokerConfig &config, const QString &usersPath);
    Result<std::unique_ptr<QueueStore>> openRedisStore(const BrokerConfig &config, const QString &usersPath);

    SystemClock m_clock;
    StartStage m_failedStage = StartStage::Config;
    BrokerConfig m_config;
    QStringList m_configWarnings;
    QList<IssuedKey> m_issuedKeys;
    std::unique_ptr<AccessPolicy> m_policy;
    std::unique_ptr<QueueTypeRegistry> m_types;
    std::unique_ptr<ErrorManager> m_errors;
    std::unique_ptr<UserDirectory> m_users;
    std::unique_ptr<QueueStore> m_store;
    std::unique_ptr<MessageBroker> m_broker;
    std::unique_ptr<Definitions> m_definitions;
    std::unique_ptr<Rest::RestServer> m_rest;
    QHostAddress m_apiAddress;
    HostSettings m_settings; // of the last start
    QString m_journalPath;
};

} // namespace Broker
