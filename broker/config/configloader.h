// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/brokerconfig.h"

#include "core/result.h"

#include <QProcessEnvironment>
#include <QStringList>

namespace Broker {

struct LoadedConfig
{
    BrokerConfig config;
    QStringList warnings; // "file:line:column: unknown key ..." and the like; start-up goes on
    QStringList notes;    // what the file decided that its reader should know (logged at start)
};

// Reads message_broker.yaml. A file that cannot be read or parsed, or a value of the wrong type or
// out of range, is an error "file:line:column: what is wrong"; unknown keys are warnings.
class ConfigLoader
{
public:
    static Result<LoadedConfig> loadFile(const QString &path);
    static Result<LoadedConfig> loadText(const QByteArray &text, const QString &fileName);

    // gCore's environment overrides: VALKEY_HOST, VALKEY_PORT, VALKEY_AUTH, VALKEY_TLS, API_PORT,
    // VALKEY_USERNAME (ours, in gCore's pattern: the Redis 6+ ACL user),
    // CORS_ORIGINS (comma-separated), MAX_QUEUE_SIZE, MESSAGE_TTL, CONNECTION_POOL_SIZE,
    // USE_STREAMS, GCORE_ENV. A bad value is an error naming the variable (never its value when it
    // is a secret).
    static Result<void> applyEnvironment(BrokerConfig &config, const QProcessEnvironment &environment);
};

} // namespace Broker
