// SPDX-License-Identifier: GPL-3.0-or-later
#include "brokerhost.h"

#include "config/configloader.h"
#include "storage/memorystore.h"

#include <QDir>
#include <QFileInfo>
#include <QProcessEnvironment>

namespace Broker {

namespace {

Severity severityFromName(const QString &name)
{
    if (name == QLatin1StringView("info"))
        return Severity::Info;
    if (name == QLatin1StringView("warning"))
        return Severity::Warning;
    if (name == QLatin1StringView("critical"))
        return Severity::Critical;
    return Severity::Error;
}

} // namespace

BrokerHost::BrokerHost(QObject *parent) : QObject(parent) {}

BrokerHost::~BrokerHost()
{
    stop();
}

Result<void> BrokerHost::start(const HostSettings &settings)
{
    stop();
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
    }
    if (const Result<void> env = ConfigLoader::applyEnvironment(m_config, QProcessEnvironment::systemEnvironment()); !env)
        return env;
    if (m_config.storage.backend != QLatin1StringView("memory"))
        return Error{ErrorCode::InvalidArgument,
                     QStringLiteral("storage.backend '%1' is not available in this build (use memory)")
                         .arg(m_config.storage.backend)};

    m_policy = AccessPolicy{};
    for (const auto &[name, permissions] : m_config.security.roles) {
        if (const Result<void> defined = m_policy.defineRole(name, permissions); !defined)
            return Error{ErrorCode::InvalidArgument, QStringLiteral("security.roles: %1").arg(defined.error().message)};
    }

    QString usersPath = settings.usersFile;
    if (usersPath.isEmpty()) {
        const QString base = settings.configFile.isEmpty() ? QDir::currentPath()
                                                           : QFileInfo(settings.configFile).absolutePath();
        usersPath = QDir(base).absoluteFilePath(m_config.security.usersFile);
    }
    m_failedStage = StartStage::Users;
    auto users = std::make_unique<UserDirectory>(m_policy, m_clock);
    Result<QList<IssuedKey>> issued = users->load(usersPath, settings.createUsersFile);
    if (!issued)
        return issued.error();
    m_issuedKeys = std::move(issued.value());

    m_errors = std::make_unique<ErrorManager>(m_clock, m_config.errors.maxRecords);
    m_errors->setNotificationThreshold(severityFromName(m_config.errors.notifySeverity));
    m_users = std::move(users);
    m_store = std::make_unique<MemoryStore>(m_types, m_clock);
    m_broker = std::make_unique<MessageBroker>(*m_store, m_types, m_clock, m_config.engineOptions(), m_errors.get());
    return {};
}

void BrokerHost::stop()
{
    // The engine goes before the store it drives; waiting consumers are answered on the way.
    m_broker.reset();
    m_store.reset();
    m_users.reset();
    m_errors.reset();
}

} // namespace Broker
