// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <array>

namespace Broker {

// The settings that gCore's layout of message_broker.yaml and BrokerDesk's spell in two places.
// A file may use either name, never both (the loader refuses that); writing BrokerDesk's name
// removes gCore's (ConfigEditor), so an edited file stays valid.
struct GcoreName
{
    const char *gcore;
    const char *ours;
};

inline constexpr std::array<GcoreName, 16> GcoreNames{{
    {"storage.host", "storage.redis.host"},
    {"storage.port", "storage.redis.port"},
    {"storage.auth", "storage.redis.password"},
    {"storage.tls", "storage.redis.tls"},
    {"storage.tls_ca_file", "storage.redis.tls_ca_file"},
    {"storage.tls_cert_file", "storage.redis.tls_cert_file"},
    {"storage.tls_key_file", "storage.redis.tls_key_file"},
    {"storage.tls_server_name", "storage.redis.tls_server_name"},
    {"storage.username", "storage.redis.username"},
    {"storage.database", "storage.redis.database"},
    {"storage.prefix", "storage.redis.key_prefix"},
    {"storage.timeout", "storage.redis.command_timeout_ms"},
    {"api.cors.origins", "api.cors_origins"},
    {"api.timeout", "api.limits.request_timeout_seconds"},
    {"error.log_level", "core.log_level"},
    {"error.notify_on", "error.notify_severity"},
}};

} // namespace Broker
