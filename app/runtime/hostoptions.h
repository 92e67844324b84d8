// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/brokerconfig.h"
#include "core/engineoptions.h"
#include "core/httpoptions.h"
#include "core/redisoptions.h"
#include "core/storageoptions.h"

#include <QString>

// Every mapping of the settings (BrokerConfig, in the units of message_broker.yaml) onto the
// option structs of the components a host assembles: the one place where a setting reaches its
// component. Fields a setting does not name keep the component's own default.
namespace Broker {
struct JournaledStoreOptions;
struct RedisStoreOptions;
struct WebhookOptions;
struct WebhookProcessorOptions;
struct ExecProcessorOptions;
} // namespace Broker

namespace Broker::HostOptions {

// The folder that relative file names of `configFile` start at: its own (the current folder
// when there is no file).
QString configFolder(const QString &configFile);
EngineOptions engine(const BrokerConfig &config);
// api.tls's file names are taken relative to `configDir` (empty: the current folder).
Rest::RestOptions rest(const BrokerConfig &config, const QString &configDir = {});
Rest::TlsOptions tls(const BrokerConfig &config, const QString &configDir);
// storage.redis.tls_*_file relative to `configDir` (empty: the current folder).
RedisStoreOptions redisStore(const BrokerConfig &config, const QString &configDir = {});
SpoolLimits spoolLimits(const BrokerConfig &config);
// Relative paths are taken from the users file's folder, where the defaults live too.
QString spoolPath(const BrokerConfig &config, const QString &usersPath);
JournaledStoreOptions journal(const BrokerConfig &config, const QString &usersPath);
WebhookOptions notificationWebhook(const BrokerConfig &config);
// One entry of the processors: list (its type says which).
WebhookProcessorOptions webhookProcessor(const BrokerConfig::Processor &processor);
ExecProcessorOptions execProcessor(const BrokerConfig::Processor &processor);
// What the configured store promises about an answered change.
Durability durability(const BrokerConfig &config);

} // namespace Broker::HostOptions
